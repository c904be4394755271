"""Goals sampled from the schema and the backend's data (the embedded services)."""

from __future__ import annotations

import random

import pytest

from tod_runtime.backends.mock import MockBackend
from tod_runtime.config import embedded_services_dir
from tod_runtime.dialogue.models import ServiceCall
from tod_runtime.simulate.goals import GoalOptions, GoalSampler, plans


@pytest.fixture
async def backend():  # type: ignore[no-untyped-def]
    opened = MockBackend(embedded_services_dir())
    yield opened
    await opened.close()


async def test_plans_follow_the_schema_structure(backend: MockBackend) -> None:
    schema = backend.schemas()["Restaurants"]
    found = {
        (p.search.name if p.search else None, p.transaction.name if p.transaction else None)
        for p in plans(schema)
    }
    # the reservation books what the search finds: the search returns the name it requires
    assert found == {("FindRestaurants", None), ("FindRestaurants", "ReserveRestaurant")}


async def test_goals_are_what_the_backend_says(backend: MockBackend) -> None:
    sampler = GoalSampler(backend.schemas(), backend, GoalOptions(fail_rate=0.3))
    outcomes = set()
    for seed in range(60):
        goal = await sampler.sample(random.Random(seed))
        for task in goal.tasks:
            search = task.search or (None if task.transactional else task.intent)
            if search is not None:
                wanted = task.search_constraints if task.search else task.constraints
                rows = await backend.call(
                    task.service, ServiceCall(method=search, parameters=wanted)
                )
                if task.transactional:
                    assert rows, "a booking goal starts from a search that finds something"
                else:
                    assert bool(rows) == task.achievable
            outcomes.add(task.achievable)
            assert set(task.requests).isdisjoint(task.constraints)
    assert outcomes == {True, False}  # some goals cannot be met, on purpose


async def test_sampling_is_reproducible(backend: MockBackend) -> None:
    one = GoalSampler(backend.schemas(), backend)
    two = GoalSampler(backend.schemas(), backend)
    for seed in range(10):
        assert await one.sample(random.Random(seed)) == await two.sample(random.Random(seed))


async def test_a_second_task_shares_a_value_with_the_first(backend: MockBackend) -> None:
    sampler = GoalSampler(backend.schemas(), backend, GoalOptions(multi_rate=1.0, carry_rate=1.0))
    linked = 0
    for seed in range(30):
        goal = await sampler.sample(random.Random(seed))
        if len(goal.tasks) < 2:
            continue
        first, second = goal.tasks
        assert first.service != second.service
        said_first = {v.lower() for v in (first.search_constraints | first.constraints).values()}
        said_second = second.search_constraints | second.constraints
        for slot in second.carried:  # left unsaid: carry-over must bring it
            assert said_second[slot].lower() in said_first
            linked += 1
    assert linked > 0


async def test_a_boolean_is_wanted_true_or_left_unsaid(backend: MockBackend) -> None:
    """As SGD's users: every user INFORM of a boolean in SGD train is True."""
    sampler = GoalSampler(backend.schemas(), backend, GoalOptions(fail_rate=0.3, change_rate=0.5))
    booleans = 0
    for seed in range(80):
        goal = await sampler.sample(random.Random(seed))
        for task in goal.tasks:
            schema = backend.schemas()[task.service]
            said = task.search_constraints | task.constraints | task.change
            for slot, value in said.items():
                if set(schema.slot_map[slot].possible_values) == {"True", "False"}:
                    booleans += 1
                    assert value == "True", (task.service, slot)
    assert booleans


async def test_requests_follow_the_rates_sgd_users_ask_at(backend: MockBackend) -> None:
    """A slot's role (not its name) sets how often it is asked about: what a transaction
    books is never asked (the system offers it), an address often, a count seldom."""
    from tod_runtime.simulate.rates import request_rate

    hotels = backend.schemas()["Hotels"]
    assert request_rate(hotels, "hotel_name") < 0.001
    assert request_rate(hotels, "street_address") > 0.3 > 0.1 > request_rate(hotels, "star_rating")
    sampler = GoalSampler(backend.schemas(), backend)
    asked = [s for seed in range(80) for t in (await sampler.sample(random.Random(seed))).tasks
             for s in t.requests]  # fmt: skip
    assert asked and not {"hotel_name", "restaurant_name", "movie_name"} & set(asked)


async def test_a_booking_is_probed_as_the_policy_calls_it(backend: MockBackend) -> None:
    """Whether a goal can be met is asked with the values the policy books with: the
    entity's for the required slots, the schema's default for an optional one the user does
    not set (not the entity's: a hotel found with 2 rooms is booked for 1 unless said)."""
    sampler = GoalSampler(backend.schemas(), backend)
    seen: list[dict[str, str]] = []

    async def call(service: str, call: ServiceCall) -> list[dict[str, str]]:
        seen.append(dict(call.parameters))
        return [{}]

    sampler.backend = type("Recording", (), {"call": staticmethod(call)})()  # type: ignore[assignment]
    txn = backend.schemas()["Hotels"].intent_map["BookHotel"]
    entity = {"hotel_name": "Inn", "city": "Austin", "number_of_rooms": "2", "rating": "4"}
    values = {"check_in_date": "2019-03-04", "number_of_nights": "2"}
    assert await sampler.book("Hotels", txn, entity, {"city": "Austin"}, values)
    assert seen == [{"hotel_name": "Inn", "city": "Austin", **values, "number_of_rooms": "1"}]
