"""History: the one reader of what was said, answering from indexes kept on append."""

from __future__ import annotations

from stage_helpers import SERVICE, a, system, user

from tod_runtime.dialogue.history import History
from tod_runtime.dialogue.models import Frame, ServiceCall, State, Turn, act
from tod_runtime.policy.history import entity_on_offer

OTHER = "Buses_1"


def searched(*actions: object, results: list[dict[str, str]], method: str = "FindCafes") -> Turn:
    frame = Frame(
        service=SERVICE,
        actions=list(actions),  # type: ignore[arg-type]
        service_call=ServiceCall(method=method, parameters={"city": "Oslo"}),
        service_results=results,
    )
    return Turn(speaker="SYSTEM", utterance="...", frames=[frame])


TURNS = [
    user(a("INFORM_INTENT", "intent", "FindCafes")),
    system(a("REQUEST", "city")),
    user(a("INFORM", "city", "oslo", canonical=("Oslo",))),
    searched(
        a("OFFER", "cafe_name", "Bean There"),
        a("INFORM_COUNT", "count", "2"),
        results=[{"cafe_name": "Bean There"}, {"cafe_name": "Grind"}],
    ),  # fmt: skip
    user(a("REQUEST_ALTS")),
    system(a("OFFER", "cafe_name", "Grind"), a("INFORM", "address", "1 Main St")),
    user(a("SELECT")),
    system(a("CONFIRM", "time", "5 pm", canonical=("17:00",)), a("CONFIRM", "time", "6 pm")),
    user(a("AFFIRM")),
    searched(
        a("NOTIFY_SUCCESS"), results=[{"cafe_name": "Grind", "time": "17:00"}], method="ReserveCafe"
    ),  # fmt: skip
    user(a("INFORM_INTENT", "intent", "FindBus"), service=OTHER),
    system(a("REQUEST", "to_city"), service=OTHER),
]


def test_it_is_the_sequence_of_turns() -> None:
    history = History(TURNS)
    assert len(history) == len(TURNS) and list(history) == TURNS
    assert history[-1] is TURNS[-1] and list(reversed(history))[0] is TURNS[-1]


def test_the_last_system_turn_and_its_acts_per_service() -> None:
    history = History(TURNS)
    assert history.last_system_turn is TURNS[-1]
    assert history.last_system_acts(OTHER) == [a("REQUEST", "to_city")]
    assert history.last_system_acts(SERVICE) == []  # the system last spoke of another service
    assert History(TURNS[:4]).last_system_acts(SERVICE)[0] == a("OFFER", "cafe_name", "Bean There")
    assert History().last_system_turn is None and History().last_system_acts(SERVICE) == []


def test_offers_confirmations_and_requests() -> None:
    history = History(TURNS)
    assert history.current_offer(SERVICE) == [a("OFFER", "cafe_name", "Grind")]
    assert history.confirmed(SERVICE, "time") == ["5 pm"]  # the first of a turn's acts
    assert history.confirmed(SERVICE, "date") == []
    assert history.asked(SERVICE, "city") and history.asked(OTHER, "to_city")
    assert not history.asked(SERVICE, "time")


def test_the_slots_offered_of_a_search_method() -> None:
    assert History(TURNS[:3]).offered(SERVICE, "FindCafes") is None  # nothing offered yet
    assert History(TURNS).offered(SERVICE, "FindCafes") == {"cafe_name"}
    assert History(TURNS).offered(SERVICE, "ReserveCafe") is None
    assert History(TURNS).offered(OTHER, "FindCafes") is None


def test_the_last_search_counts_offers_since() -> None:
    frame, shown = History(TURNS[:4]).last_search(SERVICE)
    assert frame is not None and shown == 1
    frame, shown = History(TURNS[:6]).last_search(SERVICE)
    assert frame is not None and frame.service_results == [
        {"cafe_name": "Bean There"},
        {"cafe_name": "Grind"},
    ] and shown == 2  # fmt: skip
    assert History(TURNS[:3]).last_search(SERVICE) == (None, 0)


def test_the_result_on_offer_is_the_one_the_offer_names() -> None:
    """A search made again (another, with one more constraint) whose first result was offered
    before: the first result not offered yet is the one to offer, and once offered it is the
    one on offer (the place after it is the next to offer)."""
    results = [{"cafe_name": "Bean There"}, {"cafe_name": "Grind"}, {"cafe_name": "Brew"}]
    history = History(TURNS[:5])
    assert history.first_unoffered(SERVICE, results) == 1  # Bean There was offered
    assert history.first_unoffered(OTHER, results) == 0
    again = searched(a("OFFER", "cafe_name", "Grind"), results=results)
    frame, shown = History([*TURNS[:5], again]).last_search(SERVICE)
    assert frame is again.frames[0] and shown == 2
    history = History([*TURNS[:5], again, user(a("REQUEST_ALTS"))])
    assert history.first_unoffered(SERVICE, results) == 2
    everything = History([*TURNS[:6], system(a("OFFER", "cafe_name", "Brew"))])
    assert everything.first_unoffered(SERVICE, results) == 0  # all offered: the first again


