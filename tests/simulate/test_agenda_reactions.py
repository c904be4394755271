"""The agenda user's reactions (``simulate.agenda.REACTIONS``), one test each: a system turn
the reaction answers, and what it answers."""

from __future__ import annotations

from test_agenda_user import BOOKING, turn, user

from tod_runtime.dialogue.context import UserActs
from tod_runtime.dialogue.models import act
from tod_runtime.simulate.agenda import REACTIONS, AgendaUser, Reading
from tod_runtime.simulate.base import SystemTurnView, Task

ALONE = Task(
    service="Restaurants",
    intent="ReserveRestaurant",
    transactional=True,
    constraints={"restaurant_name": "Y", "city": "Austin", "time": "18:30"},
)


def answering(u: AgendaUser, system: SystemTurnView) -> tuple[str, UserActs]:
    """Which reaction answers ``system``, and its answer (as ``react`` runs them)."""
    assert u.task is not None
    reading = Reading(u.task, list(system.actions), system.service)
    for reaction in REACTIONS:
        if reaction.applies(u, reading):
            answer = reaction.apply(u, reading)
            if answer is not None:
                return reaction.name, answer
    return "restate", u.restate(u.task)


def acts(reply: UserActs) -> list[tuple[str, str]]:
    return [(a.act, a.slot) for actions in reply.values() for a in actions]


def opened(task: Task = BOOKING) -> AgendaUser:
    u = user(task)
    u.respond(None)
    return u


def test_the_reactions_are_named_once() -> None:
    names = [r.name for r in REACTIONS]
    assert len(set(names)) == len(names)


def test_another_services_turn() -> None:
    u = opened()
    other = SystemTurnView(service="Hotels", actions=[act("REQUEST", "where_to")])
    name, reply = answering(u, other)
    assert name == "another service's turn" and acts(reply)[0] == ("INFORM_INTENT", "intent")


def test_what_the_system_told_is_noted_and_passes() -> None:
    u = opened()
    name, _ = answering(u, turn(act("INFORM", "phone_number", ["555"])))
    assert name != "what the system told noted" and u.progress.known == {"phone_number": "555"}


def test_a_confirmation_checked() -> None:
    u = opened()
    name, reply = answering(u, turn(act("CONFIRM", "time", ["18:30"])))
    assert name == "a confirmation checked" and acts(reply) == [("AFFIRM", "")]


def test_a_notice_ends_the_task() -> None:
    u = opened()
    name, _ = answering(u, turn(act("NOTIFY_SUCCESS")))
    assert name == "a notice ends the task" and u.index == 1


def test_nothing_found_as_foreseen() -> None:
    u = opened(BOOKING.model_copy(update={"achievable": False}))
    name, _ = answering(u, turn(act("INFORM_COUNT", "count", ["0"])))
    assert name == "nothing found, as foreseen" and u.index == 1


def test_entities_offered_for_a_lone_transaction() -> None:
    u = opened(ALONE)
    name, reply = answering(u, turn(act("OFFER", "restaurant_name", ["Z"])))
    assert name == "entities offered for a lone transaction"
    assert acts(reply)[0] == ("INFORM_INTENT", "intent")


def test_an_offer_considered() -> None:
    u = opened()
    u.progress.said |= {"city", "cuisine"}
    offer = turn(act("OFFER", "restaurant_name", ["X"]), act("OFFER", "city", ["Boston"]))
    name, reply = answering(u, offer)
    assert name == "an offer considered" and acts(reply) == [("REQUEST_ALTS", "")]
    assert u.progress.rejected == 1


def test_an_intent_offered() -> None:
    u = opened()
    u.progress.known["phone_number"] = "555"
    name, reply = answering(u, turn(act("OFFER_INTENT", "intent", ["ReserveRestaurant"])))
    assert name == "an intent offered" and acts(reply)[0] == ("AFFIRM_INTENT", "")
    u = opened()
    name, reply = answering(u, turn(act("OFFER_INTENT", "intent", ["Other"])))
    assert acts(reply)[0] == ("NEGATE_INTENT", "")  # said before what answers next


def test_requests_answered() -> None:
    u = opened()
    name, reply = answering(u, turn(act("REQUEST", "city")))
    assert name == "requests answered" and ("INFORM", "city") in acts(reply)


def test_the_entity_chosen() -> None:
    u = opened()
    u.progress.phase = "chosen"
    name, reply = answering(u, turn(act("REQ_MORE")))
    assert name == "the entity chosen" and acts(reply) == [("REQUEST", "phone_number")]


def test_more_wanted_after_the_task() -> None:
    u = opened()
    u.progress.phase = "done"
    name, _ = answering(u, turn(act("REQ_MORE")))
    assert name == "more wanted after the task" and u.index == 1


def test_acts_said_so_far() -> None:
    u = opened()
    u.progress.phase = "book"
    name, reply = answering(u, turn(act("OFFER_INTENT", "intent", ["Other"])))
    assert name == "acts said so far" and acts(reply) == [("NEGATE_INTENT", "")]
