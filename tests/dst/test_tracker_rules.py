"""The rules tracker's table of named rules (``dst.rules.RULES``): one test per rule, each
giving the rule a turn where it applies and one where it does not."""

from __future__ import annotations

import pytest
from stage_helpers import SERVICE, a, schemas, system, user

from tod_runtime.dialogue.history import History
from tod_runtime.dialogue.models import Action, ServiceCall, State, Turn
from tod_runtime.dst.rules import RULES, Rule, Update

SCHEMA = schemas()[SERVICE]


def rule(name: str) -> Rule:
    return next(r for r in RULES if r.name == name)


def update(
    user: list[Action], sys: list[Action], state: State | None = None, turns: list[Turn] = ()
) -> Update:
    frame = state or State(active_intent="FindCafes")
    history = History([*turns, system(*sys)] if sys else list(turns))
    return Update.of(frame, user, history, SERVICE, SCHEMA)


def run(name: str, u: Update) -> bool:
    applies = rule(name).applies(u)
    if applies:
        rule(name).apply(u)
    return applies


def test_the_rules_are_named_once_and_in_order() -> None:
    names = [r.name for r in RULES]
    assert len(set(names)) == len(names)
    assert names[0] == "closing ends the task" and names[-1] == "the values said"


def test_closing_ends_the_task() -> None:
    u = update([a("THANK_YOU")], [a("REQ_MORE")])
    assert run("closing ends the task", u) and u.frame.active_intent == "NONE"
    assert not run("closing ends the task", update([a("THANK_YOU")], [a("INFORM", "city", "X")]))


def test_an_offered_intent_taken_up() -> None:
    u = update([a("AFFIRM_INTENT")], [a("OFFER_INTENT", "intent", "ReserveCafe")])
    assert run("an offered intent taken up", u) and u.frame.active_intent == "ReserveCafe"
    assert not run("an offered intent taken up", update([a("AFFIRM")], [a("OFFER_INTENT")]))


def test_a_slot_asked_for_leaves() -> None:
    state = State(active_intent="FindCafes", slot_values={"city": ["Paris"]})
    u = update([a("INFORM", "time", "5pm")], [a("REQUEST", "city")], state)
    assert run("a slot asked for leaves", u) and "city" not in u.frame.slot_values
    state = State(active_intent="FindCafes", slot_values={"city": ["Paris"]})
    u = update([], [a("INFORM_COUNT", "count", "0"), a("REQUEST", "city")], state)
    assert not run("a slot asked for leaves", u)  # found nothing: which one to change?
    assert u.frame.slot_values == {"city": ["Paris"]}


def test_the_intent_and_requests_said() -> None:
    u = update([a("INFORM_INTENT", "intent", "ReserveCafe"), a("REQUEST", "phone")], [])
    assert run("the intent and requests said", u)
    assert u.frame.active_intent == "ReserveCafe" and u.frame.requested_slots == ["phone"]


def test_a_confirmation_affirmed() -> None:
    state = State(active_intent="ReserveCafe")
    sys = [a("CONFIRM", "time", "17:00")]
    u = update([a("AFFIRM")], sys, state)
    assert run("a confirmation affirmed", u)
    assert u.frame.slot_values["time"] == ["17:00"] and u.frame.slot_values["party_size"] == ["2"]
    assert not run("a confirmation affirmed", update([a("NEGATE")], sys))


def test_confirmed_required_values_stay() -> None:
    state = State(active_intent="ReserveCafe")
    sys = [a("CONFIRM", "time", "17:00"), a("CONFIRM", "party_size", "2")]
    u = update([a("NEGATE"), a("INFORM", "party_size", "3")], sys, state)
    assert run("confirmed required values stay", u)
    assert u.frame.slot_values == {"time": ["17:00"]}  # the optional one is not taken
    assert not run("confirmed required values stay", update([a("AFFIRM")], sys, state))


def test_a_proposed_value_affirmed() -> None:
    u = update([a("AFFIRM")], [a("REQUEST", "city", "Paris")])
    assert run("a proposed value affirmed", u) and u.frame.slot_values["city"] == ["Paris"]
    u = update([a("AFFIRM")], [a("REQUEST", "city", "Paris", "Rome")])
    assert run("a proposed value affirmed", u) and "city" not in u.frame.slot_values


def test_an_offer_affirmed() -> None:
    state = State(active_intent="ReserveCafe")
    u = update([a("AFFIRM")], [a("NOTIFY_FAILURE"), a("OFFER", "time", "18:00")], state)
    assert run("an offer affirmed", u) and u.frame.slot_values["time"] == ["18:00"]
    assert not run("an offer affirmed", update([a("NEGATE")], [a("OFFER", "time", "18:00")]))


@pytest.mark.parametrize(("kind", "taken"), [("SELECT", True), ("REQUEST_ALTS", False)])
def test_the_offer_taken(kind: str, taken: bool) -> None:
    offer = [a("OFFER", "cafe_name", "Bean"), a("OFFER", "city", "Paris")]
    u = update([a(kind)], offer)
    assert run("the offer taken", u) is taken
    assert (u.frame.slot_values.get("cafe_name") == ["Bean"]) is taken


def test_the_offer_taken_keeps_a_value_the_user_chose_after_it() -> None:
    # "the 18:00 one" said after the 17:00 slot was offered, then "2 of us": the choice stays
    rows = [{"cafe_name": "Bean", "time": "17:00"}, {"cafe_name": "Bean", "time": "18:00"}]
    offered = [a("OFFER", "cafe_name", "Bean"), a("OFFER", "time", "17:00")]
    call = ServiceCall(method="FindCafes", parameters={"city": "Paris"})
    offer = system(*offered, call=call, results=rows)
    asked = system(a("REQUEST", "party_size"))

    def taken(said: str, canonical: str) -> list[str]:
        chose = user(a("INFORM_INTENT", "intent", "ReserveCafe"))
        chose.frames[0].actions.append(a("INFORM", "time", said, canonical=(canonical,)))
        state = State(active_intent="ReserveCafe", slot_values={"time": [said]})
        u = update([a("SELECT"), a("INFORM", "party_size", "2")], [], state, [offer, chose, asked])
        assert run("the offer taken", u) and u.frame.slot_values["cafe_name"] == ["Bean"]
        return u.frame.slot_values["time"]

    assert taken("6 pm", "18:00") == ["6 pm"]  # another result's: a choice
    assert taken("6 pm", "6 pm") == ["6 pm"]  # read as the clock time it names
    assert taken("noon", "12:00") == ["17:00"]  # no result's: the offer is taken


def test_the_values_said() -> None:
    u = update([a("INFORM", "city", "Paris"), a("INFORM", "phone")], [])
    assert run("the values said", u) and u.frame.slot_values == {"city": ["Paris"]}
