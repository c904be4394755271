"""Slot roles: one definition of what a slot is, from its possible values and description
(never its name) and, where the description leaves it open, the backend's values; computed
once per schema."""

from __future__ import annotations

import json
import pickle
import shutil
from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest
from stage_helpers import schemas

from tod_runtime import Config, Runtime
from tod_runtime.config import embedded_services_dir
from tod_runtime.schema.models import ServiceSchema, SlotSchema
from tod_runtime.schema.roles import bind_values, description_head, slot_roles, value_type


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


def test_a_time_word_measuring_time_is_no_clock_time() -> None:
    # SGD-X's rewordings of train's durations (a stay in days, a ride's length)
    assert value_type(slot("x", "Time span that guest is staying in days")) == "text"
    assert value_type(slot("x", "Travel time for the ride")) == "text"
    # a moment
    assert value_type(slot("x", "Time user is free until")) == "time"
    assert value_type(slot("x", "Time of the appointment")) == "time"
    assert value_type(slot("x", "Time of travel")) == "time"


def test_roles_are_computed_once_per_schema() -> None:
    schema = next(iter(schemas().values()))
    assert slot_roles(schema) is slot_roles(schema)


def test_past_the_head_a_time_or_date_word_naming_the_value_gives_the_type() -> None:
    assert value_type(slot("x", "Pick up car on this date")) == "date"
    assert value_type(slot("x", "Book table for this time")) == "time"
    assert value_type(slot("x", "Destination-to-origin flight date")) == "date"
    # a measure or any moment, not the value
    assert value_type(slot("x", "Wind speed in miles per hour")) == "text"
    assert value_type(slot("x", "Percentage humidity for a particular day")) == "text"
    assert value_type(slot("x", "Temperature for selected location and day")) == "text"
    assert value_type(slot("x", "Price of the room per day of stay")) == "text"


def test_known_values_decide_a_type_the_description_leaves_open() -> None:
    question = slot("x", "When the car will be picked up?")
    assert value_type(question) == "text"
    assert value_type(question, ["2019-03-01", "2019-03-02", "2019-03-05"]) == "date"
    assert value_type(question, ["09:00", "9:30", "17:15"]) == "time"
    assert value_type(question, ["2019-03-01", "2019-03-02"]) == "text"  # too few to decide
    assert value_type(question, ["$20", "2019-03-02", "2019-03-05"]) == "text"
    # the description's type stands
    assert value_type(slot("x", "Wait time for pickup"), ["5", "10", "15"]) == "time"


def test_bound_values_change_the_roles_of_that_schema_only() -> None:
    first, second = (
        ServiceSchema(
            service_name=name,
            description="Rent cars",
            slots=[slot("pickup", "When the car will be picked up?")],
            intents=[],
        )
        for name in ("A", "B")
    )
    assert slot_roles(first)["pickup"].value_type == "text"
    before = slot_roles(first)
    bound = bind_values(first, {"pickup": ["2019-03-01", "2019-03-02", "2019-03-03"]})
    assert slot_roles(first) is bound and bound["pickup"].value_type == "date"
    assert before["pickup"].value_type == "text"  # immutable: binding made new roles
    assert slot_roles(second)["pickup"].value_type == "text"


def test_roles_go_with_the_schema_object_and_never_count_in_equality() -> None:
    schema = ServiceSchema(
        service_name="A",
        description="Rent cars",
        slots=[slot("pickup", "When the car will be picked up?")],
        intents=[],
    )
    twin = schema.model_copy()
    bind_values(schema, {"pickup": ["2019-03-01", "2019-03-02", "2019-03-03"]})
    assert schema == twin and slot_roles(twin)["pickup"].value_type == "text"
    copied = pickle.loads(pickle.dumps(schema))  # a worker's copy computes its own
    assert slot_roles(copied)["pickup"].value_type == "text"
    assert slot_roles(schema.model_copy())["pickup"].value_type == "text"
    with pytest.raises(FrozenInstanceError):
        slot_roles(schema).roles = ()  # type: ignore[misc]


async def test_the_runtime_lets_the_backends_values_decide_at_start(tmp_path: Path) -> None:
    shutil.copytree(embedded_services_dir(), tmp_path, dirs_exist_ok=True)
    schema_file = tmp_path / "Movies" / "schema.json"
    data = json.loads(schema_file.read_text())
    for service in data if isinstance(data, list) else [data]:
        for s in service["slots"]:
            if s["name"] == "show_time":
                s["description"] = "When is it showing?"
    schema_file.write_text(json.dumps(data))
    async with Runtime(Config(services=str(tmp_path))) as runtime:
        movies = runtime.schemas["Movies"]
        assert value_type(movies.slot_map["show_time"]) == "text"  # by its description alone
        assert slot_roles(movies)["show_time"].value_type == "time"  # the db's 18:00, ...
        for schema in runtime.schemas.values():  # nothing else moved
            for s in schema.slots:
                if s.name != "show_time" or schema.service_name != "Movies":
                    assert slot_roles(schema)[s.name].value_type == value_type(s)
