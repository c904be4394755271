"""Each conversation pattern on its own, through the default pipeline on the embedded
services (tod_runtime/patterns): each test fails with that pattern switched off."""

from __future__ import annotations

import pytest

from tod_runtime import Runtime
from tod_runtime.config import Config, embedded_services_dir
from tod_runtime.dialogue.context import TurnContext
from tod_runtime.dialogue.models import Action, Frame, ServiceCall, State, Turn, act
from tod_runtime.dialogue.steps import TurnResult
from tod_runtime.errors import ConfigError
from tod_runtime.patterns import NAMES, Patterns, PatternTurn
from tod_runtime.patterns.units import FollowSearch, OutOfScope, PickResult
from tod_runtime.schema.loader import Schemas, load_schema_file
from tod_runtime.schema.models import ServiceSchema


def _embedded() -> Schemas:
    """The schemas of the embedded services."""
    paths = sorted(embedded_services_dir().glob("*/schema.json"))
    return Schemas(s for p in paths for s in load_schema_file(p))


async def _talk(lines: list[str], off: tuple[str, ...] = ()) -> list[TurnResult]:
    async with Runtime(Config(patterns_off=list(off))) as runtime:
        return [await runtime.handle("s", line) for line in lines]


def _acts(result: TurnResult) -> set[str]:
    return {a.act for a in result.actions}


