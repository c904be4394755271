"""The judge's checks (``simulate.judge.CHECKS``), one test each: a transcript the check
decides, and its outcome."""

from __future__ import annotations

from test_judge import FIND, ROW, dialogue, same, system

from tod_runtime.dialogue.models import Dialogue, act
from tod_runtime.simulate.base import Task
from tod_runtime.simulate.judge import CHECKS, SUCCESS, Evidence, _system_frames

BOOK = Task(
    service="Restaurants",
    intent="ReserveRestaurant",
    transactional=True,
    search="FindRestaurants",
    search_constraints={"city": "Austin"},
    constraints={"time": "18:30"},
)
OFFER = [act("OFFER", "restaurant_name", ["Y"])]


def deciding(d: Dialogue, task: Task) -> tuple[str, str]:
    """The check that decides the task, and its outcome."""
    e = Evidence(task, same, _system_frames(d, task.service))
    for check in CHECKS:
        if check.applies(e) and (outcome := check.decide(e)) is not None:
            return check.name, outcome
    raise AssertionError("undecided")


def test_the_checks_are_named_once_and_the_last_always_decides() -> None:
    names = [c.name for c in CHECKS]
    assert len(set(names)) == len(names) and names[-1] == "the requested slots told"


def test_the_intent_was_called() -> None:
    assert deciding(dialogue(system(OFFER)), FIND) == (
        "the intent was called", "no call of FindRestaurants"
    )  # fmt: skip


def test_the_search_carried_its_constraints() -> None:
    d = dialogue(
        system(OFFER, {"city": "Boston"}, results=[ROW]),
        system([], {"time": "18:30"}, method="ReserveRestaurant", results=[ROW]),
    )
    assert deciding(d, BOOK) == (
        "the search carried its constraints", "call FindRestaurants: city='Boston', goal 'Austin'"
    )  # fmt: skip


def test_the_call_carried_the_goal() -> None:
    d = dialogue(system(OFFER, {"city": "Boston"}, results=[ROW]))
    assert deciding(d, FIND)[0] == "the call carried the goal"


def test_an_unachievable_goal_refused() -> None:
    task = FIND.model_copy(update={"achievable": False})
    said = dialogue(system([act("NOTIFY_FAILURE")], {"city": "Austin"}))
    assert deciding(said, task) == ("an unachievable goal refused", SUCCESS)
    unsaid = dialogue(system([act("REQ_MORE")], {"city": "Austin"}))
    assert deciding(unsaid, task)[1] == "the call found nothing and the system did not say so"


def test_the_call_found_entities() -> None:
    d = dialogue(system(OFFER, {"city": "Austin"}))
    assert deciding(d, FIND) == ("the call found entities", "call FindRestaurants returned nothing")


def test_the_booking_succeeded() -> None:
    search = system(OFFER, {"city": "Austin"}, results=[ROW])
    booked = system([act("NOTIFY_SUCCESS")], {"time": "18:30"}, "ReserveRestaurant", [ROW])
    assert deciding(dialogue(search, booked), BOOK) == ("the requested slots told", SUCCESS)
    refused = system([act("REQ_MORE")], {"time": "18:30"}, "ReserveRestaurant", [ROW])
    assert deciding(dialogue(search, refused), BOOK) == (
        "the booking succeeded", "no NOTIFY_SUCCESS after a successful transaction"
    )  # fmt: skip


def test_an_offered_entity_meets_the_goal() -> None:
    d = dialogue(system([act("INFORM_COUNT", "count", ["1"])], {"city": "Austin"}, results=[ROW]))
    assert deciding(d, FIND) == (
        "an offered entity meets the goal", "the search found entities but none was offered"
    )  # fmt: skip


def test_the_requested_slots_told() -> None:
    d = dialogue(system(OFFER, {"city": "Austin"}, results=[ROW]))
    assert deciding(d, FIND) == (
        "the requested slots told",
        "requested slot not told: phone_number",
    )
