"""Task success judged from a transcript and the goal."""

from __future__ import annotations

from tod_runtime.dialogue.models import Action, Dialogue, Frame, ServiceCall, Turn, act
from tod_runtime.simulate.base import Goal, Task
from tod_runtime.simulate.judge import judge

S = "Restaurants"


def same(service: str, slot: str, a: str, b: str) -> bool:
    return a.lower() == b.lower()


def system(
    actions: list[Action],
    call: dict[str, str] | None = None,
    method: str = "FindRestaurants",
    results: list[dict[str, str]] | None = None,
) -> Turn:
    frame = Frame(service=S, actions=actions)
    if call is not None:
        frame.service_call = ServiceCall(method=method, parameters=call)
        frame.service_results = results or []
    return Turn(speaker="SYSTEM", utterance="", frames=[frame])


def dialogue(*turns: Turn) -> Dialogue:
    user = Turn(
        speaker="USER",
        utterance="",
        frames=[Frame(service=S, actions=[act("INFORM_INTENT", "intent", ["FindRestaurants"])])],
    )
    return Dialogue(dialogue_id="d", services=[S], turns=[user, *turns])


FIND = Task(
    service=S, intent="FindRestaurants", constraints={"city": "Austin"}, requests=["phone_number"]
)
ROW = {"restaurant_name": "Y", "city": "Austin", "phone_number": "555"}


def test_a_search_that_found_and_told_everything_succeeds() -> None:
    d = dialogue(
        system([act("OFFER", "restaurant_name", ["Y"])], {"city": "Austin"}, results=[ROW]),
        system([act("INFORM", "phone_number", ["555"])]),
    )
    verdict = judge(d, Goal(tasks=[FIND]), same)
    assert verdict.success and verdict.tasks[0].told == 1


def test_each_unmet_condition_is_the_reason() -> None:
    offer = [act("OFFER", "restaurant_name", ["Y"])]
    cases = {
        "no call of FindRestaurants": dialogue(system(offer)),
        "call FindRestaurants: city='Boston', goal 'Austin'": dialogue(
            system(offer, {"city": "Boston"}, results=[ROW])
        ),
        "requested slot not told: phone_number": dialogue(
            system(offer, {"city": "Austin"}, results=[ROW])
        ),
        "the search found entities but none was offered": dialogue(
            system([act("REQ_MORE")], {"city": "Austin"}, results=[ROW])
        ),
        "turn limit: call FindRestaurants returned nothing": dialogue(
            system([act("NOTIFY_FAILURE")], {"city": "Austin"})
        ),
    }
    for reason, d in cases.items():
        ended = "turn limit" if reason.startswith("turn limit") else ""
        verdict = judge(d, Goal(tasks=[FIND]), same, ended)
        assert not verdict.success and verdict.reason == reason


def test_a_goal_that_cannot_be_met_succeeds_when_the_system_says_so() -> None:
    task = FIND.model_copy(update={"achievable": False, "requests": []})
    said = dialogue(system([act("NOTIFY_FAILURE")], {"city": "Austin"}))
    silent = dialogue(system([act("REQ_MORE")], {"city": "Austin"}))
    assert judge(said, Goal(tasks=[task]), same).success
    assert judge(silent, Goal(tasks=[task]), same).reason.startswith("the call found nothing")


def test_a_booking_needs_notify_success_with_the_goal_values() -> None:
    task = Task(
        service=S,
        intent="ReserveRestaurant",
        transactional=True,
        search="FindRestaurants",
        search_constraints={"city": "Austin"},
        constraints={"time": "18:30"},
    )
    search = system([act("OFFER", "restaurant_name", ["Y"])], {"city": "Austin"}, results=[ROW])
    booked = system(
        [act("NOTIFY_SUCCESS")],
        {"restaurant_name": "Y", "city": "Austin", "time": "18:30"},
        "ReserveRestaurant",
        [ROW],
    )
    wrong = system(
        [act("NOTIFY_SUCCESS")],
        {"restaurant_name": "Y", "city": "Austin", "time": "19:00"},
        "ReserveRestaurant",
        [ROW],
    )
    ok = judge(dialogue(search, booked), Goal(tasks=[task]), same)
    assert ok.success and ok.tasks[0].booked is True
    bad = judge(dialogue(search, wrong), Goal(tasks=[task]), same)
    assert not bad.success and bad.tasks[0].booked is False


def test_misreadings_name_what_the_nlu_got_wrong() -> None:
    from tod_runtime.simulate.understood import misreadings

    meant = {
        S: [
            act("INFORM_INTENT", "intent", ["FindRestaurants"]),
            act("INFORM", "city", ["Austin"]),
            act("INFORM", "cuisine", ["Thai"]),
        ]
    }
    read = {
        S: [act("INFORM_INTENT", "intent", ["FindRestaurants"]), act("INFORM", "city", ["Boston"])]
    }
    assert misreadings(meant, read, same) == ["wrong value city", "missed value cuisine"]
    assert misreadings(meant, meant, same) == []
    assert misreadings(meant, {"Hotels": []}, same) == ["wrong service"]
    assert misreadings(meant, {}, same) == ["nothing read"]
    extra = {S: [*meant[S], act("INFORM", "restaurant_name", ["the place"]), act("GOODBYE")]}
    assert misreadings(meant, extra, same) == ["extra value restaurant_name", "extra GOODBYE"]
    bye = {S: [act("THANK_YOU"), act("GOODBYE")]}
    assert misreadings(bye, bye, same) == []


def test_a_constraint_the_call_left_out_is_met_by_what_was_found_or_booked() -> None:
    """The found or booked entity meets the goal: a constraint the search's call left out
    counts when the offered entity has it, or when the booking carries it; else not."""
    wifi = FIND.model_copy(update={"constraints": {"city": "Austin", "wifi": "True"}})
    row = ROW | {"wifi": "True"}
    offer = [act("OFFER", "restaurant_name", ["Y"]), act("INFORM", "phone_number", ["555"])]
    has = dialogue(system(offer, {"city": "Austin"}, results=[row]))
    assert judge(has, Goal(tasks=[wifi]), same).success
    lacks = dialogue(system(offer, {"city": "Austin"}, results=[ROW | {"wifi": "False"}]))
    verdict = judge(lacks, Goal(tasks=[wifi]), same)
    assert not verdict.success and verdict.reason == "call FindRestaurants: wifi=None, goal 'True'"
    task = Task(
        service=S,
        intent="ReserveRestaurant",
        transactional=True,
        search="FindRestaurants",
        search_constraints={"city": "Austin", "seating": "outdoor"},
        constraints={"time": "18:30"},
    )
    search = system([act("OFFER", "restaurant_name", ["Y"])], {"city": "Austin"}, results=[ROW])
    params = {"restaurant_name": "Y", "city": "Austin", "time": "18:30"}
    booked = system(
        [act("NOTIFY_SUCCESS")], params | {"seating": "outdoor"}, "ReserveRestaurant", [ROW]
    )
    assert judge(dialogue(search, booked), Goal(tasks=[task]), same).success
    unsaid = system([act("NOTIFY_SUCCESS")], params, "ReserveRestaurant", [ROW])
    verdict = judge(dialogue(search, unsaid), Goal(tasks=[task]), same)
    assert verdict.reason == "call FindRestaurants: seating=None, goal 'outdoor'"