@pytest.fixture(autouse=True)
def _today(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOD_TODAY", "2026-11-28")


async def test_repeat_says_the_last_turn_again() -> None:
    first, again = await _talk(["find me a chinese restaurant in san francisco", "sorry?"])
    assert again.utterance == first.utterance
    off = await _talk(["find me a chinese restaurant in san francisco", "sorry?"], ("repeat",))
    assert off[1].utterance != off[0].utterance


async def test_greeting_starts_no_task_and_offers_at_most_three_things() -> None:
    (hello,) = await _talk(["hi there"])
    assert hello.actions[0].act == "GREETING" and len(hello.actions[0].values) <= 3
    assert not hello.state or all(s.active_intent == "NONE" for s in hello.state.values())


async def test_cancel_drops_the_booking_and_says_so() -> None:
    lines = ["italian food in boston", "book it for 2 today at 7pm", "never mind"]
    *_, cancelled = await _talk(lines)
    assert _acts(cancelled) == {"CANCEL", "REQ_MORE"}
    assert cancelled.utterance.startswith("Okay, I have cancelled that.")
    state = cancelled.state["Restaurants"]
    assert state.active_intent == "FindRestaurants"  # back to the search it followed
    assert "number_of_seats" not in state.slot_values
    *_, kept = await _talk(lines, ("cancel",))
    assert "CANCEL" not in _acts(kept)


async def test_cancel_then_another_value_searches_again() -> None:
    lines = ["italian food in boston", "book it for 2 today at 7pm", "cancel that", "thai instead"]
    *_, again = await _talk(lines)
    assert again.service_call is not None and again.service_call.method == "FindRestaurants"


def test_cancel_leaves_a_task_asked_for_in_the_same_breath_as_the_turns_service() -> None:
    """ "forget the hotel, ill sort it out later. italian food in boston": the restaurants are
    what the turn is about; no later hotel is offered ("later" of the task called off)."""
    schemas = _embedded()
    searched = _offered(
        "Hotels",
        "SearchHotel",
        {"city": "Oslo"},
        [{"hotel_name": "Hilton", "city": "Oslo"}],
        act("OFFER", "hotel_name", ["Hilton"]),
    )
    state = {"Hotels": State(active_intent="SearchHotel", slot_values={"city": ["Oslo"]})}
    acts = {"Restaurants": [act("INFORM_INTENT", "intent", ["FindRestaurants"])]}
    text = "forget the hotel, ill sort it out later. i need italian food in oslo"
    turn = PatternTurn(text, TurnContext(schemas, [searched], state), acts, state)
    after = Patterns().apply(turn)
    assert "cancel" in after.applied and "refine" not in after.applied
    assert after.service == "Restaurants" and after.state["Hotels"].active_intent == "NONE"


async def test_skip_gives_dontcare_to_the_slot_asked() -> None:
    *_, skipped = await _talk(["find me a restaurant in boston", "i dont care"])
    assert skipped.state["Restaurants"].slot_values.get("cuisine") == ["dontcare"]
    *_, off = await _talk(["find me a restaurant in boston", "i dont care"], ("skip",))
    assert "cuisine" not in off.state["Restaurants"].slot_values


async def test_another_offers_the_next_result() -> None:
    lines = ["american food in chicago please", "meh, something else?"]
    first, other = await _talk(lines)
    offered = [a.values for a in first.actions if a.act == "OFFER"]
    assert "REQUEST_ALTS" in {a.act for a in other.user_acts.get("Restaurants", [])}
    assert [a.values for a in other.actions if a.act == "OFFER"] != offered


async def test_another_knows_someone_else() -> None:
    for said in ("hmm show me someone else", "anyone else?", "somewhere else maybe"):
        first, other = await _talk(["american food in chicago please", said])
        offered = [a.values for a in first.actions if a.act == "OFFER"]
        assert [a.values for a in other.actions if a.act == "OFFER"] != offered, said


async def test_a_question_at_confirmation_is_no_yes() -> None:
    lines = ["italian food in boston", "book it for 2 today at 7pm", "ok. what is the address?"]
    *_, asked = await _talk(lines)
    assert asked.service_call is None  # nothing booked
    assert "CONFIRM" in _acts(asked)


async def test_next_task_after_a_booking_starts_a_search() -> None:
    lines = [
        "book grand star resort in portland, checking in tomorrow for 2 nights",
        "yes",
        "then a 4 star hotel in Seattle",
    ]
    *_, after = await _talk(lines)
    state = after.state["Hotels"]
    assert state.active_intent == "SearchHotel" and "hotel_name" not in state.slot_values


def test_out_of_scope_names_at_most_three_things_the_likeliest_first() -> None:
    schemas = _embedded()
    turn = PatternTurn("can i see a film tonight", TurnContext(schemas, [], {}), {}, {})
    assert OutOfScope().applies(turn)
    answer = OutOfScope().apply(turn).answer
    assert answer is not None and answer[0].act == "FALLBACK"
    assert 0 < len(answer[0].values) <= 3 and "movie" in answer[0].values[0].lower()
    said = PatternTurn("cheap food", turn.context, {"Restaurants": [act("REQUEST_ALTS")]}, {})
    assert not OutOfScope().applies(said)  # something was understood


def test_out_of_scope_with_a_result_on_offer_offers_the_step_it_leads_to() -> None:
    """ "ok i want to go see it" after a question about the offered hotel was answered: the
    booking is offered again ("Would you like to book a hotel?"), not three other services,
    so the next turn ("whats the price on it again?") is still read in the hotel's frame."""
    schemas = _embedded()
    searched = _offered(
        "Hotels",
        "SearchHotel",
        {"city": "Oslo"},
        [{"hotel_name": "Hilton", "city": "Oslo"}],
        act("OFFER", "hotel_name", ["Hilton"]),
    )
    told = Turn(
        speaker="SYSTEM",
        utterance="...",
        frames=[Frame(service="Hotels", actions=[act("INFORM", "city", ["Oslo"])])],
    )
    state = {"Hotels": State(active_intent="SearchHotel", slot_values={"city": ["Oslo"]})}
    context = TurnContext(schemas, [searched, told], state)
    turn = PatternTurn("ok i want to go see it", context, {}, state)
    assert OutOfScope().applies(turn)
    answer = OutOfScope().apply(turn).answer
    assert [(x.act, x.values) for x in answer or ()] == [
        ("FALLBACK", []),
        ("OFFER_INTENT", ["BookHotel"]),
    ]


def test_patterns_are_switched_off_by_name_and_unknown_names_refused() -> None:
    assert [p.name for p in Patterns.without(["cancel"]).units] == [
        n for n in NAMES if n != "cancel"
    ]
    with pytest.raises(ConfigError):
        Patterns.without(["cancle"])


async def test_refine_offers_a_cheaper_result_or_says_there_is_none() -> None:
    lines = ["find me a hotel in san francisco", "anything cheaper?"]
    first, cheaper = await _talk(lines)
    assert cheaper.service_call is None and "OFFER" in _acts(cheaper)
    price = [a.values[0] for a in cheaper.actions if a.slot == "price_per_night"]
    assert price and cheaper.actions != first.actions
    *_, off = await _talk(lines, ("refine",))
    assert not [a for a in off.actions if a.slot == "price_per_night" and a.act == "OFFER"]


async def test_refine_steps_an_ordered_categorical_slot() -> None:
    lines = ["find me a moderately priced italian restaurant in san francisco", "something cheaper"]
    *_, cheaper = await _talk(lines)
    assert cheaper.state["Restaurants"].slot_values.get("price_range") == ["cheap"]


async def test_refine_compares_the_results_by_an_ordered_categorical_slot() -> None:
    """No price range was searched for: of the results, one pricier than the one on offer
    (Red Dragon, moderate) is offered, and the state still names no price range."""
    *_, pricier = await _talk(["chinese food in new york", "anything fancier?"])
    offered = {v for a in pricier.actions if a.slot == "restaurant_name" for v in a.values}
    assert offered and offered <= {"Silver Table", "Happy Oak"}
    assert "price_range" not in pricier.state["Restaurants"].slot_values
    *_, none = await _talk(["chinese food in new york", "anything cheaper?"])
    assert "Red Dragon" in {v for a in none.actions for v in a.values}  # the offer stands


async def test_a_yes_with_a_question_still_confirms() -> None:
    lines = [
        "italian food in boston",
        "book it for 2 today at 7pm",
        "yes please. whats the address?",
    ]
    *_, booked = await _talk(lines)
    assert booked.service_call is not None and booked.service_call.method == "ReserveRestaurant"


async def test_thanks_to_a_confirmation_is_a_yes() -> None:
    lines = ["italian food in boston", "book it for 2 today at 7pm", "thanks!"]
    *_, booked = await _talk(lines)
    assert booked.service_call is not None and booked.service_call.method == "ReserveRestaurant"
    *_, dropped = await _talk(lines, off=("thanks_to_confirm",))
    assert dropped.service_call is None  # without the unit the booking was silently dropped
    *_, declined = await _talk([*lines[:2], "no thanks"])
    assert declined.service_call is None


async def test_acknowledge_is_no_misunderstanding() -> None:
    lines = ["italian food in boston", "whats the address", "okay great"]
    *_, ack = await _talk(lines)
    assert "FALLBACK" not in _acts(ack)
    *_, off = await _talk(lines, ("acknowledge",))
    assert "FALLBACK" in _acts(off)


FLIGHTS = {
    "service_name": "Flights",
    "description": "Find and book flights",
    "slots": [
        {"name": n, "description": n.replace("_", " "), "is_categorical": False, "possible_values": []}
        for n in ("origin", "destination", "date", "return_date", "airline", "back_time")
    ],
    "intents": [
        {"name": "SearchRoundtrip", "description": "search round trips", "is_transactional": False,
         "required_slots": ["origin", "destination", "date", "return_date"], "optional_slots": {},
         "result_slots": ["origin", "destination", "date", "return_date", "airline", "back_time"]},
        {"name": "ReserveOneway", "description": "book a one-way flight", "is_transactional": True,
         "required_slots": ["origin", "destination", "date", "airline"], "optional_slots": {},
         "result_slots": []},
        {"name": "ReserveRoundtrip", "description": "book a round trip", "is_transactional": True,
         "required_slots": ["origin", "destination", "date", "return_date", "airline", "back_time"],
         "optional_slots": {}, "result_slots": []},
    ],
}  # fmt: skip


def _offered(
    service: str, method: str, params: dict[str, str], rows: list[dict[str, str]], *offer: Action
) -> Turn:
    """A system turn that searched ``service`` with ``method`` and offered from its rows."""
    call = ServiceCall(method=method, parameters=params)
    frame = Frame(service=service, actions=list(offer), service_call=call, service_results=rows)
    return Turn(speaker="SYSTEM", utterance="...", frames=[frame])


def test_follow_search_books_what_the_search_found() -> None:
    schema = ServiceSchema.model_validate(FLIGHTS)
    params = {
        "origin": "SF",
        "destination": "LA",
        "date": "2019-03-04",
        "return_date": "2019-03-10",
    }
    row = {**params, "airline": "Delta", "back_time": "13:05"}
    system = _offered(
        "Flights", "SearchRoundtrip", params, [row], act("OFFER", "airline", ["Delta"])
    )
    values = {k: [v] for k, v in params.items()} | {"airline": ["Delta"]}
    state = {"Flights": State(active_intent="ReserveOneway", slot_values=values)}
    acts = {"Flights": [act("INFORM_INTENT", "intent", ["ReserveOneway"])]}
    context = TurnContext(Schemas([schema]), [system], state)
    turn = PatternTurn("great, book that one", context, acts, state)
    assert FollowSearch().applies(turn)
    after = FollowSearch().apply(turn)
    assert after.acts["Flights"][0].values == ["ReserveRoundtrip"]
    assert after.state["Flights"].active_intent == "ReserveRoundtrip"
    assert after.state["Flights"].slot_values["back_time"] == ["13:05"]  # from the offer


def test_a_one_way_search_is_followed_by_the_one_way_booking() -> None:
    """ "ok book that, 2 people" after a one-way search, read as the round trip's booking:
    the one-way booking, which needs no return date, is meant."""
    schema = ServiceSchema.model_validate(FLIGHTS)
    params = {"origin": "SF", "destination": "LA", "date": "2019-03-04"}
    row = {**params, "airline": "Delta"}
    system = _offered(
        "Flights", "SearchRoundtrip", params, [row], act("OFFER", "airline", ["Delta"])
    )
    assert schema.transaction_after(params).name == "ReserveOneway"
    state = {"Flights": State(active_intent="ReserveRoundtrip")}
    acts = {"Flights": [act("INFORM_INTENT", "intent", ["ReserveRoundtrip"])]}
    context = TurnContext(Schemas([schema]), [system], state)
    after = FollowSearch().apply(PatternTurn("ok book that", context, acts, state))
    assert after.state["Flights"].active_intent == "ReserveOneway"


def test_follow_search_takes_nothing_from_an_offer_the_user_named_another_for() -> None:
    """ "ok book the KLM one" after Delta was offered and no result is KLM's: the booking
    takes no detail of Delta's flight."""
    schema = ServiceSchema.model_validate(FLIGHTS)
    params = {
        "origin": "SF",
        "destination": "LA",
        "date": "2019-03-04",
        "return_date": "2019-03-10",
    }
    row = {**params, "airline": "Delta", "back_time": "13:05"}
    system = _offered(
        "Flights", "SearchRoundtrip", params, [row], act("OFFER", "airline", ["Delta"])
    )
    state = {"Flights": State(active_intent="ReserveOneway")}
    said = [act("INFORM_INTENT", "intent", ["ReserveRoundtrip"]), act("INFORM", "airline", ["KLM"])]
    context = TurnContext(Schemas([schema]), [system], state)
    after = FollowSearch().apply(
        PatternTurn("ok book the KLM one", context, {"Flights": said}, state)
    )
    assert "back_time" not in after.state["Flights"].slot_values
    said[1] = act("INFORM", "airline", ["delta"])
    after = FollowSearch().apply(
        PatternTurn("ok book the delta one", context, {"Flights": said}, state)
    )
    assert after.state["Flights"].slot_values["back_time"] == ["13:05"]


async def test_take_offer_opens_the_booking_the_search_leads_to() -> None:
    lines = ["american food in chicago please", "whats the address", "ok get that one"]
    *_, taken = await _talk(lines)
    assert taken.state["Restaurants"].active_intent == "ReserveRestaurant"
    *_, off = await _talk(lines, ("take_offer",))
    assert off.state["Restaurants"].active_intent != "ReserveRestaurant"


HOTELS = {
    "service_name": "Stays",
    "description": "Find and book hotels",
    "slots": [
        {"name": n, "description": n.replace("_", " "), "is_categorical": False, "possible_values": []}
        for n in ("city", "hotel", "rooms", "nights", "stars")
    ],
    "intents": [
        {"name": "FindHotel", "description": "find a hotel", "is_transactional": False,
         "required_slots": ["city"], "optional_slots": {"rooms": "1", "stars": "dontcare"},
         "result_slots": ["city", "hotel", "rooms", "stars"]},
        {"name": "BookHotel", "description": "book a hotel", "is_transactional": True,
         "required_slots": ["city", "hotel", "nights"], "optional_slots": {"rooms": "1"},
         "result_slots": []},
    ],
}  # fmt: skip


def test_a_count_for_the_booking_picks_no_result() -> None:
    """ "just 1 night, 1 room" opening the booking with a hotel on offer: the booking takes
    the hotel on offer, not the one whose recorded rooms are 1."""
    schema = ServiceSchema.model_validate(HOTELS)
    rows = [
        {"city": "Chicago", "hotel": "Ac Hotel", "rooms": "3", "stars": "3"},
        {"city": "Chicago", "hotel": "Ace Hotel", "rooms": "1", "stars": "3"},
    ]
    system = _offered(
        "Stays", "FindHotel", {"city": "Chicago"}, rows, act("OFFER", "hotel", ["Ac Hotel"])
    )
    said = [
        act("INFORM_INTENT", "intent", ["BookHotel"]),
        act("INFORM", "nights", ["1"]),
        act("INFORM", "rooms", ["1"]),
    ]
    values = {"city": ["Chicago"], "nights": ["1"], "rooms": ["1"]}
    state = {"Stays": State(active_intent="BookHotel", slot_values=values)}
    context = TurnContext(Schemas([schema]), [system], state)
    turn = Patterns().apply(PatternTurn("just 1 night, 1 room", context, {"Stays": said}, state))
    assert turn.state["Stays"].slot_values["hotel"] == ["Ac Hotel"]


def test_cheaper_offers_another_hotel_not_the_same_at_another_price() -> None:
    """Results holding one hotel twice (two stays' prices): "anything cheaper?" offers the
    cheapest other hotel."""
    priced = dict(HOTELS)
    priced["slots"] = [
        *HOTELS["slots"],
        {"name": "price", "description": "Total price of the stay", "is_categorical": False,
         "possible_values": []},
        {"name": "hotel_name", "description": "Name of the hotel", "is_categorical": False,
         "possible_values": []},
    ]  # fmt: skip
    schema = ServiceSchema.model_validate(priced)
    rows = [
        {"city": "Seattle", "hotel_name": "Ace", "price": "2856"},
        {"city": "Seattle", "hotel_name": "Belltown", "price": "416"},
        {"city": "Seattle", "hotel_name": "Ace", "price": "44"},
    ]
    system = _offered(
        "Stays", "FindHotel", {"city": "Seattle"}, rows, act("OFFER", "hotel_name", ["Ace"])
    )
    state = {"Stays": State(active_intent="FindHotel", slot_values={"city": ["Seattle"]})}
    context = TurnContext(Schemas([schema]), [system], state)
    turn = Patterns().apply(PatternTurn("anything cheaper?", context, {}, state))
    assert turn.answer is not None
    assert act("OFFER", "hotel_name", ["Belltown"]) in turn.answer


def _coaches(*extra: tuple[str, str], book: bool = False) -> ServiceSchema:
    """Coaches found by city, with their departure times (and ``extra`` slots, name and
    description); with ``book``, a booking of one."""
    slots = (("city", "City"), *extra, ("leaving_time", "Departure time of the coach"))
    names = [n for n, _ in slots]
    intents = [
        {
            "name": "FindCoach",
            "description": "find a coach",
            "is_transactional": False,
            "required_slots": ["city"],
            "optional_slots": {},
            "result_slots": names,
        }
    ]
    if book:
        intents.append(
            {
                "name": "BookCoach",
                "description": "book a coach",
                "is_transactional": True,
                "required_slots": ["city", "leaving_time"],
                "optional_slots": {},
                "result_slots": names,
            }
        )
    return ServiceSchema.model_validate({
        "service_name": "Coaches",
        "description": "Find and book coaches" if book else "Find coaches",
        "slots": [{"name": n, "description": d, "is_categorical": False, "possible_values": []}
                  for n, d in slots],
        "intents": intents,
    })  # fmt: skip


def _coaches_from_la(rows: list[dict[str, str]], *offer: Action) -> Turn:
    """The system turn that searched the coaches from LA and offered from ``rows``."""
    return _offered("Coaches", "FindCoach", {"city": "LA"}, rows, *offer)


def test_a_later_one_is_the_next_from_the_same_place() -> None:
    """Buses that all leave from one station: "a later one?" offers the next departure from
    it, where "another hotel, not the same at another price" would have left nothing."""
    schema = _coaches(("station_name", "Name of the departure station"))
    rows = [
        {"city": "LA", "station_name": "Union Station", "leaving_time": t}
        for t in ("06:20", "09:40", "08:20")
    ]
    on_offer = (
        act("OFFER", "station_name", ["Union Station"]),
        act("OFFER", "leaving_time", ["06:20"]),
    )
    system = _coaches_from_la(rows, *on_offer)
    state = {"Coaches": State(active_intent="FindCoach", slot_values={"city": ["LA"]})}
    context = TurnContext(Schemas([schema]), [system], state)
    turn = Patterns().apply(PatternTurn("a later one maybe?", context, {}, state))
    assert turn.answer is not None
    assert act("OFFER", "leaving_time", ["08:20"]) in turn.answer


def test_a_part_of_the_day_offers_the_first_result_in_it() -> None:
    """ "got one leaving in the afternoon?" while the 6:20 bus is offered: the first one in
    the afternoon; none there: said, and the offer stands."""
    schemas = Schemas([_coaches()])
    rows = [{"city": "LA", "leaving_time": t} for t in ("06:20", "13:40", "12:30", "18:00")]
    on_offer = act("OFFER", "leaving_time", ["06:20"])
    state = {"Coaches": State(active_intent="FindCoach", slot_values={"city": ["LA"]})}
    context = TurnContext(schemas, [_coaches_from_la(rows, on_offer)], state)
    turn = Patterns().apply(PatternTurn("got one leaving in the afternoon?", context, {}, state))
    assert turn.answer is not None
    assert act("OFFER", "leaving_time", ["12:30"]) in turn.answer
    context = TurnContext(schemas, [_coaches_from_la(rows[:1], on_offer)], state)
    turn = Patterns().apply(PatternTurn("anything in the evening?", context, {}, state))
    assert turn.answer is not None and act("INFORM_COUNT", "count", ["0"]) in turn.answer


def test_an_earlier_one_at_a_confirmation_is_confirmed_in_its_place() -> None:
    """ "hmm pricey. go back to the earlier one then" while the 8:20 coach is confirmed: the
    booking takes the 6:20 one's time and the policy confirms it again."""
    schema = _coaches(book=True)
    rows = [{"city": "LA", "leaving_time": t} for t in ("06:20", "08:20", "09:40")]
    searched = _coaches_from_la(rows, act("OFFER", "leaving_time", ["06:20"]))
    confirm = [act("CONFIRM", "city", ["LA"]), act("CONFIRM", "leaving_time", ["08:20"])]
    confirming = Turn(
        speaker="SYSTEM", utterance="...", frames=[Frame(service="Coaches", actions=confirm)]
    )
    values = {"city": ["LA"], "leaving_time": ["08:20"]}
    state = {"Coaches": State(active_intent="BookCoach", slot_values=values)}
    context = TurnContext(Schemas([schema]), [searched, confirming], state)
    text = "hmm pricey. go back to the earlier one then"
    turn = Patterns().apply(PatternTurn(text, context, {}, state))
    assert turn.answer is None
    assert turn.acts == {"Coaches": [act("INFORM", "leaving_time", ["06:20"])]}
    assert turn.state["Coaches"].slot_values["leaving_time"] == ["06:20"]


async def test_a_question_at_a_confirmation_a_search_answers_then_the_confirmation() -> None:
    lines = [
        "4 tickets for winter garden in new york on wednesday at 2pm please",
        "which theater is it",
    ]
    *_, asked = await _talk(lines)
    assert asked.service_call is not None and asked.service_call.method == "FindMovies"
    told = [a for a in asked.actions if a.act == "INFORM" and a.slot == "theater_name"]
    assert told and "CONFIRM" in _acts(asked)
    assert "BuyMovieTickets" not in {c.method for c in [asked.service_call]}


async def test_refine_after_a_question_about_the_offer() -> None:
    lines = ["find me a hotel in san francisco", "how much is it?", "anything cheaper?"]
    *_, cheaper = await _talk(lines)
    assert "OFFER" in _acts(cheaper)
    assert [a for a in cheaper.actions if a.slot == "price_per_night"]


async def test_a_question_at_a_confirmation_is_answered_and_the_confirmation_asked_in_brief() -> (
    None
):
    lines = ["italian food in boston", "book it for 2 today at 7pm", "ok. what is the address?"]
    _, confirming, asked = await _talk(lines)
    assert len([a for a in confirming.actions if a.act == "CONFIRM"]) > 1
    again = [a for a in asked.actions if a.act == "CONFIRM"]
    assert [a.slot for a in again] == ["restaurant_name"]
    assert [a for a in asked.actions if a.act == "INFORM" and a.slot == "street_address"]
    *_, booked = await _talk([*lines, "yes"])
    assert booked.service_call is not None and booked.service_call.method == "ReserveRestaurant"
    params = booked.service_call.parameters
    assert params["number_of_seats"] == "2" and params["time"] == "19:00"


async def test_something_not_understood_at_a_confirmation_asks_it_again_in_brief() -> None:
    lines = ["4 tickets for winter garden in new york on wednesday at 2pm please"]
    *_, lost = await _talk([*lines, "is there parking near the theater?"])
    assert "FALLBACK" in _acts(lost) and lost.service_call is None
    assert [a.slot for a in lost.actions if a.act == "CONFIRM"] == ["movie_name"]


SHOWS = {
    "service_name": "Shows",
    "description": "Concerts near you",
    "slots": [
        {"name": n, "description": n, "is_categorical": False, "possible_values": []}
        for n in ("artist", "city", "date", "kind", "seats")
    ],
    "intents": [
        {"name": "FindShows", "description": "find shows", "is_transactional": False,
         "required_slots": ["kind", "city"], "optional_slots": {"date": "dontcare"},
         "result_slots": ["artist", "city", "date"]},
        {"name": "GetDates", "description": "the dates an artist plays", "is_transactional": False,
         "required_slots": ["artist", "city"], "optional_slots": {},
         "result_slots": ["artist", "city", "date"]},
        {"name": "Buy", "description": "buy tickets", "is_transactional": True,
         "required_slots": ["artist", "city", "date", "seats"], "optional_slots": {},
         "result_slots": []},
    ],
}  # fmt: skip


def test_a_value_the_search_returns_picks_among_its_results_and_the_search_stays() -> None:
    schema = ServiceSchema.model_validate(SHOWS)
    params = {"artist": "Lizzo", "city": "San Diego"}
    rows = [{**params, "date": "2019-03-02"}, {**params, "date": "2019-03-09"}]
    system = _offered("Shows", "GetDates", params, rows, act("OFFER", "date", ["2019-03-02"]))
    before = {"Shows": State(active_intent="GetDates", slot_values={"city": ["San Diego"]})}
    read = {"Shows": State(active_intent="FindShows", slot_values={"date": ["the 9th"]})}
    said = [act("INFORM_INTENT", "intent", ["FindShows"]), act("INFORM", "date", ["the 9th"])]
    context = TurnContext(Schemas([schema]), [system], before)
    turn = PatternTurn("is there a show on the 9th?", context, {"Shows": said}, read)
    assert PickResult().applies(turn)
    after = PickResult().apply(turn)
    assert [a.act for a in after.acts["Shows"]] == ["INFORM"]
    assert after.state["Shows"].active_intent == "GetDates"
    booking = {"Shows": [act("INFORM_INTENT", "intent", ["Buy"]), said[1]]}
    assert not PickResult().applies(turn.amended(acts=booking))  # a booking is no pick
    city = {"Shows": [act("INFORM", "city", ["Boston"])]}
    assert not PickResult().applies(turn.amended(acts=city))  # the search takes a city


async def test_clarify_asks_which_task_and_the_answer_keeps_the_values() -> None:
    asked, answered = await _talk(["hey whats on in chicago this afternoon", "a restaurant"])
    assert [a.act for a in asked.actions] == ["CLARIFY"]
    assert asked.utterance.startswith("Do you want to ") and " or " in asked.utterance
    assert asked.state == {}  # nothing started
    state = answered.state["Restaurants"]
    assert state.active_intent == "FindRestaurants" and state.slot_values["city"] == ["Chicago"]
    (guess,) = await _talk(["hey whats on in chicago this afternoon"], off=("clarify",))
    assert "CLARIFY" not in _acts(guess)  # off: the NLU's guess stands


async def test_an_acknowledgement_to_a_question_asked_twice_lets_the_policy_go_on() -> None:
    lines = ["i need a table for 2 in chicago tomorrow at 7pm", "sure", "sure"]
    asked, again, moved = await _talk(lines)
    assert again.utterance == asked.utterance  # asked once more
    assert moved.utterance != asked.utterance  # then the policy looks it up or moves on
    assert [str(a) for a in moved.user_acts.get("Restaurants", [])] == ["AFFIRM()"]


async def test_skip_gives_dontcare_to_the_slot_named_not_the_one_asked() -> None:
    """ "i dont care which X" names its slot; the asked slot stays open."""
    first, skipped = await _talk(["find me a restaurant", "i dont care about the cuisine"])
    assert [x.slot for x in first.actions if x.act == "REQUEST"] == ["city"]
    values = skipped.state["Restaurants"].slot_values
    assert values.get("cuisine") == ["dontcare"] and "city" not in values


async def test_decline_starts_no_booking() -> None:
    lines = ["italian food in boston", "no need to book, we will just walk in"]
    *_, declined = await _talk(lines)
    assert _acts(declined) == {"REQ_MORE"}
    assert declined.state["Restaurants"].active_intent == "FindRestaurants"
    *_, off = await _talk(lines, ("decline",))
    assert _acts(off) != {"REQ_MORE"}


async def test_declining_the_booking_under_way_calls_it_off() -> None:
    """ "hold off, dont book it" at the confirmation: the booking is dropped (back to the
    search), so the next request is not confirmed again."""
    lines = ["italian food in boston", "book it for 2 today at 7pm", "hmm hold off, dont book it"]
    *_, declined = await _talk(lines)
    assert _acts(declined) == {"CANCEL", "REQ_MORE"}
    state = declined.state["Restaurants"]
    assert state.active_intent == "FindRestaurants" and "number_of_seats" not in state.slot_values
    *_, off = await _talk(lines, ("decline",))
    assert off.state["Restaurants"].active_intent == "ReserveRestaurant"


async def test_a_count_the_schema_does_not_allow_is_said_back() -> None:
    """ "for 12" where the party may be 1 to 10 had been dropped and a table for 2
    confirmed; the limit is said and the count asked, then a count in range goes on."""
    lines = ["italian food in new york", "book a table for 12 tomorrow at 7pm", "ok 6 then"]
    _, refused, confirmed = await _talk(lines)
    assert [str(a) for a in refused.actions][-1] == "REQUEST(number_of_seats)"
    assert "at most 10" in refused.utterance
    assert "number_of_seats" not in refused.state["Restaurants"].slot_values
    assert "CONFIRM(number_of_seats=6)" in [str(a) for a in confirmed.actions]
    _, off, _ = await _talk(lines, ("out_of_range",))
    assert "CONFIRM(number_of_seats=2)" in [str(a) for a in off.actions]


async def test_a_count_of_something_else_or_a_time_is_no_party() -> None:
    lines = ["italian food in new york", "book it for tomorrow at 12", "for 4 at 11 please"]
    for result in (await _talk(lines))[1:]:
        assert "at most" not in result.utterance


def test_a_year_is_no_count() -> None:
    """ "is that from nine years ago?" about a song (SGD train's Music_1, year 2010-2019)."""
    from tod_runtime.patterns.counts import _allowed
    from tod_runtime.schema.models import SlotSchema

    year = SlotSchema(name="year", description="Year in which the song was released",
                      is_categorical=True, possible_values=["2010", "2011", "2019"])  # fmt: skip
    seats = year.model_copy(update={"possible_values": ["1", "2", "3"]})
    assert _allowed(year) is None and _allowed(seats) == [1, 2, 3]
