"""The agenda user's answers to each kind of system turn."""

from __future__ import annotations

import random

from tod_runtime.backends.mock import MockBackend
from tod_runtime.config import embedded_services_dir
from tod_runtime.dialogue.models import act
from tod_runtime.simulate.agenda import AgendaUser
from tod_runtime.simulate.base import Goal, SystemTurnView, Task
from tod_runtime.simulate.simulator import ValueMatcher

BOOKING = Task(
    service="Restaurants",
    intent="ReserveRestaurant",
    transactional=True,
    search="FindRestaurants",
    search_constraints={"city": "Austin", "cuisine": "Italian"},
    constraints={"time": "18:30"},
    requests=["phone_number"],
)


def user(*tasks: Task) -> AgendaUser:
    backend = MockBackend(embedded_services_dir())
    schemas = backend.schemas()
    return AgendaUser(
        Goal(tasks=list(tasks)), schemas, random.Random(1), ValueMatcher(schemas, backend)
    )


def turn(*actions: object) -> SystemTurnView:
    return SystemTurnView(service="Restaurants", actions=list(actions))  # type: ignore[arg-type]


def kinds(reply: dict[str, list[object]]) -> list[str]:
    return [a.act for acts in reply.values() for a in acts]  # type: ignore[attr-defined]


def test_a_booking_played_through() -> None:
    u = user(BOOKING)
    opening = u.respond(None)["Restaurants"]
    assert opening[0].act == "INFORM_INTENT" and opening[0].values == ["FindRestaurants"]
    reply = u.respond(turn(act("REQUEST", "city")))["Restaurants"]
    assert [(a.act, a.slot, a.values) for a in reply][:1] == [("INFORM", "city", ["Austin"])]
    # an entity in the wrong city is turned down
    assert kinds(
        u.respond(turn(act("OFFER", "restaurant_name", ["X"]), act("OFFER", "city", ["Boston"])))
    ) == ["REQUEST_ALTS"]
    # a fitting one: the user asks what it wants to know first
    reply = u.respond(
        turn(act("OFFER", "restaurant_name", ["Y"]), act("OFFER", "city", ["Austin"]))
    )
    assert [(a.act, a.slot) for a in reply["Restaurants"]] == [("REQUEST", "phone_number")]
    reply = u.respond(turn(act("INFORM", "phone_number", ["555"])))["Restaurants"]
    assert reply[0].act == "INFORM_INTENT" and reply[0].values == ["ReserveRestaurant"]
    # a confirmation with the wrong time is corrected, in the backend's form or not
    reply = u.respond(turn(act("CONFIRM", "time", ["7 pm"], ["19:00"])))["Restaurants"]
    assert [(a.act, a.slot, a.values) for a in reply] == [
        ("NEGATE", "", []),
        ("INFORM", "time", ["18:30"]),
    ]
    assert kinds(u.respond(turn(act("CONFIRM", "time", ["half past 6 pm"], ["18:30"])))) == [
        "AFFIRM"
    ]
    closing = kinds(u.respond(turn(act("NOTIFY_SUCCESS"))))
    assert closing in (["THANK_YOU", "GOODBYE"], ["THANK_YOU"])  # as SGD's users after one
    assert u.respond(turn(act("GOODBYE"))) == {}


def test_a_changed_mind_is_said_first_and_corrected_at_confirmation() -> None:
    task = BOOKING.model_copy(update={"change": {"time": "20:00"}})
    u = user(task)
    u.respond(None)
    u.progress.phase = "book"
    said = u.respond(turn(act("REQUEST", "time")))["Restaurants"]
    assert said[0].values == ["20:00"]
    reply = u.respond(turn(act("CONFIRM", "time", ["20:00"])))["Restaurants"]
    assert [(a.act, a.values) for a in reply] == [("NEGATE", []), ("INFORM", ["18:30"])]


def test_a_slot_the_goal_does_not_constrain_is_dontcare() -> None:
    u = user(BOOKING)
    u.respond(None)
    reply = u.respond(turn(act("REQUEST", "price_range")))["Restaurants"]
    assert (reply[0].slot, reply[0].values) == ("price_range", ["dontcare"])


def test_the_user_gives_up_when_the_system_repeats_itself() -> None:
    u = user(BOOKING)
    u.respond(None)
    replies = [u.respond(turn(act("REQ_MORE"))) for _ in range(5)]
    assert replies[-1] == {} and u.ended.startswith("user gave up")


