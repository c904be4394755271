"""The rules policy builds service calls in the backend's form: the state keeps what the user
said, the call carries ISO dates, 24-hour times and digits read against the backend's date."""

from __future__ import annotations

from datetime import date

import pytest
from stage_helpers import a, system, user

from tod_runtime.dialogue.context import PolicyInput, SystemPlan, TurnContext
from tod_runtime.dialogue.models import State, Turn
from tod_runtime.plugins import ComponentContext
from tod_runtime.policy.rules import RulesPolicy
from tod_runtime.schema.loader import Schemas
from tod_runtime.schema.models import ServiceSchema

SERVICE = "Cars_1"


def _slot(name: str, *possible: str) -> dict[str, object]:
    return {
        "name": name,
        "description": name.replace("_", " "),
        "is_categorical": bool(possible),
        "possible_values": list(possible),
    }


SCHEMA = ServiceSchema.model_validate(
    {
        "service_name": SERVICE,
        "description": "rental cars",
        "slots": [
            _slot("city"),
            _slot("pickup_date"),
            _slot("pickup_time"),
            _slot("dropoff_date"),
            _slot("number_of_cars", "1", "2", "3"),
            _slot("total_price"),
        ],
        "intents": [
            {
                "name": "FindCars",
                "description": "find cars",
                "is_transactional": False,
                "required_slots": ["city", "pickup_date", "pickup_time"],
                "optional_slots": {"dropoff_date": "dontcare"},
                "result_slots": ["city", "pickup_date", "pickup_time", "total_price"],
            },
            {
                "name": "RentCar",
                "description": "rent a car",
                "is_transactional": True,
                "required_slots": ["city", "pickup_date", "pickup_time"],
                "optional_slots": {"dropoff_date": "tomorrow", "number_of_cars": "1"},
                "result_slots": ["city", "pickup_date", "pickup_time", "total_price"],
            },
        ],
    }
)


class DatedBackend:
    def reference_date(self, service: str) -> date | None:
        return date(2019, 3, 1)


def policy(backend: object) -> RulesPolicy:
    return RulesPolicy(ComponentContext(schemas=Schemas([SCHEMA]), backend=backend))  # type: ignore[arg-type]


async def decide(
    rules: RulesPolicy, state: State, acts: list[object], history: list[Turn] | None = None
) -> SystemPlan:
    context = TurnContext(rules.schemas, history or [], {SERVICE: state})
    turn = PolicyInput(context, {SERVICE: acts}, SERVICE)  # type: ignore[dict-item]
    return await rules.decide(turn)


SAID = {"city": ["Philadelphia"], "pickup_date": ["next Friday"], "pickup_time": ["14:30"]}


async def test_a_search_carries_the_backend_form_of_what_was_said() -> None:
    state = State(active_intent="FindCars", slot_values=SAID | {"dropoff_date": ["March 10th"]})
    plan = await decide(policy(DatedBackend()), state, [a("INFORM", "pickup_date", "next Friday")])
    assert plan.service_call is not None
    assert plan.service_call.parameters == {
        "city": "Philadelphia",
        "pickup_date": "2019-03-08",
        "pickup_time": "14:30",
        "dropoff_date": "2019-03-10",
    }
    assert state.slot_values["pickup_date"] == ["next Friday"]  # the state is left as said


async def test_an_act_s_canonical_value_is_normalised_too() -> None:
    state = State(active_intent="FindCars", slot_values=SAID | {"pickup_time": ["half past 6"]})
    acts = [a("INFORM", "pickup_time", "half past 6", canonical=("half past 6 in the evening",))]
    plan = await decide(policy(DatedBackend()), state, acts)
    assert plan.service_call is not None
    assert plan.service_call.parameters["pickup_time"] == "18:30"


async def test_confirmations_and_defaults_reach_the_call_in_the_backend_form() -> None:
    rules = policy(DatedBackend())
    state = State(active_intent="RentCar", slot_values=SAID | {"number_of_cars": ["two"]})
    said = [user(a("INFORM", "number_of_cars", "two", canonical=("two",)), service=SERVICE)]
    confirm = await decide(rules, state, [a("INFORM", "pickup_time", "14:30")], said)
    shown = {x.slot: (x.values, x.canonical_values) for x in confirm.actions}
    assert shown["pickup_date"] == (["next Friday"], ["2019-03-08"])  # said as said
    assert shown["dropoff_date"] == (["tomorrow"], ["2019-03-02"])  # a default, dated
    assert shown["number_of_cars"] == (["two"], ["2"])
    history = [*said, system(*confirm.actions, service=SERVICE)]
    plan = await decide(rules, state, [a("AFFIRM")], history)
    assert plan.service_call is not None
    assert plan.service_call.parameters == {
        "city": "Philadelphia",
        "pickup_date": "2019-03-08",
        "pickup_time": "14:30",
        "number_of_cars": "2",
        "dropoff_date": "2019-03-02",
    }


async def test_a_backend_without_a_date_of_its_own_reads_against_the_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TOD_TODAY", "2024-05-15")  # a Wednesday
    state = State(active_intent="FindCars", slot_values=SAID)
    plan = await decide(policy(object()), state, [a("INFORM", "pickup_date", "next Friday")])
    assert plan.service_call is not None
    assert plan.service_call.parameters["pickup_date"] == "2024-05-17"


async def test_an_unreadable_value_passes_through() -> None:
    state = State(active_intent="FindCars", slot_values=SAID | {"pickup_date": ["whenever"]})
    plan = await decide(policy(DatedBackend()), state, [a("INFORM", "pickup_date", "whenever")])
    assert plan.service_call is not None
    assert plan.service_call.parameters["pickup_date"] == "whenever"