def test_an_offer_made_again_names_the_same_result_not_a_later_one_alike() -> None:
    """Two results with the same name (SGD's data holds such): the offer made again ("What
    about Grind?" after "i dont care" changed nothing) still names the first, whose details
    the user was told."""
    results = [{"cafe_name": "Grind", "price": "4"}, {"cafe_name": "Grind", "price": "7"}]
    offer = a("OFFER", "cafe_name", "Grind")
    history = History([*TURNS[:3], searched(offer, results=results)])
    assert history.on_offer(SERVICE) == [0]
    again = History([*history, user(a("INFORM", "city", "Oslo")), system(offer)])
    assert again.on_offer(SERVICE) == [0] and again.last_search(SERVICE)[1] == 1
    nothing = State(active_intent="FindCafes")
    assert entity_on_offer(again, SERVICE, nothing) == results[0]


def test_an_offer_that_lists_several_results_names_each() -> None:
    """ "Bean There, Grind or Brew?" (one OFFER with three values, as SGD's film services
    offer): each is on offer, the one the user then takes is the entity, the next to offer
    comes after the last listed, and a search made again offers one not listed."""
    results = [{"cafe_name": n} for n in ("Bean There", "Grind", "Brew", "Roast", "Drip")]
    listing = a("OFFER", "cafe_name", "Bean There", "Grind", "Brew")
    history = History([*TURNS[:3], searched(listing, results=results)])
    assert history.on_offer(SERVICE) == [0, 1, 2]
    assert history.last_search(SERVICE)[1] == 3
    assert history.first_unoffered(SERVICE, results) == 3
    nothing = State(active_intent="FindCafes", slot_values={"city": ["Oslo"]})
    took = State(active_intent="FindCafes", slot_values={"cafe_name": ["grind"]})
    assert entity_on_offer(history, SERVICE, nothing) == results[0]
    assert entity_on_offer(history, SERVICE, took) == results[1]
    more = History([*history, user(a("REQUEST_ALTS")), system(a("OFFER", "cafe_name", "Roast"))])
    assert more.on_offer(SERVICE) == [3] and more.last_search(SERVICE)[1] == 4
    assert entity_on_offer(more, SERVICE, took) == results[3]  # the newest offer's
    assert entity_on_offer(History(TURNS[:3]), SERVICE, nothing) is None


def test_the_result_the_users_time_picks_is_on_offer() -> None:
    """ "the 5pm one" with the 2 pm show on offer: the 5 pm show is the one asked about
    ("which theater is that at?"); an hour without am or pm may be either."""
    results = [
        {"cafe_name": "Bean There", "time": "14:00"},
        {"cafe_name": "Grind", "time": "17:00"},
    ]
    history = History(
        [*TURNS[:3], searched(a("OFFER", "cafe_name", "Bean There"), results=results)]
    )
    picked = State(active_intent="FindCafes", slot_values={"time": ["5pm"]})
    assert entity_on_offer(history, SERVICE, picked) == results[1]
    bare = State(active_intent="FindCafes", slot_values={"time": ["2"]})
    assert entity_on_offer(history, SERVICE, bare) == results[0]
    unread = State(active_intent="FindCafes", slot_values={"time": ["after lunch"]})
    assert entity_on_offer(history, SERVICE, unread) == results[0]


def test_the_last_success_of_a_method() -> None:
    history = History(TURNS)
    assert history.last_success(SERVICE, "ReserveCafe") == (
        {"city": "Oslo"},
        {"cafe_name": "Grind", "time": "17:00"},
    )
    assert history.last_success(SERVICE, "BuyCoffee") is None
    failed = searched(a("NOTIFY_FAILURE"), results=[], method="ReserveCafe")
    assert History([*TURNS, failed]).last_success(SERVICE, "ReserveCafe") is None


def test_what_the_system_told_last_of_some_slots() -> None:
    history = History(TURNS)
    assert history.last_told(SERVICE, lambda slot: slot == "address") == ["1 Main St"]
    assert history.last_told(SERVICE, lambda slot: slot in ("address", "cafe_name")) == ["Grind"]
    assert history.last_told(OTHER, lambda slot: True) == []


def test_canonical_forms_newest_act_first_then_any_slot() -> None:
    history = History(TURNS)
    assert history.canonical(["oslo"], "city") == "Oslo"
    assert history.canonical(["5 pm"], "time") == "17:00"
    assert history.canonical(["5 pm"], "start_time") is None
    assert history.canonical(["5 pm"], None) == "17:00"
    newer = user(act("INFORM", "city", ["oslo"], ["OSLO"]))
    assert History([*TURNS, newer]).canonical(["oslo"], "city") == "OSLO"


def test_grown_turn_by_turn_it_answers_as_built_at_once() -> None:
    grown = History()
    for index, turn in enumerate(TURNS):
        grown.append(turn)
        whole = History(TURNS[: index + 1])
        for service in (SERVICE, OTHER):
            assert grown.last_system_acts(service) == whole.last_system_acts(service)
            assert grown.current_offer(service) == whole.current_offer(service)
            assert grown.last_search(service) == whole.last_search(service)
            assert grown.last_told(service, lambda s: True) == whole.last_told(
                service, lambda s: True
            )
        assert grown.canonical(["oslo", "5 pm"], None) == whole.canonical(["oslo", "5 pm"], None)
