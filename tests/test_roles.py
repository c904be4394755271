"""Slot roles: one definition of what a slot is, from its values and description (never its
name), computed once per schema."""

from __future__ import annotations

from stage_helpers import schemas

from tod_runtime.schema.models import SlotSchema
from tod_runtime.schema.roles import description_head, slot_roles, value_type


def slot(name: str, description: str = "", values: tuple[str, ...] = ()) -> SlotSchema:
    return SlotSchema(
        name=name,
        description=description,
        is_categorical=bool(values),
        possible_values=list(values),
    )


def test_value_types_from_values_and_descriptions() -> None:
    assert value_type(slot("x1", values=("True", "False"))) == "bool"
    assert value_type(slot("x2", values=("1", "2", "3"))) == "number"
    assert value_type(slot("x3", "Start time of event")) == "time"
    assert value_type(slot("x4", "Check in date for reservation")) == "date"
    assert value_type(slot("x5", "City where the event is taking place")) == "text"


def test_the_name_does_not_decide() -> None:
    assert value_type(slot("pickup_time", "Location of rental car pickup")) == "text"
    assert value_type(slot("slot_7", "Date of the show")) == "date"


def test_only_the_head_of_a_description_names_the_type() -> None:
    assert description_head("Number of days for the transfer to go through") == ["number"]
    assert value_type(slot("x", "Number of days for the transfer to go through")) == "text"
    assert value_type(slot("x", "The amount of money held in a bank account at a given time")) == (
        "text"
    )
    assert value_type(slot("x", "Length of stay in days")) == "text"


def test_roles_are_computed_once_per_schema() -> None:
    schema = next(iter(schemas().values()))
    assert slot_roles(schema) is slot_roles(schema)