def test_a_failed_search_moves_on_to_the_next_task() -> None:
    second = Task(service="Hotels", intent="SearchHotel", constraints={"city": "Austin"})
    u = user(BOOKING.model_copy(update={"achievable": False}), second)
    u.respond(None)
    reply = u.respond(turn(act("NOTIFY_FAILURE")))
    assert list(reply) == ["Hotels"] and reply["Hotels"][0].values == ["SearchHotel"]


def test_the_user_closes_as_sgd_users_do_after_what_the_system_said() -> None:
    """ "No, thanks" answers "anything else?", never a bare offer (no SGD train user NEGATE
    follows one): an entity that does the job is taken (SELECT), an offered intent declined."""
    search = Task(service="Restaurants", intent="FindRestaurants", constraints={"city": "Austin"})
    u = user(search)
    u.respond(None)
    closing = kinds(
        u.respond(turn(act("OFFER", "restaurant_name", ["Y"]), act("OFFER", "city", ["Austin"])))
    )
    assert closing[0] == "SELECT" and "NEGATE" not in closing
    if "GOODBYE" not in closing:
        offered = kinds(u.respond(turn(act("OFFER_INTENT", "intent", ["ReserveRestaurant"]))))
        assert offered[0] == "NEGATE_INTENT"
        assert kinds(u.respond(turn(act("REQ_MORE")))) == ["NEGATE", "THANK_YOU"]
    assert u.respond(turn(act("GOODBYE"))) == {}


def test_a_transaction_wanted_alone_is_asked_for_again_when_entities_are_offered() -> None:
    """Wanting to set an alarm, and shown the alarms there are: not what was asked for."""
    booking = Task(
        service="Restaurants",
        intent="ReserveRestaurant",
        transactional=True,
        constraints={"restaurant_name": "Grind", "time": "18:30"},
    )
    u = user(booking)
    u.respond(None)
    reply = u.respond(turn(act("OFFER", "restaurant_name", ["Bean"])))["Restaurants"]
    assert reply[0].act == "INFORM_INTENT" and reply[0].values == ["ReserveRestaurant"]
    assert not u.finished and u.task is booking


def test_nothing_found_for_a_goal_that_cannot_be_met_moves_on() -> None:
    """The system found nothing and asks for another value: the user, whose goal foresaw
    that, moves on (as after NOTIFY_FAILURE) rather than saying the same value again."""
    second = Task(service="Hotels", intent="SearchHotel", constraints={"city": "Austin"})
    search = Task(
        service="Restaurants",
        intent="FindRestaurants",
        constraints={"city": "Austin", "cuisine": "Thai"},
        achievable=False,
    )
    u = user(search, second)
    u.respond(None)
    reply = u.respond(turn(act("INFORM_COUNT", "count", ["0"]), act("REQUEST", "cuisine")))
    assert list(reply) == ["Hotels"]
    again = user(search.model_copy(update={"achievable": True}))
    again.respond(None)
    said = again.respond(turn(act("INFORM_COUNT", "count", ["0"]), act("REQUEST", "cuisine")))
    assert [(a.slot, a.values) for a in said["Restaurants"]][:1] == [("cuisine", ["Thai"])]


def test_a_task_called_off_is_started_over() -> None:
    u = user(BOOKING)
    u.respond(None)
    u.respond(turn(act("REQUEST", "city")))
    u.restart_task()
    reply = u.respond(turn(act("NOTIFY_SUCCESS"), act("REQ_MORE")))["Restaurants"]
    assert reply[0].act == "INFORM_INTENT" and reply[0].values == ["FindRestaurants"]
    assert u.progress.said <= {"city", "cuisine"}  # a fresh start: only what it says again


def test_a_wrong_value_is_taken_back_before_the_confirmation() -> None:
    changed = Task(**{**BOOKING.__dict__, "change": {"city": "Boston"}})
    u = user(changed)
    assert u.change_of_mind() is None  # nothing said yet
    u.respond(None)
    u.respond(turn(act("REQUEST", "city")))  # says Boston, on purpose
    taken = u.change_of_mind(take=True)
    assert taken is not None and (taken.slot, taken.values) == ("city", ["Austin"])
    assert u.change_of_mind() is None  # once
    reply = u.respond(turn(act("CONFIRM", "city", ["Austin"])))["Restaurants"]
    assert kinds({"Restaurants": reply}) == ["AFFIRM"]
