"""Slot roles: one definition of what a slot is, computed once per schema."""

from __future__ import annotations

from stage_helpers import schemas

from tod_runtime.schema.models import ServiceSchema, SlotSchema
from tod_runtime.schema.roles import carried, slot_roles, value_type


def slot(name: str, description: str = "", values: tuple[str, ...] = ()) -> SlotSchema:
    return SlotSchema(
        name=name,
        description=description,
        is_categorical=bool(values),
        possible_values=list(values),
    )


def test_value_types_from_values_and_names() -> None:
    assert value_type(slot("has_wifi", values=("True", "False"))) == "bool"
    assert value_type(slot("party_size", values=("1", "2", "3"))) == "number"
    assert value_type(slot("pickup_time")) == "time"
    assert value_type(slot("check_out_date")) == "date"
    assert value_type(slot("city")) == "text"


def test_every_carried_date_is_a_date_but_not_every_date_is_carried() -> None:
    service = ServiceSchema(
        service_name="Trips_9",
        description="trips",
        slots=[
            slot("departure_date"),
            slot("return_date"),
            slot("from_city", "city of origin"),
            slot("to_city", "city to go to"),
        ],  # fmt: skip
        intents=[],
    )
    roles = slot_roles(service)
    assert roles["departure_date"].carry == "date" and roles["return_date"].carry is None
    assert {n for n, r in roles.items() if r.value_type == "date"} == {
        "departure_date",
        "return_date",
    }
    assert carried(service) == {"departure_date": "date", "from_city": "origin", "to_city": "place"}


def test_roles_are_computed_once_per_schema() -> None:
    schema = next(iter(schemas().values()))
    assert slot_roles(schema) is slot_roles(schema)
