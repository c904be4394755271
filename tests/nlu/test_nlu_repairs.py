"""The learned NLU's repairs, one at a time on a reading, and their switches in config."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from stage_helpers import SERVICE, a, schemas, system, user

from tod_runtime.backends.mock import MockBackend
from tod_runtime.config import embedded_services_dir
from tod_runtime.dialogue.context import TurnContext
from tod_runtime.dialogue.models import Action, Frame, ServiceCall, State, Turn
from tod_runtime.errors import ConfigError
from tod_runtime.nlu.learned import casual as cs
from tod_runtime.nlu.learned import repairs as rp
from tod_runtime.nlu.learned import routing as rt
from tod_runtime.nlu.learned.known import known_unread
from tod_runtime.nlu.learned.nlu import LearnedNLU
from tod_runtime.nlu.learned.reading import Reading
from tod_runtime.nlu.learned.scorer import Intent, view
from tod_runtime.nlu.learned.text import given_name
from tod_runtime.nlu.values import DATE
from tod_runtime.plugins import ComponentContext
from tod_runtime.schema import Schemas, load_schema_file
from tod_runtime.schema.models import ServiceSchema


def embedded(*names: str) -> Schemas:
    root = embedded_services_dir()
    return Schemas(s for n in names for s in load_schema_file(root / n / "schema.json"))


def nlu_of(services: Schemas, *, known: bool = False, **options: Any) -> LearnedNLU:
    """The learned NLU on ``services``; ``known``: knowing the embedded backend's values."""
    backend = MockBackend(embedded_services_dir()) if known else None
    return LearnedNLU(ComponentContext(schemas=services, backend=backend, options=options))  # type: ignore[arg-type]


def knowing(services: Schemas, values: dict[str, list[str]]) -> LearnedNLU:
    """The learned NLU on ``services``, its backend knowing ``values`` for each of them."""

    class Backend:
        async def entity_values(self, service: str) -> dict[str, list[str]]:
            return values

    return LearnedNLU(ComponentContext(schemas=services, backend=Backend()))  # type: ignore[arg-type]


def reading(
    nlu: LearnedNLU,
    text: str,
    predicted: Intent | None,
    intents: dict[str, str],
    history: list[Turn] = (),  # type: ignore[assignment]
    **fields: Any,
) -> Reading:
    """A reading of ``text`` with the frame chosen as ``predicted``."""
    last = history[-1].frames[0] if history else None
    system_acts = tuple(last.actions) if last else ()
    state = {s: State(active_intent=i) for s, i in intents.items()}
    context = TurnContext(nlu.schemas, list(history), state)
    last_service = last.service if last else None
    turn = view(text, last_service, [(x.act, x.slot, x.values) for x in system_acts], intents)
    ranked = tuple(nlu.scorer.rank(turn, nlu.schemas))
    r = Reading(text, context, turn, last_service, system_acts, intents, ranked, predicted)
    return replace(r, **fields)


def texts(acts: tuple[Action, ...]) -> list[str]:
    return [str(x) for x in acts]


async def test_service_by_values_applies_to_a_chosen_frame_only() -> None:
    nlu = nlu_of(embedded("Restaurants", "Hotels"))
    text = "somewhere to stay in Seattle, ideally 5 stars"
    r = reading(nlu, text, None, {})
    assert not rt.ServiceByValues().applies(nlu, r)
    chosen = ("Restaurants", "FindRestaurants")
    ranked = ((1.0, chosen), (0.5, ("Hotels", "SearchHotel")))
    r = replace(r, predicted=chosen, ranked=ranked)
    nlu.thresholds = replace(nlu.thresholds, service_margin=2.0)
    assert (await rt.ServiceByValues().apply(nlu, r)).predicted == ("Hotels", "SearchHotel")


async def test_task_switch_opens_the_task_named_mid_task() -> None:
    nlu = nlu_of(embedded("Restaurants", "Hotels"))
    asked = system(a("REQUEST", "city"), service="Restaurants")
    text = "actually never mind, I need a hotel in seattle instead"
    current = ("Restaurants", "FindRestaurants")
    r = reading(nlu, text, current, {"Restaurants": "FindRestaurants"}, [asked])
    assert rt.TaskSwitch().applies(nlu, r)
    nlu.thresholds = replace(nlu.thresholds, switch_margin=3.0)
    predicted = (await rt.TaskSwitch().apply(nlu, r)).predicted
    assert predicted is not None and predicted[0] == "Hotels"
    nlu.thresholds = replace(nlu.thresholds, switch_margin=float("inf"))
    assert (await rt.TaskSwitch().apply(nlu, r)).predicted == current


async def test_task_switch_leaves_out_the_words_of_a_name_the_user_gives() -> None:
    """ "call it restaurant week" names no detail of the restaurant search: the words of a name
    the user gives do not keep the turn in the task under way, nor rank the tasks."""
    nlu = nlu_of(embedded("Restaurants", "Hotels"))
    asked = system(a("REQUEST", "city"), service="Restaurants")
    current = ("Restaurants", "FindRestaurants")
    nlu.thresholds = replace(nlu.thresholds, switch_margin=3.0)
    for text, switches in [
        ("actually I need a hotel in seattle instead, call it restaurant week", True),
        ("actually I need a hotel in seattle instead, near the restaurant", False),
    ]:
        r = reading(nlu, text, current, {"Restaurants": "FindRestaurants"}, [asked])
        predicted = (await rt.TaskSwitch().apply(nlu, r)).predicted
        assert predicted is not None and (predicted[0] == "Hotels") is switches, text
    words, unnamed = given_name("put it on my calendar, call it skin doctor, at 5")
    assert words == {"skin", "doctor"} and unnamed == "put it on my calendar, call it , at 5"


async def test_task_switch_after_the_task_is_called_off_needs_no_margin() -> None:
    nlu = nlu_of(embedded("Restaurants", "Hotels"))
    asked = system(a("REQUEST", "city"), service="Restaurants")
    current = ("Restaurants", "FindRestaurants")
    nlu.thresholds = replace(nlu.thresholds, switch_margin=1000.0)
    text = "I need a hotel in seattle instead"
    r = reading(nlu, text, current, {"Restaurants": "FindRestaurants"}, [asked])
    assert await rt.switched(nlu, r) is None
    r = reading(
        nlu, f"eh forget the food, {text}", current, {"Restaurants": "FindRestaurants"}, [asked]
    )
    ranked = await rt.switched(nlu, r)
    assert ranked is not None and ranked[0][1] is not None and ranked[0][1][0] == "Hotels"
    # the thing called off names no task to switch to ("actually forget that trip")
    text = "actually forget that hotel, plans changed"
    r = reading(nlu, text, current, {"Restaurants": "FindRestaurants"}, [asked])
    assert await rt.switched(nlu, r) is None


async def test_task_switch_after_an_offer_takes_a_question_naming_a_kind_the_other_lists() -> None:
    """A question while a result is on the table is about it ("what time does the show
    start?"), unless it says a kind only the other service lists ("any mediterranean
    restaurants in seattle?" while a hotel is offered)."""
    nlu = nlu_of(embedded("Restaurants", "Hotels"))
    offered = system(a("OFFER", "hotel_name", "Ace"), service="Hotels")
    current = ("Hotels", "SearchHotel")
    nlu.thresholds = replace(nlu.thresholds, switch_margin=0.0)
    for text, switches in [
        ("any restaurants in seattle?", False),
        ("any mediterranean restaurants in seattle?", True),
    ]:
        r = reading(nlu, text, current, {"Hotels": "SearchHotel"}, [offered])
        ranked = await rt.switched(nlu, r)
        assert (ranked is not None) == switches, text


async def test_stay_on_task_lets_a_kind_only_the_other_service_lists_leave() -> None:
    nlu = nlu_of(embedded("Restaurants", "Hotels"))
    asked = system(a("REQUEST", "city"), service="Hotels")
    rest, hotels = ("Restaurants", "FindRestaurants"), ("Hotels", "SearchHotel")
    nlu.thresholds = replace(nlu.thresholds, service_margin=2.0)
    for text, to in [
        ("hmm, i'm thinking something for dinner there", hotels),
        ("hmm, i'm thinking mediterranean for dinner there", rest),  # a cuisine listed
    ]:
        r = reading(nlu, text, rest, {"Hotels": "SearchHotel"}, [asked])
        r = replace(r, ranked=((1.0, rest), (0.5, hotels)))
        assert rt.StayOnTask().applies(nlu, r)
        assert (await rt.StayOnTask().apply(nlu, r)).predicted == to, text


async def test_intent_by_values_takes_the_intent_the_values_fit() -> None:
    nlu = nlu_of(embedded("Movies"))
    city = (a("INFORM", "city", "Denver"),)
    near = ((0.8, "FindMovies"),)
    r = reading(nlu, "a movie in Denver", ("Movies", "BuyMovieTickets"), {}, near=near, read=city)
    assert (await rt.IntentByValues().apply(nlu, r)).predicted == ("Movies", "FindMovies")


def _bank() -> Schemas:
    """A bank: a balance check of one account type, a transfer of two (the user's and the
    recipient's), both allowing "checking" and "savings"."""

    def intent(name: str, description: str, required: list[str], **optional: str) -> Any:
        return {"name": name, "description": description, "is_transactional": bool(optional),
                "required_slots": required, "optional_slots": optional,
                "result_slots": required}  # fmt: skip

    def kind(name: str, whose: str) -> dict[str, Any]:
        return {"name": name, "description": f"The account type of the {whose}",
                "is_categorical": True, "possible_values": ["checking", "savings"]}  # fmt: skip

    service = {
        "service_name": "Bank",
        "description": "Manage bank accounts and transfer money",
        "slots": [
            kind("account_type", "user"),
            kind("recipient_account_type", "recipient"),
            _slot("amount", "The amount of money to transfer"),
            _slot("recipient_account_name", "The name of the recipient"),
        ],
        "intents": [
            intent("CheckBalance", "Check the amount of money in an account", ["account_type"]),
            intent(
                "TransferMoney",
                "Transfer money to another user's account",
                ["account_type", "amount", "recipient_account_name"],
                recipient_account_type="checking",
            ),
        ],
    }
    return Schemas([ServiceSchema.model_validate(service)])


async def test_intent_by_values_counts_a_value_read_for_two_slots_once() -> None:
    nlu = nlu_of(_bank())
    check, transfer = ("Bank", "CheckBalance"), ("Bank", "TransferMoney")
    text = "can you check my balance of checking account"
    both = (
        a("INFORM", "account_type", "checking"),
        a("INFORM", "recipient_account_type", "checking"),
    )
    r = reading(nlu, text, check, {}, near=((1.0, "TransferMoney"),), read=both)
    assert (await rt.IntentByValues().apply(nlu, r)).predicted == check
    # two values, both the transfer's, one the check's: the transfer
    two = (both[0], a("INFORM", "recipient_account_type", "savings"))
    r = replace(r, read=two)
    assert (await rt.IntentByValues().apply(nlu, r)).predicted == transfer


async def test_ask_or_tell_keeps_either_the_question_or_the_value() -> None:
    nlu = nlu_of(schemas())
    both = {"requested": ("has_wifi",), "read": (a("INFORM", "has_wifi", "True"),)}
    r = reading(nlu, "one with wifi?", (SERVICE, "FindCafes"), {}, **both)
    assert rt.AskOrTell().applies(nlu, r)
    told = await rt.AskOrTell().apply(nlu, r)  # nothing on the table: a value
    assert told.requested == () and told.read == both["read"]
    offered = replace(r, said=(a("OFFER", "cafe_name", "Grind"),))
    asked = await rt.AskOrTell().apply(nlu, offered)  # after an offer: a question
    assert asked.requested == ("has_wifi",) and asked.read == ()


async def test_asked_backstop_finds_the_asked_slots_value() -> None:
    nlu = nlu_of(embedded("Restaurants"))
    asked = [system(a("REQUEST", "time"), service="Restaurants")]
    intent = ("Restaurants", "ReserveRestaurant")
    r = reading(nlu, "make it 7 pm", intent, {"Restaurants": "ReserveRestaurant"}, asked)
    assert rp.AskedBackstop().applies(nlu, r)
    fixed = await rp.AskedBackstop().apply(nlu, r)
    assert [x.slot for x in fixed.acts] == ["time"] and fixed.filled == {"time"}
    assert not rp.AskedBackstop().applies(nlu, fixed)


async def test_asked_backstop_leaves_a_value_said_once_and_read_for_a_slot_named() -> None:
    nlu = nlu_of(_trips())
    asked = [system(a("REQUEST", "leave_date"), service="Trips")]
    intent, state = ("Trips", "RoundTrip"), {"Trips": "RoundTrip"}
    home = (a("INFORM", "home_date", "the 14th"),)
    told = {"acts": home, "filled": frozenset({"home_date"})}
    r = reading(nlu, "home on the 14th", intent, state, asked, **told)
    assert (await rp.AskedBackstop().apply(nlu, r)).acts == home  # "home" names it
    for text in ("on the 14th", "the 14th, and home on the 14th too"):
        r = reading(nlu, text, intent, state, asked, **told)  # named by nothing; said twice
        fixed = await rp.AskedBackstop().apply(nlu, r)
        assert [x.slot for x in fixed.acts] == ["home_date", "leave_date"], text


async def test_missed_count_fills_the_intents_one_number_slot() -> None:
    nlu = nlu_of(embedded("Restaurants"))
    intent = ("Restaurants", "ReserveRestaurant")
    r = reading(nlu, "a table for 3 on the 5th please", intent, {})
    assert rp.MissedCount().applies(nlu, r)
    assert texts((await rp.MissedCount().apply(nlu, r)).acts) == ["INFORM(number_of_seats=3)"]


async def test_missed_date_fills_the_intents_one_date_slot() -> None:
    nlu = nlu_of(embedded("Restaurants"))
    intent = ("Restaurants", "ReserveRestaurant")
    r = reading(nlu, "book 4 people sunday at noon", intent, {})
    assert rp.MissedDate().applies(nlu, r)
    assert texts((await rp.MissedDate().apply(nlu, r)).acts) == ["INFORM(date=sunday)"]
    two = reading(nlu, "sunday or monday at noon", intent, {})
    assert (await rp.MissedDate().apply(nlu, two)).acts == two.acts  # which one? none taken


async def test_task_over_leaves_closing_acts_only() -> None:
    nlu = nlu_of(schemas())
    history = [system(a("REQ_MORE"))]
    acts = (a("THANK_YOU"), a("REQUEST", "phone"))
    r = reading(nlu, "not for now, thanks", None, {SERVICE: "FindCafes"}, history, acts=acts)
    assert rp.TaskOver().applies(nlu, r)
    assert texts((await rp.TaskOver().apply(nlu, r)).acts) == ["THANK_YOU()"]
    assert texts((await rp.TaskOver().apply(nlu, replace(r, acts=()))).acts) == ["NEGATE()"]
    assert not rp.TaskOver().applies(nlu, replace(r, read=(a("INFORM", "city", "Oslo"),)))
    question = reading(nlu, "whats the phone on it again?", None, r.intents, history)
    assert not rp.TaskOver().applies(nlu, question)  # a question declines nothing


async def test_change_named_asks_for_the_detail_the_user_names() -> None:
    nlu = nlu_of(embedded("Restaurants"))
    which = (a("REQUEST", "time", "19:00"), a("REQUEST", "number_of_seats", "2"))
    history = [system(*which, service="Restaurants")]
    intent = ("Restaurants", "ReserveRestaurant")
    r = reading(
        nlu, "the time, please", intent, {"Restaurants": "ReserveRestaurant"}, history,
        said=which, acts=(a("REQUEST", "phone_number"),),
    )  # fmt: skip
    assert rp.ChangeNamed().applies(nlu, r)
    assert texts((await rp.ChangeNamed().apply(nlu, r)).acts) == ["REQUEST(time)"]


async def test_question_slot_asks_the_likeliest_slot_of_an_empty_question() -> None:
    nlu = nlu_of(schemas())
    history = [system(a("OFFER", "cafe_name", "Grind"))]
    r = reading(nlu, "is it any good?", None, {SERVICE: "FindCafes"}, history)
    r = replace(r, asks={"phone": 0.1, "has_wifi": 0.6})
    assert rp.QuestionSlot().applies(nlu, r)
    assert texts((await rp.QuestionSlot().apply(nlu, r)).acts) == ["REQUEST(has_wifi)"]
    nlu.thresholds = replace(nlu.thresholds, ask_floor=0.9)
    assert (await rp.QuestionSlot().apply(nlu, r)).acts == ()


def _slot(name: str, description: str, flag: bool = False) -> dict[str, Any]:
    """A slot of a handwritten schema: free text, or a yes/no ``flag``."""
    values = ["True", "False"] if flag else []
    return {"name": name, "description": description, "is_categorical": flag,
            "possible_values": values}  # fmt: skip


def _flights() -> Schemas:
    search = {
        "name": "FindFlights",
        "description": "Find a flight",
        "is_transactional": False,
        "required_slots": ["city"],
        "optional_slots": {},
        "result_slots": ["city", "airline", "is_redeye", "refundable"],
    }
    service = {
        "service_name": "Flights",
        "description": "Flights",
        "slots": [
            _slot("city", "City to fly to"),
            _slot("airline", "Name of the airline"),
            _slot("is_redeye", "Whether the flight is a red-eye flight", flag=True),
            _slot("refundable", "Whether the ticket can be refunded", flag=True),
        ],
        "intents": [search],
    }
    return Schemas([ServiceSchema.model_validate(service)])


async def test_question_slot_reads_a_yes_no_question_as_its_flag() -> None:
    """A yes-no question of which nothing was read asks about the yes-no slot its words
    name: by the description's words, the slot's name ("redeye" of is_redeye) or two
    description words run together ("redeye" of "red-eye")."""
    nlu = nlu_of(_flights())
    history = [system(a("OFFER", "airline", "Delta"), service="Flights")]
    nlu.thresholds = replace(nlu.thresholds, ask_floor=1.0)
    for text, asked in (
        ("is this a redeye?", ["REQUEST(is_redeye)"]),
        ("does it have a red-eye?", ["REQUEST(is_redeye)"]),  # "does", stemmed "doe"
        ("is the flight a red-eye flight?", ["REQUEST(is_redeye)"]),
        ("can i get it refunded?", ["REQUEST(refundable)"]),
        ("is it delta?", []),  # no flag named
        ("this a redeye?", []),  # no yes-no question
    ):
        r = reading(nlu, text, None, {"Flights": "FindFlights"}, history)
        r = replace(r, asks={"airline": 0.1}, acts=())
        assert rp.QuestionSlot().applies(nlu, r)
        assert texts((await rp.QuestionSlot().apply(nlu, r)).acts) == asked, text
    # typed without its question mark, as people do in a chat
    r = reading(nlu, "is it a redeye", None, {"Flights": "FindFlights"}, history)
    r = replace(r, asks={"airline": 0.1}, acts=())
    assert texts((await rp.QuestionSlot().apply(nlu, r)).acts) == ["REQUEST(is_redeye)"]
    assert rp.QuestionSlot().applies(nlu, r)
    r = replace(r, text="a redeye", turn=view("a redeye", "Flights", [], {}))
    assert not rp.QuestionSlot().applies(nlu, r)  # no question


def _trips() -> Schemas:
    def intent(name: str, dates: list[str]) -> dict[str, Any]:
        return {
            "name": name,
            "description": "Find a trip",
            "is_transactional": False,
            "required_slots": ["city", *dates],
            "optional_slots": {},
            "result_slots": ["city", *dates],
        }

    service = {
        "service_name": "Trips",
        "description": "Trips",
        "slots": [
            _slot("city", "City to go to"),
            _slot("leave_date", "Start date of the trip"),
            _slot("home_date", "Date of the trip home"),
        ],
        "intents": [
            intent("OneWay", ["leave_date"]),
            intent("RoundTrip", ["leave_date", "home_date"]),
        ],
    }
    return Schemas([ServiceSchema.model_validate(service)])


async def test_date_pair_gives_the_end_date_to_the_end_slot() -> None:
    """Two dates where an intent near the chosen one takes a start and an end date: the one
    after an end cue ("returning", "until") is the end's, else the later said."""
    nlu = nlu_of(_trips())
    r = reading(nlu, "", ("Trips", "OneWay"), {}, near=((3.0, "RoundTrip"),))
    misread = (a("INFORM", "leave_date", "march 9th"),)
    for text, read in (
        (
            "i will be returning on march 9th. i want to leave on march 3rd",
            ["INFORM(leave_date=march 3rd)", "INFORM(home_date=march 9th)"],
        ),
        (
            "from tomorrow until the 5th",
            ["INFORM(leave_date=tomorrow)", "INFORM(home_date=the 5th)"],
        ),
        ("leaving on march 9th", ["INFORM(leave_date=march 9th)"]),  # one date, no end cue
        ("back on the 3rd, back on the 9th", ["INFORM(leave_date=march 9th)"]),
        ("the 3rd, the 5th or the 9th", ["INFORM(leave_date=march 9th)"]),
        (  # "out" is no end cue, unless a check-out
            "out on thursday the 7th, back sunday the 10th",
            ["INFORM(leave_date=thursday the 7th)", "INFORM(home_date=sunday the 10th)"],
        ),
        (
            "checking out on the 9th, in on the 7th",
            ["INFORM(leave_date=the 7th)", "INFORM(home_date=the 9th)"],
        ),
    ):
        said = replace(r, text=text, read=misread)
        assert rp.DatePair().applies(nlu, said)
        assert texts((await rp.DatePair().apply(nlu, said)).read) == read, text
    # one date after an end cue is the end's where the chosen intent takes both
    round_trip = replace(r, predicted=("Trips", "RoundTrip"), near=(), read=misread)
    for text, read in (
        ("coming back sunday the 10th", [*texts(misread), "INFORM(home_date=sunday the 10th)"]),
        ("coming back march 9th", ["INFORM(home_date=march 9th)"]),
    ):
        said = replace(round_trip, text=text)
        assert texts((await rp.DatePair().apply(nlu, said)).read) == read, text
    both = (a("INFORM", "leave_date", "the 9th"), a("INFORM", "home_date", "the 3rd"))
    read_both = replace(r, text="from the 3rd until the 9th", read=both)
    assert (await rp.DatePair().apply(nlu, read_both)).read == both  # the reader's stands
    one_way = replace(r, text="flying back home march 9th", read=misread)
    assert (await rp.DatePair().apply(nlu, one_way)).read == misread
    # a start said, read as the end of a near intent's pair ("book me in from the 12th")
    ends = (a("INFORM", "home_date", "the 12th"),)
    start = replace(r, predicted=("Trips", "OneWay"), text="book me in from the 12th", read=ends)
    assert texts((await rp.DatePair().apply(nlu, start)).read) == ["INFORM(leave_date=the 12th)"]
    for text in ("check in on the 12th", "starting the 12th"):
        said = replace(round_trip, text=text, read=ends)
        assert texts((await rp.DatePair().apply(nlu, said)).read) == ["INFORM(leave_date=the 12th)"]
    alone = reading(nlu, "from tomorrow until the 5th", ("Trips", "OneWay"), {})
    assert not rp.DatePair().applies(nlu, alone)  # no intent takes two dates


async def test_place_pair_swaps_places_read_against_from_and_to() -> None:
    bus = {"name": "FindBus", "description": "Find a bus journey", "is_transactional": False,
           "required_slots": ["from_location", "to_location", "leaving_date"],
           "optional_slots": {}, "result_slots": ["from_location", "to_location"]}  # fmt: skip
    service = {"service_name": "Bus", "description": "Buses",
               "slots": [_slot("from_location", "City where bus is leaving from"),
                         _slot("to_location", "City where bus is going to"),
                         _slot("leaving_date", "Date of bus leaving for journey")],
               "intents": [bus]}  # fmt: skip
    nlu = nlu_of(Schemas([ServiceSchema.model_validate(service)]))
    find = ("Bus", "FindBus")
    misread = (a("INFORM", "from_location", "la"), a("INFORM", "to_location", "las vegas"))
    for text, read in (
        ("i'm going to la from las vegas", ["from_location=las vegas", "to_location=la"]),
        ("from la to las vegas", ["from_location=la", "to_location=las vegas"]),  # as read
        ("la or las vegas, from the airport", ["from_location=la", "to_location=las vegas"]),
    ):
        r = replace(reading(nlu, text, find, {}), read=misread)
        assert rp.PlacePair().applies(nlu, r)
        got = [f"{x.slot}={x.values[0]}" for x in (await rp.PlacePair().apply(nlu, r)).read]
        assert sorted(got) == read, text
    # one place, read for the end but said after "from", is the start's; after "to", it stays
    for text, read in (
        ("any other buses leaving from fresno?", ["from_location=fresno"]),
        ("from here to fresno", ["to_location=fresno"]),
    ):
        r = replace(reading(nlu, text, find, {}), read=(a("INFORM", "to_location", "fresno"),))
        got = [f"{x.slot}={x.values[0]}" for x in (await rp.PlacePair().apply(nlu, r)).read]
        assert got == read, text


async def test_missed_amount_reads_the_one_number_for_the_money_input() -> None:
    transfer = {
        "name": "Transfer",
        "description": "Send money",
        "is_transactional": True,
        "required_slots": ["amount", "recipient"],
        "optional_slots": {},
        "result_slots": ["amount", "recipient"],
    }
    bank = {
        "service_name": "Bank",
        "description": "Bank",
        "slots": [
            _slot("amount", "Amount of money to transfer"),
            _slot("recipient", "Who gets it"),
        ],
        "intents": [transfer],
    }
    nlu = nlu_of(Schemas([ServiceSchema.model_validate(bank)]))
    tom = (a("INFORM", "recipient", "tom"),)
    r = reading(nlu, "ok send 300 from savings to tom", ("Bank", "Transfer"), {}, read=tom)
    assert rp.MissedAmount().applies(nlu, r)
    assert texts((await rp.MissedAmount().apply(nlu, r)).acts) == ["INFORM(amount=300)"]
    for text, said in (("send $1,200.50 to tom", "$1,200.50"), ("tom, 45 bucks", "45")):
        found = (await rp.MissedAmount().apply(nlu, replace(r, text=text))).acts
        assert texts(found) == [f"INFORM(amount={said})"]
    for none in ("send it to tom at 7:30 on the 5th", "300 or 400 to tom"):
        assert (await rp.MissedAmount().apply(nlu, replace(r, text=none))).acts == ()
    assert not rp.MissedAmount().applies(nlu, replace(r, filled=frozenset({"amount"})))
    # a word read for the amount, no number in it, gives way to the one amount said
    send = (a("INFORM", "amount", "send"),)
    wordy = replace(r, text="i need to send $1,290 to tom", acts=send, filled=frozenset({"amount"}))
    assert rp.MissedAmount().applies(nlu, wordy)
    assert texts((await rp.MissedAmount().apply(nlu, wordy)).acts) == ["INFORM(amount=$1,290)"]
    said = replace(wordy, acts=(a("INFORM", "amount", "three hundred"),))
    assert not rp.MissedAmount().applies(nlu, said)


async def test_an_ordinal_before_a_street_is_no_date() -> None:
    nlu = nlu_of(_trips())
    dated = (a("INFORM", "leave_date", "5th"), a("INFORM", "city", "oslo"))
    r = reading(nlu, "oslo, at the office on 5th street", ("Trips", "OneWay"), {}, acts=dated)
    assert rp.StreetNotDate().applies(nlu, r)
    assert texts((await rp.StreetNotDate().apply(nlu, r)).acts) == ["INFORM(city=oslo)"]
    assert not rp.StreetNotDate().applies(nlu, replace(r, text="oslo on the 5th"))
    assert [m.group() for m in DATE.finditer("on 5th avenue on the 9th")] == ["the 9th"]


def test_every_repair_has_a_unique_name_and_a_step() -> None:
    assert len(set(rp.NAMES)) == len(rp.REPAIRS)
    assert {r.step for r in rp.REPAIRS} == {"route", "read", "acts"}


def test_options_switch_repairs_and_refuse_unknown_names() -> None:
    assert rp.selected({}) == rp.REPAIRS
    assert [r.name for r in rp.selected({"without": ["task_over"]})] == [
        n for n in rp.NAMES if n != "task_over"
    ]
    only = rp.selected({"repairs": ["question_slot", "ask_or_tell"]})
    assert [r.name for r in only] == ["ask_or_tell", "question_slot"]  # REPAIRS' order
    assert "alias_search" not in rp.NAMES  # off by default: it cost JGA on train held out
    assert [r.name for r in rp.selected({"repairs": [*rp.NAMES, "alias_search"]})][-1] == (
        "alias_search"
    )
    with pytest.raises(ConfigError, match="unknown NLU repair"):
        rp.selected({"without": ["spelling"]})
    with pytest.raises(ConfigError, match="list of repair names"):
        rp.selected({"repairs": "task_over"})


async def test_a_repair_left_out_changes_the_parse() -> None:
    history = [system(a("OFFER", "cafe_name", "Grind"))]
    state = {SERVICE: State(active_intent="FindCafes")}

    async def parse(**options: Any) -> list[str]:
        nlu = nlu_of(schemas(), **options)
        nlu.thresholds = replace(nlu.thresholds, ask_floor=0.0)
        acts = await nlu.parse("is it any good?", TurnContext(nlu.schemas, history, state))
        return [str(x) for x in acts.get(SERVICE, [])]

    assert any(x.startswith("REQUEST(") for x in await parse())
    assert not any(x.startswith("REQUEST(") for x in await parse(without=["question_slot"]))


def test_a_clock_time_without_its_part_of_the_day_takes_the_contexts_half() -> None:
    assert cs._ambiguous("7:30") == (7, 30) and cs._ambiguous("six") == (6, 0)
    assert [cs._ambiguous(v) for v in ("7pm", "19:30", "07:30", "noon", "12:15")] == [None] * 5
    assert cs.later_half(7, 30, "a table at 7:30 tonight", [])  # the turn's words
    assert not cs.later_half(7, 30, "7:30 in the morning", ["19:00"])
    assert cs.later_half(7, 30, "at 7:30", ["18:30", "19:00", "20:00"])  # the backend's hours
    assert not cs.later_half(10, 0, "at 10", ["09:30", "10:30", "19:00"])
    assert cs.later_half(2, 30, "at 2:30", []) and not cs.later_half(9, 0, "at 9", [])


async def test_time_of_day_gives_the_call_the_afternoon_and_keeps_the_words() -> None:
    nlu = nlu_of(embedded("Restaurants"))
    intent = ("Restaurants", "ReserveRestaurant")
    said = (a("INFORM", "time", "7:30"), a("INFORM", "date", "today"))
    r = reading(nlu, "a table at 7:30 tonight", intent, {}, acts=said)
    assert cs.TimeOfDay().applies(nlu, r)
    fixed = (await cs.TimeOfDay().apply(nlu, r)).acts[0]
    assert fixed.values == ["7:30"] and fixed.canonical_values == ["19:30"]
    clear = replace(r, acts=(a("INFORM", "time", "7:30 pm"),))
    assert not cs.TimeOfDay().applies(nlu, clear)


async def test_at_or_for_untangles_a_count_read_as_a_time() -> None:
    nlu = nlu_of(embedded("Restaurants"))
    intent = ("Restaurants", "ReserveRestaurant")
    mixed = (a("INFORM", "time", "2 tonight"), a("INFORM", "number_of_seats", "6"))
    r = reading(nlu, "book it for 2 tonight at 6", intent, {}, acts=mixed)
    assert cs.AtOrFor().applies(nlu, r)
    assert texts((await cs.AtOrFor().apply(nlu, r)).acts) == [
        "INFORM(time=6)",
        "INFORM(number_of_seats=2)",
    ]
    right = (a("INFORM", "time", "6"), a("INFORM", "number_of_seats", "2"))
    assert not cs.AtOrFor().applies(nlu, replace(r, acts=right))
    nights = reading(nlu, "for 2 nights at 6", intent, {}, acts=mixed)
    assert not cs.AtOrFor().applies(nlu, nights)


async def test_at_or_for_reads_a_near_rival_s_count_and_time() -> None:
    """ "a table for 2 tonight at 7 somewhere italian" chosen as the search, which takes no
    count nor time: the booking near it does, and its time is read "7", not "2 tonight"."""
    nlu = nlu_of(embedded("Restaurants"))
    intent = ("Restaurants", "FindRestaurants")
    text = "i need a table for 2 tonight at 7 somewhere italian in boston"
    r = reading(nlu, text, intent, {}, acts=(a("INFORM", "time", "2 tonight"),))
    assert not cs.AtOrFor().applies(nlu, r)
    r = replace(r, near=((3.0, "ReserveRestaurant"),))
    fixed = await cs.AtOrFor().apply(nlu, r)
    assert texts(fixed.acts) == ["INFORM(time=7)", "INFORM(number_of_seats=2)"]
    assert (await cs.TimeOfDay().apply(nlu, fixed)).acts[0].canonical_values == ["19:00"]


async def test_intent_by_values_keeps_the_intent_given_up_as_a_near_rival() -> None:
    nlu = nlu_of(embedded("Restaurants"))
    booking, search = ("Restaurants", "ReserveRestaurant"), ("Restaurants", "FindRestaurants")
    r = reading(nlu, "somewhere italian in boston", booking, {})
    read = (a("INFORM", "city", "Boston"), a("INFORM", "cuisine", "Italian"))
    r = replace(r, near=((2.0, "FindRestaurants"),), read=read)
    moved = await rt.IntentByValues().apply(nlu, r)
    assert moved.predicted == search and moved.near == ((2.0, "ReserveRestaurant"),)


async def test_just_me_is_a_count_of_one() -> None:
    nlu = nlu_of(embedded("Restaurants"))
    intent = ("Restaurants", "ReserveRestaurant")
    r = reading(nlu, "just me", intent, {}, acts=(a("INFORM", "number_of_seats", "2"),))
    assert cs.JustMe().applies(nlu, r)
    assert texts((await cs.JustMe().apply(nlu, r)).acts) == ["INFORM(number_of_seats=1)"]
    assert not cs.JustMe().applies(nlu, replace(r, text="just me and 3 friends"))
    # a clock time or a date is no count
    assert cs.JustMe().applies(nlu, replace(r, text="just me, at 7pm on the 5th"))
    assert cs.JustMe().applies(nlu, replace(r, text="only me at 7:30"))
    # nor a value read: the number of a street address
    street = "a table at 789 mission street, just me"
    assert not cs.JustMe().applies(nlu, replace(r, text=street))
    at = replace(r, text=street, read=(a("INFORM", "restaurant_name", "789 mission street"),))
    assert cs.JustMe().applies(nlu, at)


async def test_just_tonight_is_one_night() -> None:
    nlu = nlu_of(embedded("Hotels"))
    intent = ("Hotels", "BookHotel")
    r = reading(
        nlu,
        "ok book that, just tonight",
        intent,
        {},
        acts=(a("INFORM", "check_in_date", "tonight"),),
    )
    assert cs.JustTonight().applies(nlu, r)
    acts = texts((await cs.JustTonight().apply(nlu, r)).acts)
    assert acts == ["INFORM(check_in_date=tonight)", "INFORM(number_of_nights=1)"]
    assert not cs.JustTonight().applies(nlu, replace(r, text="tonight for 3 nights"))
    assert not cs.JustTonight().applies(nlu, replace(r, text="just me tonight"))
    seats = reading(nlu, "just tonight", ("Restaurants", "ReserveRestaurant"), {})
    assert not cs.JustTonight().applies(nlu_of(embedded("Restaurants")), seats)  # no count of time


STAYS = {
    "service_name": "Stays",
    "description": "Find and book hotel stays",
    "slots": [
        {"name": "hotel_name", "description": "Name of the hotel", "is_categorical": False,
         "possible_values": []},
        {"name": "check_in_date", "description": "Start date for the stay",
         "is_categorical": False, "possible_values": []},
        {"name": "check_out_date", "description": "End date for the stay",
         "is_categorical": False, "possible_values": []},
    ],
    "intents": [
        {"name": "BookStay", "description": "Book a stay at a hotel", "is_transactional": True,
         "required_slots": ["hotel_name", "check_in_date", "check_out_date"],
         "optional_slots": {}, "result_slots": []},
    ],
}  # fmt: skip


async def test_a_length_ends_a_span_of_two_dates() -> None:
    """ "3 nights, checking in next fri" to a booking with a check-in and a check-out date and
    no count of nights: the check-out is 3 nights after the check-in, said this turn or held
    by the frame; nothing for two lengths, or a check-out read already."""
    nlu = nlu_of(Schemas([ServiceSchema.model_validate(STAYS)]))
    intent = ("Stays", "BookStay")
    said = (a("INFORM", "check_in_date", "next fri"),)
    r = reading(nlu, "3 nights, checking in next fri", intent, {}, acts=said)
    assert cs.EndByLength().applies(nlu, r)
    acts = texts((await cs.EndByLength().apply(nlu, r)).acts)
    assert acts == [
        "INFORM(check_in_date=next fri)",
        "INFORM(check_out_date=3 nights after next fri)",
    ]
    held = State(active_intent="BookStay", slot_values={"check_in_date": ["friday"]})
    context = replace(r.context, state={"Stays": held})
    later = replace(r, text="make it 2 nights", acts=(), context=context)
    acts = texts((await cs.EndByLength().apply(nlu, later)).acts)
    assert acts == ["INFORM(check_out_date=2 nights after friday)"]
    assert not cs.EndByLength().applies(nlu, replace(r, text="2 nights or 3 nights"))
    assert not cs.EndByLength().applies(nlu, replace(r, filled=frozenset({"check_out_date"})))
    assert not cs.EndByLength().applies(nlu, replace(r, text="3 nights", acts=()))  # no start


async def test_a_count_said_with_its_unit_is_that_counts() -> None:
    """ "2 nights starting tomorrow": the count said with its unit is the stay's length,
    over a count read for it or none; "3 rooms" the rooms', and a 3 read for the nights
    goes; the SGD form of the slot (free text described "Number of days in the
    reservation") is left to the reader."""
    nlu = nlu_of(embedded("Hotels"))
    intent = ("Hotels", "BookHotel")
    rooms = (a("INFORM", "check_in_date", "tomorrow"), a("INFORM", "number_of_nights", "1"))
    r = reading(nlu, "ok. 2 nights starting tomorrow", intent, {}, acts=rooms)
    assert cs.CountWithUnit().applies(nlu, r)
    acts = texts((await cs.CountWithUnit().apply(nlu, r)).acts)
    assert acts == ["INFORM(check_in_date=tomorrow)", "INFORM(number_of_nights=2)"]
    assert cs.CountWithUnit().applies(nlu, replace(r, text="for three days", acts=()))
    done = (a("INFORM", "number_of_nights", "2"),)
    assert not cs.CountWithUnit().applies(nlu, replace(r, acts=done))  # read already
    assert not cs.CountWithUnit().applies(nlu, replace(r, text="2 nights or 3 nights"))
    three = (a("INFORM", "number_of_nights", "3"),)
    r = replace(r, text="3 rooms please", acts=three)
    assert texts((await cs.CountWithUnit().apply(nlu, r)).acts) == ["INFORM(number_of_rooms=3)"]
    both = replace(r, text="3 rooms for 3 nights", acts=three)
    acts = texts((await cs.CountWithUnit().apply(nlu, both)).acts)
    assert acts == ["INFORM(number_of_nights=3)", "INFORM(number_of_rooms=3)"]
    # a number said twice is each unit's: "3 rooms for 3 nights" keeps both 3s
    twice = replace(r, text="3 stars, 3 nights", acts=(a("INFORM", "number_of_rooms", "3"),))
    assert "INFORM(number_of_rooms=3)" in texts((await cs.CountWithUnit().apply(nlu, twice)).acts)
    # a short unit run on to its digits: "3rm" the rooms (r, then m, of "room"); never an
    # ordinal or a clock time
    short = replace(r, text="3rm please", acts=three)
    assert texts((await cs.CountWithUnit().apply(nlu, short)).acts) == ["INFORM(number_of_rooms=3)"]
    assert cs.names_unit("br", frozenset({"bedroom", "bath"}))
    assert not cs.names_unit("st", frozenset({"star"}))  # "the 1st"
    # a number said with a unit of time is no count of rooms
    rooms = replace(r, text="a room for 3 nights", acts=(a("INFORM", "number_of_rooms", "3"),))
    assert texts((await cs.CountWithUnit().apply(nlu, rooms)).acts) == [
        "INFORM(number_of_nights=3)"
    ]
    seats = reading(nlu, "2 nights", ("Restaurants", "ReserveRestaurant"), {})
    assert not cs.CountWithUnit().applies(nlu_of(embedded("Restaurants")), seats)
    hotels = embedded("Hotels")["Hotels"]
    free = hotels.slot("number_of_nights")
    assert free is not None
    text_slot = free.model_copy(
        update={
            "description": "Number of days in the reservation",
            "is_categorical": False,
            "possible_values": [],
        }
    )
    slots = [text_slot if s.name == free.name else s for s in hotels.slots]
    data = hotels.model_dump() | {"slots": [x.model_dump() for x in slots]}
    nlu = nlu_of(Schemas([ServiceSchema.model_validate(data)]))  # no copied derived values
    # SGD's free-text count is the reader's: what it read stands, a gap is filled
    read = (a("INFORM", "number_of_nights", "3"),)
    misread = reading(
        nlu, "2 nights", intent, {}, acts=read, filled=frozenset({"number_of_nights"})
    )
    assert not cs.CountWithUnit().applies(nlu, misread)
    gap = reading(nlu, "2 rooms, 3 nights, checking in friday", intent, {})
    acts = texts((await cs.CountWithUnit().apply(nlu, gap)).acts)
    assert acts == ["INFORM(number_of_rooms=2)", "INFORM(number_of_nights=3)"]


def test_clock_at_is_a_time_after_at_not_a_place() -> None:
    found = [cs.clock_at(t) for t in ("2 ppl tonight at 7", "at 7:30 please", "at seven")]
    assert found == ["7", "7:30", "seven"]
    others = ("at 4 seasons hotel", "at 1615 hill road", "at 7 or at 8", "for 2 people")
    assert [cs.clock_at(t) for t in others] == [None] * 4


async def test_at_clock_reads_a_missed_time_and_time_of_day_its_half() -> None:
    nlu = nlu_of(embedded("Restaurants"))
    intent = ("Restaurants", "ReserveRestaurant")
    said = (a("INFORM", "number_of_seats", "2"), a("INFORM", "date", "tonight"))
    r = reading(nlu, "2 ppl tonight at 7", intent, {}, acts=said, filled=frozenset())
    assert cs.AtClock().applies(nlu, r)
    r = await cs.AtClock().apply(nlu, r)
    assert texts(r.acts)[-1] == "INFORM(time=7)" and "time" in r.filled
    assert not cs.AtClock().applies(nlu, r)  # the time is read
    fixed = (await cs.TimeOfDay().apply(nlu, r)).acts[-1]
    assert fixed.canonical_values == ["19:00"]
    # the 7 read as the count: no time from it
    seven = reading(nlu, "tonight at 7", intent, {}, acts=(a("INFORM", "number_of_seats", "7"),))
    assert (await cs.AtClock().apply(nlu, seven)).acts == seven.acts


async def test_time_of_day_reads_the_half_of_the_day_the_frame_holds() -> None:
    """ "make it 7:30" after "2 people tonight at 7": the date the frame holds says evening."""
    nlu = nlu_of(embedded("Restaurants"))
    intent = ("Restaurants", "ReserveRestaurant")
    r = reading(nlu, "actually make it 7:30", intent, {}, acts=(a("INFORM", "time", "7:30"),))
    assert (await cs.TimeOfDay().apply(nlu, r)).acts[0].canonical_values == ["7:30"]
    held = State(active_intent="ReserveRestaurant", slot_values={"date": ["tonight"]})
    r = replace(r, context=TurnContext(nlu.schemas, [], {"Restaurants": held}))
    assert (await cs.TimeOfDay().apply(nlu, r)).acts[0].canonical_values == ["19:30"]


def test_aliases_are_initials_and_word_starts_of_known_values() -> None:
    cities = ["San Francisco", "New York", "Philadelphia", "Los Angeles", "Phoenix"]
    aliases = cs.Aliases({"city": cities}, {"city": "city"})  # "City where it is located"
    found = {t: aliases.of(t, "city") for t in ("sf", "nyc", "ny", "la", "philly", "phone")}
    assert found == {
        "sf": "San Francisco",
        "nyc": "New York",
        "ny": "New York",
        "la": "Los Angeles",
        "philly": "Philadelphia",
        "phone": None,
    }
    assert aliases.of("sf", "cuisine") is None
    # "c" ends a city's initials whatever the slot's head word ("Location of the hotel")
    assert cs.Aliases({"location": cities}, {"location": "location"}).of("nyc", "location") == (
        "New York"
    )


def test_the_last_word_no_other_value_holds_is_an_alias() -> None:
    """ "a bus to vegas": Las Vegas; "park" ends two parks, "las" starts two cities."""
    cities = ["Las Vegas", "Las Cruces", "Menlo Park", "Rohnert Park"]
    aliases = cs.Aliases({"city": cities}, {"city": "city"})
    found = {t: aliases.ending(t, "city") for t in ("vegas", "cruces", "park", "las")}
    assert found == {"vegas": "Las Vegas", "cruces": "Las Cruces", "park": None, "las": None}
    assert aliases.of("vegas", "city") is None  # for a value read only, not a word alone


def test_a_value_said_without_its_stops_is_an_alias() -> None:
    aliases = cs.Aliases({"city": ["Washington D.C.", "Washington"]}, {"city": "city"})
    assert aliases.of("washington dc", "city") == "Washington D.C."
    assert aliases.of("washington", "city") is None  # a value itself


def test_of_two_values_a_short_form_fits_the_one_far_more_named_is_meant() -> None:
    cities = ["Los Angeles", "Los Altos", "San Jose", "Santa Josefa"]
    used = {"los": 900, "angeles": 871, "altos": 27, "san": 5000, "jose": 400, "santa": 300}
    used |= {"josefa": 200}
    aliases = cs.Aliases({"city": cities}, {"city": "city"}, lambda w: used.get(w, 0))
    assert aliases.of("la", "city") == "Los Angeles"
    assert aliases.of("sj", "city") is None  # 400 against 200: not far more, no guess
    assert cs.Aliases({"city": cities}, {"city": "city"}).of("la", "city") is None


def test_a_values_own_word_is_the_one_word_other_values_lack() -> None:
    airlines = ["United Airlines", "Delta Airlines", "Alaska Airlines", "American Airlines"]
    assert cs.ValueWords.of(airlines).own() == {
        "united": {"United Airlines"},
        "delta": {"Delta Airlines"},
        "alaska": {"Alaska Airlines"},
        "american": {"American Airlines"},
    }
    assert cs.ValueWords.of(["Little Big Town", "Sara Evans", "Kacey Musgraves"]).own() == {}
    assert cs.ValueWords.of(["TV", "Kitchen speaker", "Bedroom speaker"]).own() == {
        "kitchen": {"Kitchen speaker"},
        "bedroom": {"Bedroom speaker"},
    }


async def test_own_word_reads_a_value_named_by_its_own_word() -> None:
    nlu = knowing(embedded("Restaurants"), {"city": ["Union City", "Foster City", "Daly City"]})
    r = reading(nlu, "italian food in foster please", ("Restaurants", "FindRestaurants"), {})
    fixed = await cs.OwnWord().apply(nlu, r)
    assert [(x.slot, x.values, x.canonical_values) for x in fixed.acts] == [
        ("city", ["foster"], ["Foster City"])
    ]
    told = replace(r, acts=(a("INFORM", "city", "Daly City"),), filled=frozenset({"city"}))
    assert (await cs.OwnWord().apply(nlu, told)).acts == told.acts  # the slot was filled


async def test_alias_search_reads_an_abbreviated_city() -> None:
    nlu = knowing(embedded("Restaurants"), {"city": ["San Francisco", "New York"]})
    r = reading(nlu, "italian food in sf", ("Restaurants", "FindRestaurants"), {})
    fixed = await cs.AliasSearch().apply(nlu, r)
    assert [(x.slot, x.values, x.canonical_values) for x in fixed.acts] == [
        ("city", ["sf"], ["San Francisco"])
    ]


async def test_value_alias_spells_out_an_abbreviation_the_reader_read() -> None:
    nlu = knowing(embedded("Restaurants"), {"city": ["San Francisco", "New York"]})
    read = (a("INFORM", "city", "nyc"),)
    r = reading(nlu, "a table in nyc", ("Restaurants", "FindRestaurants"), {}, acts=read)
    assert not cs.ValueAlias().applies(nlu, r)  # nothing read by the reader
    r = replace(r, read=read)
    fixed = (await cs.ValueAlias().apply(nlu, r)).acts
    assert [(x.values, x.canonical_values) for x in fixed] == [(["nyc"], ["New York"])]
    # a value the backend knows is itself, and one that abbreviates nothing is left alone
    known = (a("INFORM", "city", "New York"), a("INFORM", "city", "oslo"))
    fixed = (await cs.ValueAlias().apply(nlu, replace(r, acts=known))).acts
    assert fixed == known


async def test_named_value_reads_the_name_after_called() -> None:
    nlu = nlu_of(embedded("Restaurants"))
    intent = ("Restaurants", "ReserveRestaurant")
    r = reading(nlu, "a table at a place called Copper Pearl for 2", intent, {})
    assert cs.NamedValue().applies(nlu, r)
    assert texts((await cs.NamedValue().apply(nlu, r)).acts) == [
        "INFORM(restaurant_name=Copper Pearl)"
    ]
    assert not cs.NamedValue().applies(nlu, replace(r, text="a table for 2"))
    filled = replace(r, filled=frozenset({"restaurant_name"}))
    assert (await cs.NamedValue().apply(nlu, filled)).acts == ()


async def test_after_done_reads_a_new_task_as_an_opening() -> None:
    nlu = nlu_of(embedded("Restaurants", "Hotels"))
    done = system(a("NOTIFY_SUCCESS"), service="Restaurants")
    text = "oh and i need somewhere to stay tonight too, 4 stars if possible"
    current = ("Restaurants", "ReserveRestaurant")
    r = reading(nlu, text, current, {"Restaurants": "ReserveRestaurant"}, [done])
    assert rt.AfterDone().applies(nlu, r)
    nlu.thresholds = replace(nlu.thresholds, switch_margin=3.0)
    predicted = (await rt.AfterDone().apply(nlu, r)).predicted
    assert predicted is not None and predicted[0] == "Hotels"
    nlu.thresholds = replace(nlu.thresholds, switch_margin=0.0)  # the fresh best only
    thanks = reading(nlu, "thanks, that's all", current, r.intents, [done])
    assert (await rt.AfterDone().apply(nlu, thanks)).predicted == current
    asked = system(a("REQUEST", "city"), service="Restaurants")
    assert not rt.AfterDone().applies(nlu, reading(nlu, text, current, r.intents, [asked]))
    # a question is about the booking, unless it names the other task
    about = reading(nlu, "what time is it booked for?", current, r.intents, [done])
    assert (await rt.AfterDone().apply(nlu, about)).predicted == current
    other = reading(nlu, "is there a hotel near it?", current, r.intents, [done])
    predicted = (await rt.AfterDone().apply(nlu, other)).predicted
    assert predicted is not None and predicted[0] == "Hotels"
    # after a task was called off, a question is about what it found only when it names a
    # slot of it ("whats the address?")
    nlu.thresholds = replace(nlu.thresholds, switch_margin=3.0)
    search = ("Restaurants", "FindRestaurants")
    for ended, text, to in [
        ("NOTIFY_SUCCESS", "can i get a 4 star place to sleep in seattle?", "Restaurants"),
        ("CANCEL", "can i get a 4 star place to sleep in seattle?", "Hotels"),
        ("CANCEL", "whats the address?", "Restaurants"),
    ]:
        last = system(a(ended), a("REQ_MORE"), service="Restaurants")
        asked = reading(nlu, text, search, {"Restaurants": "FindRestaurants"}, [last])
        predicted = (await rt.AfterDone().apply(nlu, asked)).predicted
        assert predicted is not None and predicted[0] == to, (ended, text)


async def test_after_done_keeps_the_same_task_again_with_the_service_it_was_on() -> None:
    """After a task was called off, the same task asked again stays with the service it was
    on, which a sister repair may have chosen ("instead i need a ride to ..., also shared"),
    however the fresh ranking orders the sisters."""
    services = embedded("Restaurants", "Hotels")
    restaurants = services["Restaurants"]
    sister = restaurants.model_copy(
        update={"service_name": "Diners", "description": "Find diners and book a diner table"}
    )
    nlu = nlu_of(Schemas([restaurants, sister, services["Hotels"]]))
    nlu.thresholds = replace(nlu.thresholds, switch_margin=3.0)
    text = "i need a diner table for 2 in seattle instead"
    for on in ("Restaurants", "Diners"):
        last = system(a("CANCEL"), a("REQ_MORE"), service=on)
        current = (on, "FindRestaurants")
        r = reading(nlu, text, current, {on: "FindRestaurants"}, [last])
        assert rt.AfterDone().applies(nlu, r)
        assert (await rt.AfterDone().apply(nlu, r)).predicted == current


async def test_service_by_known_name_follows_a_name_only_another_service_knows() -> None:
    nlu = nlu_of(embedded("Movies", "Hotels"), known=True)
    text = "i want to see winter garden in denver"
    chosen = ("Hotels", "BookHotel")
    r = reading(nlu, text, chosen, {})
    r = replace(
        r,
        ranked=(
            (1.0, chosen),
            (0.5, ("Movies", "FindMovies")),
            (0.2, ("Movies", "BuyMovieTickets")),
        ),
    )
    assert rt.ServiceByKnownName().applies(nlu, r)
    predicted = (await rt.ServiceByKnownName().apply(nlu, r)).predicted
    assert predicted == ("Movies", "BuyMovieTickets")  # the best-ranked taking movie_name
    plain = replace(r, text="i want to stay in denver")  # no name: nothing moves
    assert (await rt.ServiceByKnownName().apply(nlu, plain)).predicted == chosen
    # nor to an intent scored ``values_margin`` logits or more below the chosen one
    nlu.thresholds = replace(nlu.thresholds, values_margin=0.6)
    assert (await rt.ServiceByKnownName().apply(nlu, r)).predicted == chosen


def test_a_known_name_is_one_with_a_word_rare_in_talk_the_chosen_service_lacks() -> None:
    """Names by their words' talk counts ("marvel" is said mostly inside "Captain Marvel");
    a name whose rare words are each a value of the chosen service ("baseball", a category
    of the events' backend) moves nothing."""
    movies = embedded("Movies")["Movies"]
    talk = {"captain": 8, "marvel": 9, "baseball": 40, "game": 900, "find": 10_000, "me": 20_000}
    count = lambda w: talk.get(w, 0)  # noqa: E731
    known = {"movie_name": ["Captain Marvel", "Baseball Game", "Find Me"]}
    names = rt.KnownNames(movies, known, count)
    other = rt.KnownNames(movies, {"genre": ["Baseball"]}, count)
    nothing = rt.KnownNames(movies, {}, count)

    def named(text: str, mine: rt.KnownNames) -> str | None:
        said = text.split()
        return names.slot_named(said, f" {' '.join(said)} ", mine)

    assert named("when is captain marvel on", nothing) == "movie_name"
    assert named("any baseball game on", nothing) == "movie_name"
    assert named("any baseball game on", other) is None  # "baseball" is the other's value
    assert named("find me a film", nothing) is None  # words of talk, no name
    # a name said inside a longer name the chosen service knows is that name's
    longer = rt.KnownNames(movies, {"movie_name": ["Not Captain Marvel Again"]}, count)
    assert named("play not captain marvel again", longer) is None


def test_listed_kinds_are_few_values_of_a_free_text_input_no_other_service_knows() -> None:
    services = embedded("Movies", "Hotels")
    theaters = ["Roxie", "Grand Lake", "Castro"]
    known = {
        "Movies": {"theater_name": theaters, "city": ["Oslo", "Lima"], "show_time": ["19:00"]},
        "Hotels": {"city": ["Oslo", "Lima"]},
    }
    kinds = rt.listed_kinds(services, known)
    assert kinds["Movies"] == {"roxie", "grand lake", "castro"}  # not the cities
    assert kinds["Hotels"] == frozenset()
    many = [f"theater {chr(97 + i)}{chr(97 + j)}" for i in range(11) for j in range(11)]
    assert rt.listed_kinds(services, {"Movies": {"theater_name": many}})["Movies"] == frozenset()
    # a sister (an intent of the same name) knowing the same kinds takes none away
    movies = services["Movies"]
    sister = movies.model_copy(update={"service_name": "Cinemas"})
    both = {"Movies": {"theater_name": theaters}, "Cinemas": {"theater_name": theaters}}
    kinds = rt.listed_kinds(Schemas([movies, sister, services["Hotels"]]), both)
    assert kinds["Movies"] == kinds["Cinemas"] == {"roxie", "grand lake", "castro"}


async def test_service_by_category_follows_a_kind_only_one_backend_knows() -> None:
    """ "anything on at the roxie in oslo?" scored as a hotel search with less than even
    odds: the cinemas' backend lists the Roxie among a few theaters. With words only the
    hotels' descriptions hold, only when the kind and the cinemas' own words said outnumber
    them."""
    nlu = nlu_of(embedded("Movies", "Hotels"))
    known = {"Movies": {"theater_name": ["Roxie", "Castro"]}, "Hotels": {"city": ["Oslo"]}}
    nlu._kinds = rt.listed_kinds(nlu.schemas, known)
    chosen, other = ("Hotels", "SearchHotel"), ("Movies", "FindMovies")
    text = "anything on at the roxie in oslo?"
    r = reading(nlu, text, chosen, {}, ranked=((-1.0, chosen), (-2.0, other)))
    assert (await rt.ServiceByCategory().apply(nlu, r)).predicted == other
    plain = reading(nlu, "anything on in oslo?", chosen, {}, ranked=r.ranked)
    assert (await rt.ServiceByCategory().apply(nlu, plain)).predicted == chosen
    # a word of the hotels' own ("free") said too: the kind and the cinemas' "showing"
    # outnumber it; with the hotels' "free" and "wifi", they do not
    for text, expected in (
        ("anything free showing at the roxie in oslo?", other),
        ("anything free at the roxie in oslo?", chosen),
        ("anything showing at the roxie in oslo with free wifi?", chosen),
    ):
        r = reading(nlu, text, chosen, {}, ranked=((-1.0, chosen), (-2.0, other)))
        assert (await rt.ServiceByCategory().apply(nlu, r)).predicted == expected, text
    # never to a sister of the chosen intent: a kind tells tasks apart, not providers
    movies = embedded("Movies")["Movies"]
    sister = movies.model_copy(update={"service_name": "Cinemas"})
    nlu = nlu_of(Schemas([movies, sister]))
    nlu._kinds = rt.listed_kinds(nlu.schemas, {"Cinemas": {"theater_name": ["Roxie", "Castro"]}})
    chosen, other = ("Movies", "FindMovies"), ("Cinemas", "FindMovies")
    r = reading(nlu, text, chosen, {}, ranked=((-1.0, chosen), (-2.0, other)))
    assert (await rt.ServiceByCategory().apply(nlu, r)).predicted == chosen


async def test_service_by_category_leaves_an_answered_lookup_for_a_kind_another_lists() -> None:
    """ "hmm, i'm thinking mediterranean for dinner there" kept with a hotel on offer: a
    cuisine the restaurants list; not while the hotel search waits for a detail."""
    nlu = nlu_of(embedded("Restaurants", "Hotels"))
    hotels, rest = ("Hotels", "SearchHotel"), ("Restaurants", "FindRestaurants")
    ranked = ((1.0, hotels), (-2.0, rest))
    text = "hmm, i'm thinking mediterranean for dinner there"
    offered = system(a("OFFER", "hotel_name", "Ace"), service="Hotels")
    r = reading(nlu, text, hotels, {"Hotels": "SearchHotel"}, [offered], ranked=ranked)
    assert rt.ServiceByCategory().applies(nlu, r)
    assert (await rt.ServiceByCategory().apply(nlu, r)).predicted == rest
    asked = system(a("REQUEST", "city"), service="Hotels")
    waiting = reading(nlu, text, hotels, {"Hotels": "SearchHotel"}, [asked], ranked=ranked)
    assert not rt.ServiceByCategory().applies(nlu, waiting)
    question = "is it near anything mediterranean?"  # about the hotel on offer
    about = reading(nlu, question, hotels, {"Hotels": "SearchHotel"}, [offered], ranked=ranked)
    assert not rt.ServiceByCategory().applies(nlu, about)


async def test_service_named_opens_the_task_of_the_service_the_user_names() -> None:
    """ "any good restaurant near union square?" scored as a hotel search: the restaurants'
    noun, which their own description says and no description of the hotels does, opens
    the best-ranked restaurant intent; not when the user says a word of the hotels' too,
    nor with a task under way."""
    nlu = nlu_of(embedded("Movies", "Hotels", "Restaurants"))
    hotels, movies = ("Hotels", "SearchHotel"), ("Movies", "FindMovies")
    rest = ("Restaurants", "FindRestaurants")
    ranked = ((1.0, hotels), (-2.0, movies), (-3.0, rest))
    r = reading(nlu, "any good restaurant near union square?", hotels, {}, ranked=ranked)
    assert rt.ServiceNamed().applies(nlu, r)
    assert (await rt.ServiceNamed().apply(nlu, r)).predicted == rest
    both = reading(nlu, "a hotel near a good restaurant", hotels, {}, ranked=ranked)
    assert (await rt.ServiceNamed().apply(nlu, both)).predicted == hotels
    plain = reading(nlu, "anything near union square?", hotels, {}, ranked=ranked)
    assert (await rt.ServiceNamed().apply(nlu, plain)).predicted == hotels
    busy = reading(nlu, r.text, hotels, {"Hotels": "SearchHotel"}, ranked=ranked)
    assert not rt.ServiceNamed().applies(nlu, busy)


async def test_values_over_none_opens_the_task_whose_intent_takes_the_values() -> None:
    nlu = nlu_of(embedded("Movies", "Hotels", "Restaurants"), known=True)
    ranked = (
        (1.0, None),
        (0.7, ("Hotels", "SearchHotel")),
        (0.5, ("Restaurants", "FindRestaurants")),
        (0.2, ("Movies", "FindMovies")),
    )
    r = reading(nlu, "any comedies in boston?", None, {}, ranked=ranked)
    assert rt.ValuesOverNone().applies(nlu, r)
    repaired = await rt.ValuesOverNone().apply(nlu, r)
    assert repaired.predicted == ("Movies", "FindMovies")  # a genre and a city
    assert all(c is not None for _, c in repaired.ranked)
    for said in ("thanks a lot", "hmm"):  # thanks, or no value: still no task
        plain = reading(nlu, said, None, {}, ranked=ranked)
        assert (await rt.ValuesOverNone().apply(nlu, plain)).predicted is None
    busy = reading(nlu, "any comedies in boston?", None, {"Movies": "FindMovies"}, ranked=ranked)
    assert not rt.ValuesOverNone().applies(nlu, busy)  # a task under way: not an opening


async def test_unsure_names_two_services_doing_different_things_that_score_alike() -> None:
    nlu = nlu_of(embedded("Movies", "Hotels", "Restaurants"))
    nlu.thresholds = replace(nlu.thresholds, clarify_margin=0.5)
    chosen = ("Restaurants", "FindRestaurants")
    ranked = ((1.0, chosen), (0.9, ("Hotels", "SearchHotel")), (0.1, ("Movies", "FindMovies")))
    r = reading(nlu, "whats on in chicago this afternoon", chosen, {}, ranked=ranked)
    assert rt.Unsure().applies(nlu, r)
    assert (await rt.Unsure().apply(nlu, r)).choices == (chosen, ("Hotels", "SearchHotel"))
    apart = replace(r, ranked=((1.0, chosen), (0.2, ("Hotels", "SearchHotel"))))
    assert (await rt.Unsure().apply(nlu, apart)).choices == ()  # not close
    nlu.thresholds = replace(nlu.thresholds, clarify_margin=0.0)
    assert not rt.Unsure().applies(nlu, r)  # off


async def test_unsure_does_not_ask_when_a_name_only_one_service_knows_settles_it() -> None:
    """ "when is billy idol playing in vancouver": a performer the events' backend knows and
    the movies' does not; asking "events or movies?" would be no help."""
    nlu = nlu_of(embedded("Movies", "Hotels", "Restaurants"), known=True)
    nlu.thresholds = replace(nlu.thresholds, clarify_margin=0.5)
    chosen, rival = ("Restaurants", "FindRestaurants"), ("Hotels", "SearchHotel")
    ranked = ((1.0, chosen), (0.9, rival))
    r = reading(nlu, "whats on at silver lantern this afternoon", chosen, {}, ranked=ranked)
    assert (await rt.Unsure().apply(nlu, r)).choices == ()
    plain = reading(nlu, "whats on this afternoon", chosen, {}, ranked=ranked)
    assert (await rt.Unsure().apply(nlu, plain)).choices == (chosen, rival)


async def test_clarified_reads_the_answer_with_the_unclear_turn() -> None:
    nlu = nlu_of(embedded("Movies", "Hotels", "Restaurants"))
    asked = system(
        a("CLARIFY", "intent", "find a restaurant", "search for a hotel",
          canonical=("Restaurants/FindRestaurants", "Hotels/SearchHotel")),
        service="Restaurants",
    )  # fmt: skip
    unclear = user(a("INFORM", "city", "chicago"), service="Restaurants")
    unclear = unclear.model_copy(update={"utterance": "whats on in chicago"})
    for said, meant in (("the second one", "Hotels"), ("a restaurant please", "Restaurants")):
        r = reading(nlu, said, None, {}, [unclear, asked])
        assert rt.Clarified().applies(nlu, r)
        picked = await rt.Clarified().apply(nlu, r)
        assert picked.predicted is not None and picked.predicted[0] == meant
        assert picked.ranked[0][1] == picked.predicted  # its service's intents weighed after
        assert picked.text.startswith("whats on in chicago")
    assert not rt.Clarified().applies(nlu, reading(nlu, "a hotel", None, {}, [unclear]))


async def test_any_of_a_value_is_no_dontcare_for_the_slot_asked() -> None:
    nlu = nlu_of(embedded("Movies"))
    intent = ("Movies", "FindMovies")
    read = (a("INFORM", "genre", "Comedy"), a("INFORM", "city", "dontcare"))
    r = reading(nlu, "any comedies?", intent, {}, acts=read)
    assert cs.AnyOfAValue().applies(nlu, r)
    assert texts((await cs.AnyOfAValue().apply(nlu, r)).acts) == ["INFORM(genre=Comedy)"]
    for said in ("any comedy is fine", "any city, comedies please", "i dont care, any comedies"):
        kept = await cs.AnyOfAValue().apply(nlu, replace(r, text=said))
        assert "INFORM(city=dontcare)" in texts(kept.acts)


async def test_known_unread_reads_a_known_value_of_an_empty_slot() -> None:
    from tod_runtime.nlu.learned.known import KnownUnread

    known = {"city": ["Seattle", "Portland"], "hotel_name": ["Grand Star Resort", "Please"]}
    nlu = knowing(embedded("Hotels"), known)
    search = ("Hotels", "SearchHotel")
    stars = (a("INFORM", "star_rating", "4"),)
    r = reading(nlu, "then seattle, 4 star hotel", search, {}, acts=stars, filled={"star_rating"})
    assert texts((await KnownUnread().apply(nlu, r)).acts) == [
        "INFORM(star_rating=4)",
        "INFORM(city=Seattle)",
    ]
    # a slot the task holds is no gap; a task just done leaves its values to the next
    held = {"Hotels": State(active_intent="SearchHotel", slot_values={"city": ["Portland"]})}
    ongoing = replace(r, context=TurnContext(nlu.schemas, [], held))
    assert (await KnownUnread().apply(nlu, ongoing)).acts == stars
    done = system(a("NOTIFY_SUCCESS"), service="Hotels")
    after = reading(nlu, r.text, search, {}, [done], acts=stars, filled={"star_rating"})
    after = replace(after, context=TurnContext(nlu.schemas, [done], held))
    assert "INFORM(city=Seattle)" in texts((await KnownUnread().apply(nlu, after)).acts)
    # a turn putting one value in another's place gives the held slot a name of two words
    # or more; one word may be talk ("sorry, seattle instead": "Sorry" is a song somewhere)
    booking = ("Hotels", "BookHotel")
    named = {"Hotels": State(active_intent="BookHotel", slot_values={"hotel_name": ["Ace"]})}
    instead = reading(nlu, "changed my mind, the grand star resort instead", booking, {})
    instead = replace(instead, context=TurnContext(nlu.schemas, [], named))
    assert texts((await KnownUnread().apply(nlu, instead)).acts) == [
        "INFORM(hotel_name=Grand Star Resort)"
    ]
    one = replace(ongoing, text="changed my mind, seattle instead, 4 star hotel")
    assert (await KnownUnread().apply(nlu, one)).acts == stars
    # a common word is itself, though a name is spelt like it
    booking = ("Hotels", "BookHotel")
    polite = reading(nlu, "yes please, in seattle", booking, {}, acts=(), filled={"city"})
    assert (await KnownUnread().apply(nlu, polite)).acts == ()


def _routes() -> Schemas:
    find = {
        "name": "FindRoute",
        "description": "Find a route",
        "is_transactional": False,
        "required_slots": ["from_city", "to_city"],
        "optional_slots": {},
        "result_slots": ["from_city", "to_city"],
    }
    service = {
        "service_name": "Routes",
        "description": "Routes",
        "slots": [_slot("from_city", "City to leave from"), _slot("to_city", "City to go to")],
        "intents": [find],
    }
    return Schemas([ServiceSchema.model_validate(service)])


async def test_known_unread_reads_the_start_of_a_route_said_without_from() -> None:
    """ "a bus long beach to san diego": the reader took the end of the route; the other
    known value is the one empty slot's, and so is a short form right before "to"."""
    from tod_runtime.nlu.learned.known import KnownUnread

    cities = ["Long Beach", "San Diego", "New York", "Seattle"]

    nlu = knowing(_routes(), {"from_city": cities, "to_city": cities})
    find = ("Routes", "FindRoute")
    for text, end, start in (
        ("a bus long beach to san diego", "San Diego", "INFORM(from_city=Long Beach)"),
        ("round trip nyc to seattle", "Seattle", "INFORM(from_city=nyc)"),
    ):
        read = (a("INFORM", "to_city", end),)
        r = reading(nlu, text, find, {}, acts=read, filled=frozenset({"to_city"}))
        acts = (await KnownUnread().apply(nlu, r)).acts
        assert texts(acts) == [f"INFORM(to_city={end})", start], text
    assert acts[-1].canonical_values == ["New York"]
    # both ends read: nothing left to read
    both = (a("INFORM", "to_city", "Seattle"), a("INFORM", "from_city", "New York"))
    r = reading(nlu, "new york to seattle", find, {}, acts=both, filled={"to_city", "from_city"})
    assert (await KnownUnread().apply(nlu, r)).acts == both


async def test_stay_on_task_keeps_a_turn_that_names_no_other_service() -> None:
    """ "ok, at 7 pm then" mid-way through a restaurant booking stays there though
    another service's intent scored a little higher; naming the other ("a hotel") or a
    wide gap leaves it to the scorer, and so does a task just done."""
    nlu = nlu_of(embedded("Restaurants", "Hotels"))
    nlu.thresholds = replace(nlu.thresholds, service_margin=2.0)
    table, room = ("Restaurants", "ReserveRestaurant"), ("Hotels", "BookHotel")
    asked = system(a("REQUEST", "time"), service="Restaurants")
    intents = {"Restaurants": "ReserveRestaurant"}

    def read(text: str, gap: float, last: Turn = asked) -> Reading:
        r = reading(nlu, text, room, intents, [last])
        return replace(r, ranked=((0.0, room), (-gap, table)))

    r = read("ok, at 7 pm then", 1.0)
    assert rt.StayOnTask().applies(nlu, r)
    assert (await rt.StayOnTask().apply(nlu, r)).predicted == table
    assert (await rt.StayOnTask().apply(nlu, read("ok, at 7 pm then", 3.0))).predicted == room
    assert (await rt.StayOnTask().apply(nlu, read("and a hotel too", 1.0))).predicted == room
    done = system(a("NOTIFY_SUCCESS"), service="Restaurants")
    assert not rt.StayOnTask().applies(nlu, read("ok, at 7 pm then", 1.0, done))


def _sister_flights() -> Schemas:
    def service(name: str, start: str, end: str, flags: list[dict[str, Any]]) -> dict[str, Any]:
        search = {
            "name": "SearchFlight",
            "description": "Find a flight",
            "is_transactional": False,
            "required_slots": [start, end],
            "optional_slots": {},
            "result_slots": [start, end, *(f["name"] for f in flags)],
        }
        return {
            "service_name": name,
            "description": "Flights",
            "slots": [
                _slot(start, "Starting city for the trip"),
                _slot(end, "Ending city for the trip"),
                *flags,
            ],
            "intents": [search],
        }

    redeye = _slot("is_redeye", "Whether the flight is a red-eye flight", flag=True)
    return Schemas(
        [
            ServiceSchema.model_validate(service("Air_1", "origin_city", "destination_city", [])),
            ServiceSchema.model_validate(service("Air_2", "origin", "destination", [redeye])),
        ]
    )


async def test_a_feature_only_a_sister_lists_moves_the_task_there_with_its_details() -> None:
    """ "is it a red eye?" after a search on the flight service without red-eye flags moves
    to its sister, which lists them, searching from the same cities."""
    from tod_runtime.nlu.learned.sisters import SisterCarry, SisterSlot

    nlu = nlu_of(_sister_flights())
    offered = system(a("OFFER", "origin_city", "Boston"), service="Air_1")
    intents = {"Air_1": "SearchFlight"}
    r = reading(nlu, "is it a red eye?", ("Air_1", "SearchFlight"), intents, [offered])
    moved = await SisterSlot().apply(nlu, r)
    assert moved.predicted == ("Air_2", "SearchFlight")
    other = reading(nlu, "what time does it leave?", r.predicted, intents, [offered])
    assert (await SisterSlot().apply(nlu, other)).predicted == ("Air_1", "SearchFlight")
    held = State(
        active_intent="SearchFlight",
        slot_values={"origin_city": ["nyc"], "destination_city": ["Denver"]},
    )
    said = user(a("INFORM", "origin_city", "nyc", canonical=("New York",)), service="Air_1")
    moved = replace(moved, context=TurnContext(nlu.schemas, [said, offered], {"Air_1": held}))
    assert SisterCarry().applies(nlu, moved)
    carried = (await SisterCarry().apply(nlu, moved)).acts
    assert sorted(texts(carried)) == ["INFORM(destination=Denver)", "INFORM(origin=nyc)"]
    # searched as the source's act read it
    assert {x.slot: x.canonical_values for x in carried}["origin"] == ["New York"]
    assert not SisterCarry().applies(nlu, r)  # no move, nothing to carry


async def test_a_listed_value_said_with_a_word_only_a_sister_names_moves_there() -> None:
    """ "something with at least 4 stars" to the flight service without classes of 1 to 5
    stars, when its sister rates by them; "4 nights" names no stars, and "4" alone nothing."""
    from tod_runtime.nlu.learned.sisters import SisterSlot

    stars = _slot("star_class", "Star class of the flight") | {
        "is_categorical": True,
        "possible_values": ["1", "2", "3", "4", "5"],
    }
    schemas = _sister_flights()
    air_2 = schemas["Air_2"].model_dump()
    air_2["slots"] = [*air_2["slots"], stars]
    air_2["intents"][0]["result_slots"].append("star_class")
    schemas = Schemas([schemas["Air_1"], ServiceSchema.model_validate(air_2)])
    nlu = nlu_of(schemas)
    offered = system(a("OFFER", "origin_city", "Boston"), service="Air_1")
    intents = {"Air_1": "SearchFlight"}

    r = reading(
        nlu, "something with at least 4 stars", ("Air_1", "SearchFlight"), intents, [offered]
    )
    assert (await SisterSlot().apply(nlu, r)).predicted == ("Air_2", "SearchFlight")
    for text in ("for 4 nights", "4 please"):
        r = reading(nlu, text, ("Air_1", "SearchFlight"), intents, [offered])
        assert (await SisterSlot().apply(nlu, r)).predicted == ("Air_1", "SearchFlight")


async def test_a_question_about_a_detail_only_a_sister_knows_moves_the_task_there() -> None:
    """ "who is the pilot?" (or "pilot doesnt matter to me") while the flight service without
    pilots asks for a detail moves to its sister, which names them; not with a flight on
    offer (the question is about it), nor as a question that opens the task."""
    from tod_runtime.nlu.learned.sisters import SisterSlot

    pilot = _slot("pilot_name", "Name of the pilot of the flight")
    schemas = _sister_flights()
    air_2 = schemas["Air_2"].model_dump()
    air_2["slots"] = [*air_2["slots"], pilot]
    air_2["intents"][0]["result_slots"].append("pilot_name")
    nlu = nlu_of(Schemas([schemas["Air_1"], ServiceSchema.model_validate(air_2)]))
    chosen = ("Air_1", "SearchFlight")
    asking = system(a("REQUEST", "destination_city"), service="Air_1")
    offered = system(a("OFFER", "origin_city", "Boston"), service="Air_1")
    under_way = {"Air_1": "SearchFlight"}

    r = reading(nlu, "who is the pilot?", chosen, under_way, [asking])
    assert (await SisterSlot().apply(nlu, r)).predicted == ("Air_2", "SearchFlight")
    # a detail given up names it as well ("pilot doesnt matter to me")
    r = reading(nlu, "pilot doesnt matter to me", chosen, under_way, [asking])
    assert (await SisterSlot().apply(nlu, r)).predicted == ("Air_2", "SearchFlight")
    r = reading(nlu, "the pilot, tell me", chosen, under_way, [asking])
    assert (await SisterSlot().apply(nlu, r)).predicted == chosen
    for history, intents in (([offered], under_way), ([], {})):
        r = reading(nlu, "who is the pilot?", chosen, intents, history)
        assert (await SisterSlot().apply(nlu, r)).predicted == chosen


async def test_a_listed_value_only_a_sister_allows_moves_the_task_there() -> None:
    """ "business is fine" to the flight service that lists no seating classes, when its
    sister lists Economy, Premium Economy and Business: the task moves there. Not when the
    chosen service lists the value too, nor for a number."""
    from tod_runtime.nlu.learned.sisters import SisterSlot

    cabin = _slot("seating_class", "Seating class") | {
        "is_categorical": True,
        "possible_values": ["Economy", "Premium Economy", "Business"],
    }
    base = _sister_flights()
    air_2 = base["Air_2"].model_dump()
    air_2["slots"] = [*air_2["slots"], cabin]
    air_2["intents"][0]["optional_slots"] = {"seating_class": "dontcare"}
    schemas = Schemas([base["Air_1"], ServiceSchema.model_validate(air_2)])
    nlu = nlu_of(schemas)
    chosen = ("Air_1", "SearchFlight")
    offered = system(a("OFFER", "origin_city", "Boston"), service="Air_1")
    intents = {"Air_1": "SearchFlight"}
    for text in ("business is fine", "premium economy please"):
        r = reading(nlu, text, chosen, intents, [offered])
        assert (await SisterSlot().apply(nlu, r)).predicted == ("Air_2", "SearchFlight"), text
    for text in ("2 is fine", "businesses nearby"):
        r = reading(nlu, text, chosen, intents, [offered])
        assert (await SisterSlot().apply(nlu, r)).predicted == chosen, text
    # the chosen service lists Business too: nothing tells them apart
    air_1 = base["Air_1"].model_dump()
    air_1["slots"] = [*air_1["slots"], cabin]
    both = nlu_of(Schemas([ServiceSchema.model_validate(air_1), schemas["Air_2"]]))
    r = reading(both, "business is fine", chosen, intents, [offered])
    assert (await SisterSlot().apply(both, r)).predicted == chosen


async def test_a_rival_takes_the_known_values_its_reader_left_unread() -> None:
    """ "american food in walnut creek?": a reader that never saw the restaurants reads the
    city only; "american", a cuisine the backend knows, counts for the cuisine when the
    services are weighed by the values they take. Not a slot already read, nor a common
    word, nor a value two open slots know."""

    def intent(name: str, slots: list[str]) -> dict[str, Any]:
        return {"name": name, "description": name, "is_transactional": False,
                "required_slots": slots, "optional_slots": {}, "result_slots": slots}  # fmt: skip

    slots = [_slot("city", "City of the place"), _slot("cuisine", "Food served"),
             _slot("restaurant_name", "Name of the place")]  # fmt: skip
    food = ServiceSchema.model_validate(
        {"service_name": "Food_1", "description": "Places to eat", "slots": slots,
         "intents": [intent("FindFood", ["city", "cuisine"]),
                     intent("FindByName", ["city", "cuisine", "restaurant_name"])]}
    )  # fmt: skip
    known = {"cuisine": ["American", "Thai"], "city": ["Walnut Creek"], "restaurant_name": ["Thai"]}
    nlu = knowing(Schemas([food]), known)
    text = "american food in walnut creek?"
    city = [a("INFORM", "city", "Walnut Creek")]
    assert await known_unread(nlu, "Food_1", ["FindFood"], text, city) == {"cuisine"}
    both = [*city, a("INFORM", "cuisine", "American")]
    assert await known_unread(nlu, "Food_1", ["FindFood"], text, both) == set()
    thai = "thai food in walnut creek?"  # a cuisine and a restaurant's name: either
    assert await known_unread(nlu, "Food_1", ["FindByName"], thai, city) == set()


async def test_a_known_name_does_not_move_a_turn_naming_what_only_the_chosen_holds() -> None:
    """ "a red eye to springfield falls": a city only the flight service without red-eye
    flags knows moves no turn that names a red-eye, which only the chosen service holds;
    the same city said with no such detail moves it, and so does a city named "Red Eye
    Falls"."""
    schemas = _sister_flights()
    known = _Known(
        {
            "Air_1": {"destination_city": ["Springfield Falls"]},
            "Air_2": {"destination": ["Denver"]},
        }
    )
    nlu = LearnedNLU(ComponentContext(schemas=schemas, backend=known, options={}))  # type: ignore[arg-type]
    nlu.word_count = lambda word: 0  # type: ignore[method-assign]  # every word rare in talk
    chosen, other = ("Air_2", "SearchFlight"), ("Air_1", "SearchFlight")
    ranked = ((0.0, chosen), (-1.0, other))
    r = reading(nlu, "get me to springfield falls", chosen, {}, ranked=ranked)
    assert (await rt.ServiceByKnownName().apply(nlu, r)).predicted == other
    r = reading(nlu, "a red eye to springfield falls", chosen, {}, ranked=ranked)
    assert (await rt.ServiceByKnownName().apply(nlu, r)).predicted == chosen
    # words of the name itself name no detail: "red eye falls" is a city
    known.values["Air_1"]["destination_city"].append("Red Eye Falls")
    nlu._names.clear()
    r = reading(nlu, "get me to red eye falls", chosen, {}, ranked=ranked)
    assert (await rt.ServiceByKnownName().apply(nlu, r)).predicted == other


class _Known:
    """A backend that knows some values of the services' slots."""

    def __init__(self, values: dict[str, dict[str, list[str]]]) -> None:
        self.values = values

    async def entity_values(self, service: str) -> dict[str, list[str]]:
        return self.values.get(service, {})


async def test_a_task_opened_with_a_value_only_a_sister_holds_moves_there() -> None:
    """ "whats playing in berkeley? a horror movie" scored as the films streamed, which know
    no place: the cinemas' search of the same name takes the city their backend knows, and
    the genre. Not without the city, nor for a task under way."""
    from tod_runtime.nlu.learned.sisters import SisterValues

    def films(name: str, place: list[dict[str, Any]]) -> ServiceSchema:
        find = {
            "name": "FindMovies",
            "description": "Find movies by genre",
            "is_transactional": False,
            "required_slots": [s["name"] for s in place] or ["genre"],
            "optional_slots": {"genre": "dontcare"} if place else {},
            "result_slots": ["title", "genre", *(s["name"] for s in place)],
        }
        slots = [_slot("title", "Title of the movie"), _slot("genre", "Genre of the movie")]
        return ServiceSchema.model_validate(
            {"service_name": name, "description": "Movies", "slots": [*slots, *place],
             "intents": [find]}
        )  # fmt: skip

    place = [_slot("location", "City where the theatre is located")]
    schemas = Schemas([films("Stream_1", []), films("Cinema_1", place)])
    known = _Known({"Cinema_1": {"location": ["Berkeley"], "genre": ["Horror"]}})
    nlu = LearnedNLU(ComponentContext(schemas=schemas, backend=known, options={}))  # type: ignore[arg-type]
    chosen, sister = ("Stream_1", "FindMovies"), ("Cinema_1", "FindMovies")
    ranked = ((0.0, chosen), (-4.0, sister))
    text = "whats playing in berkeley? i want a horror movie"
    r = reading(nlu, text, chosen, {}, ranked=ranked)
    assert (await SisterValues().apply(nlu, r)).predicted == sister
    r = reading(nlu, "i want a horror movie", chosen, {}, ranked=ranked)
    assert (await SisterValues().apply(nlu, r)).predicted == chosen
    assert not SisterValues().applies(
        nlu, reading(nlu, text, chosen, {"Stream_1": "FindMovies"}, ranked=ranked)
    )
    far = ((0.0, chosen), (-20.0, sister))  # a sister scored far below is no rival
    assert not SisterValues().applies(nlu, reading(nlu, text, chosen, {}, ranked=far))


async def test_a_known_value_only_a_near_intent_takes_opens_that_intent() -> None:
    """ "i need to send some money to amir" scored as a balance check: Amir, a name money was
    sent to, is read for the transfer's recipient, and the transfer opens; a name the backend
    does not know is left to the reader, and so is a slot the task holds."""
    from tod_runtime.nlu.learned.known import KnownOpens

    def intent(name: str, inputs: list[str], transactional: bool) -> dict[str, Any]:
        return {"name": name, "description": name, "is_transactional": transactional,
                "required_slots": inputs, "optional_slots": {}, "result_slots": inputs}  # fmt: skip

    bank = ServiceSchema.model_validate(
        {
            "service_name": "Bank",
            "description": "Bank accounts",
            "slots": [
                _slot("account", "Account of the user"),
                _slot("recipient", "Name of the person receiving the money"),
            ],
            "intents": [
                intent("CheckBalance", ["account"], False),
                intent("TransferMoney", ["account", "recipient"], True),
            ],
        }
    )
    known = _Known({"Bank": {"recipient": ["Amir"]}})
    nlu = LearnedNLU(ComponentContext(schemas=Schemas([bank]), backend=known, options={}))  # type: ignore[arg-type]
    chosen, near = ("Bank", "CheckBalance"), ((1.4, "TransferMoney"),)
    r = reading(nlu, "i need to send some money to amir", chosen, {}, near=near)
    assert texts((await KnownOpens().apply(nlu, r)).read) == ["INFORM(recipient=Amir)"]
    opened = await rt.IntentByValues().apply(nlu, await KnownOpens().apply(nlu, r))
    assert opened.predicted == ("Bank", "TransferMoney")
    r = reading(nlu, "i need to send some money to alex", chosen, {}, near=near)
    assert not (await KnownOpens().apply(nlu, r)).read
    assert not KnownOpens().applies(nlu, reading(nlu, "send it to amir", chosen, {}))  # no rival


async def test_details_only_the_booking_takes_open_it_after_an_offer() -> None:
    """ "just 1 night, 1 room" with a hotel on offer and the search scored: the nights only
    the booking takes, so the booking opens; stars the search takes open nothing, nor does
    anything at a confirmation."""
    nlu = nlu_of(embedded("Hotels"))
    call = ServiceCall(method="SearchHotel", parameters={"city": "Chicago"})
    frame = Frame(
        service="Hotels",
        actions=[a("OFFER", "hotel_name", "Ac Hotel")],
        service_call=call,
        service_results=[{"hotel_name": "Ac Hotel", "city": "Chicago"}],
    )
    offered = Turn(speaker="SYSTEM", utterance="How about Ac Hotel?", frames=[frame])
    intents = {"Hotels": "SearchHotel"}
    said = (a("INFORM", "number_of_rooms", "1"), a("INFORM", "number_of_nights", "1"))
    r = reading(nlu, "just 1 night, 1 room", ("Hotels", "SearchHotel"), intents, [offered])
    r = replace(r, acts=said)
    opened = await rt.BookingDetails().apply(nlu, r)
    assert opened.predicted == ("Hotels", "BookHotel")
    assert texts(opened.acts)[0] == "INFORM_INTENT(intent=BookHotel)"
    stars = (a("INFORM", "star_rating", "3"),)
    assert not rt.BookingDetails().applies(nlu, replace(r, acts=stars))
    # the booking open before the offer: opened again, so the offer fills it
    booking = replace(r, predicted=("Hotels", "BookHotel"))
    assert texts((await rt.BookingDetails().apply(nlu, booking)).acts)[0] == (
        "INFORM_INTENT(intent=BookHotel)"
    )
    confirming = system(a("CONFIRM", "hotel_name", "Ac Hotel"), service="Hotels")
    r = reading(nlu, "1 night", ("Hotels", "SearchHotel"), intents, [offered, confirming])
    assert not rt.BookingDetails().applies(nlu, replace(r, acts=said))


def _therapists() -> ServiceSchema:
    find = {
        "name": "FindProvider",
        "description": "Discover a provider according to the user's conditions",
        "is_transactional": False,
        "required_slots": ["city", "type"],
        "optional_slots": {},
        "result_slots": ["city", "type"],
    }
    kind = {
        "name": "type",
        "description": "Kind of provider",
        "is_categorical": True,
        "possible_values": ["Psychologist", "Family Counselor", "Park"],
    }
    service = {
        "service_name": "Providers",
        "description": "Discover the right provider for you",
        "slots": [_slot("city", "Area to search in"), kind],
        "intents": [find],
    }
    return ServiceSchema.model_validate(service)


async def test_service_by_category_opens_the_service_listing_a_value_said() -> None:
    """ "im looking for a psychologist in san jose" scored as a restaurant search goes to
    the service one of whose categorical slots lists "Psychologist"; a value also said of
    other things ("park") or a word of the chosen service's descriptions keeps the choice."""
    services = Schemas([*embedded("Restaurants").values(), _therapists()])
    nlu = nlu_of(services)
    eat, find = ("Restaurants", "FindRestaurants"), ("Providers", "FindProvider")

    def read(text: str) -> Reading:
        r = reading(nlu, text, eat, {})
        return replace(r, ranked=((0.0, eat), (-5.0, find)))

    repair = rt.ServiceByCategory()
    r = read("im looking for a psychologist in san jose")
    assert repair.applies(nlu, r)
    assert (await repair.apply(nlu, r)).predicted == find
    assert (await repair.apply(nlu, read("a family counselor near me"))).predicted == find
    assert (await repair.apply(nlu, read("somewhere in rohnert park"))).predicted == eat
    said = "a psychologist told me to find a restaurant"
    assert (await repair.apply(nlu, read(said))).predicted == eat
    busy = reading(nlu, "a psychologist", eat, {"Restaurants": "FindRestaurants"})
    assert not repair.applies(nlu, busy)
    # a scorer unsure of its best (a logit below 0) takes any value said whole, "park" too
    unsure = replace(read("somewhere in rohnert park"), ranked=((-1.0, eat), (-5.0, find)))
    assert (await repair.apply(nlu, unsure)).predicted == find


async def test_a_number_after_a_slots_name_is_that_slots() -> None:
    """ "The star rating should be 4" had been read as the booking's number of nights, and
    the values read then chose the booking over the search."""
    from tod_runtime.nlu.learned.casual import SlotNamedBefore

    nlu = nlu_of(embedded("Hotels"))
    search = ("Hotels", "SearchHotel")
    misread = (a("INFORM", "city", "New York"), a("INFORM", "number_of_nights", "4"))
    r = reading(nlu, "In New York. The star rating should be 4.", search, {})
    r = replace(r, read=misread, near=((1.5, "BookHotel"),))
    assert SlotNamedBefore().applies(nlu, r)
    read = sorted(str(x) for x in (await SlotNamedBefore().apply(nlu, r)).read)
    assert read == ["INFORM(city=New York)", "INFORM(star_rating=4)"]
    # a number before the name, or one a noun away from it, is not the name's
    rooms = replace(r, text="2 rooms at hotel one", read=(a("INFORM", "number_of_rooms", "2"),))
    assert (await SlotNamedBefore().apply(nlu, rooms)).read == rooms.read
    big = replace(r, text="the star rating should be 9", read=())  # not among its values
    assert (await SlotNamedBefore().apply(nlu, big)).read == ()


async def test_a_decimal_after_a_free_text_slots_head_is_that_slots() -> None:
    """ "It would be great if the rating is 4.3 or better" on a house search whose rating is
    free text ("Review rating of the house"): the scorer, never fitted on the service, read
    no span of it."""
    from tod_runtime.nlu.learned.casual import SlotNamedBefore

    house = {"name": "SearchHouse", "description": "Find a house to stay in",
             "is_transactional": False, "required_slots": ["where_to"],
             "optional_slots": {"rating": "dontcare"}, "result_slots": ["where_to", "rating"]}  # fmt: skip
    service = {"service_name": "Houses", "description": "Houses to rent",
               "slots": [_slot("where_to", "Location of the house"),
                         _slot("rating", "Review rating of the house")],
               "intents": [house]}  # fmt: skip
    nlu = nlu_of(Schemas([ServiceSchema.model_validate(service)]))
    search = ("Houses", "SearchHouse")
    for text, read in (
        ("in sf, and it would be great if the rating is 4.3 or better", ["INFORM(rating=4.3)"]),
        ("a rating of at least 4.5 please", ["INFORM(rating=4.5)"]),
        ("rated 4.3 by the reviews", []),  # not after the head's last word
        ("the rating of the place near 4.3 main st", []),  # a noun between
        ("the rating is 4 or better", []),  # no decimal: the reader's to read
    ):
        r = reading(nlu, text, search, {})
        r = replace(r, read=())
        assert [str(x) for x in (await SlotNamedBefore().apply(nlu, r)).read] == read, text


def test_a_count_is_said_with_its_descriptions_words_run_together() -> None:
    """ "a 2 bedroom apartment" for SGD's Homes_1 "Number of bed rooms" (asked "how many
    bedrooms?" again and again with the homes held out of training)."""
    from tod_runtime.nlu.learned.casual import _said_with

    assert {"bed", "room", "bedroom"} <= _said_with("Number of bed rooms")
    assert "ratingstar" not in _said_with("Star rating of the hotel")
    assert "starrating" in _said_with("Star rating of the hotel")  # harmless: nobody says it


async def test_money_said_opens_the_near_intent_that_takes_it() -> None:
    """ "ok send $500 to maria from checking" after a balance was told (the bank held out of
    training): the reader gave the $500 no slot, and the balance stayed the task."""
    from tod_runtime.nlu.learned.repairs import MoneyOpens

    bank = ServiceSchema.model_validate(
        {
            "service_name": "Bank",
            "description": "Banking",
            "slots": [
                _slot("account", "Type of the account"),
                _slot("amount", "Amount of money to transfer"),
                _slot("recipient", "Name of the recipient"),
            ],
            "intents": [
                {
                    "name": "Balance",
                    "description": "Check the balance",
                    "is_transactional": False,
                    "required_slots": ["account"],
                    "optional_slots": {},
                    "result_slots": [],
                },
                {
                    "name": "Transfer",
                    "description": "Send money",
                    "is_transactional": True,
                    "required_slots": ["account", "amount", "recipient"],
                    "optional_slots": {},
                    "result_slots": [],
                },
            ],  # fmt: skip
        }
    )
    nlu = nlu_of(Schemas([bank]))
    balance = ("Bank", "Balance")
    r = reading(nlu, "ok send $500 to maria from checking", balance, {"Bank": "Balance"})
    r = replace(r, read=(a("INFORM", "account", "checking"),), near=((6.6, "Transfer"),))
    assert MoneyOpens().applies(nlu, r)
    read = [str(x) for x in (await MoneyOpens().apply(nlu, r)).read]
    assert read == ["INFORM(account=checking)", "INFORM(amount=$500)"]
    plain = replace(r, text="ok send 500 to maria from checking")  # no money said as money
    assert not MoneyOpens().applies(nlu, plain)
    alone = replace(r, near=())  # no intent near that takes money
    assert not MoneyOpens().applies(nlu, alone)


async def test_a_value_before_make_it_gives_way_to_the_one_after() -> None:
    """ "oh wait i work on the 5th, make it the 6th" (a visit, the homes held out of
    training): the reader took the first date of the turn."""
    from tod_runtime.nlu.learned.casual import CorrectedValue

    nlu = nlu_of(embedded("Restaurants"))
    book = ("Restaurants", "ReserveRestaurant")
    text = "oh wait i work on the 5th, make it the 6th"
    r = replace(reading(nlu, text, book, {}), read=(a("INFORM", "date", "the 5th"),))
    assert CorrectedValue().applies(nlu, r)
    assert texts((await CorrectedValue().apply(nlu, r)).read) == ["INFORM(date=the 6th)"]
    later = "make it the 6th instead of the 5th"  # the value read after the phrase stands
    r = replace(reading(nlu, later, book, {}), read=(a("INFORM", "date", "the 6th"),))
    assert texts((await CorrectedValue().apply(nlu, r)).read) == ["INFORM(date=the 6th)"]
    times = "not at 7pm, make it 8pm"
    r = replace(reading(nlu, times, book, {}), read=(a("INFORM", "time", "7pm"),))
    assert texts((await CorrectedValue().apply(nlu, r)).read) == ["INFORM(time=8pm)"]
    # a count corrected by a bare number, read for another slot: "2 is enough" is the seats
    seats = "a table for 3. no wait, 2 is enough"
    misread = (a("INFORM", "number_of_seats", "3"), a("INFORM", "cuisine", "2"))
    r = replace(reading(nlu, seats, book, {}), read=misread)
    fixed = texts((await CorrectedValue().apply(nlu, r)).read)
    assert fixed == ["INFORM(number_of_seats=2)"]
    other = "a table for 3. no wait, 2 reservations"  # another slot's word: no correction
    r = replace(reading(nlu, other, book, {}), read=misread)
    assert (await CorrectedValue().apply(nlu, r)).read == misread
    clock = "a party of 2 and make it for half past 1 in the afternoon"  # a time read
    timed = (a("INFORM", "number_of_seats", "2"), a("INFORM", "time", "half past 1"))
    r = replace(reading(nlu, clock, book, {}), read=timed)
    assert (await CorrectedValue().apply(nlu, r)).read == timed


def _doctors() -> Schemas:
    """A search that takes no date, and a booking that takes one."""
    intents = [
        {"name": "FindDoctor", "description": "Find a doctor", "is_transactional": False,
         "required_slots": ["city"], "optional_slots": {}, "result_slots": ["doctor", "city"]},
        {"name": "BookVisit", "description": "Book a visit", "is_transactional": True,
         "required_slots": ["doctor", "day"], "optional_slots": {}, "result_slots": []},
    ]  # fmt: skip
    service = {
        "service_name": "Doctors",
        "description": "Doctors",
        "slots": [
            _slot("city", "City of the doctor"),
            _slot("doctor", "Name of the doctor"),
            _slot("day", "Date of the visit"),
        ],
        "intents": intents,
    }
    return Schemas([ServiceSchema.model_validate(service)])


async def test_a_date_said_opens_the_near_intent_that_takes_it() -> None:
    """ "actually wednesday would be better" after a doctor was offered (the doctors held
    out of training): the search takes no date, the booking does; the reader read none."""
    nlu = nlu_of(_doctors())
    find = ("Doctors", "FindDoctor")
    r = reading(nlu, "actually wednesday would be better", find, {"Doctors": "FindDoctor"})
    r = replace(r, read=(), near=((7.2, "BookVisit"),))
    assert rp.DateOpens().applies(nlu, r)
    opening = reading(nlu, "a doctor in napa for wednesday", find, {}, read=(), near=r.near)
    assert not rp.DateOpens().applies(nlu, opening)  # a search asked for: the date kept
    assert texts((await rp.DateOpens().apply(nlu, r)).read) == ["INFORM(day=wednesday)"]
    assert not rp.DateOpens().applies(nlu, replace(r, near=()))  # nothing near takes a date
    assert not rp.DateOpens().applies(nlu, replace(r, text="any doctor is fine"))  # no date
    book = replace(r, predicted=("Doctors", "BookVisit"), near=((7.2, "FindDoctor"),))
    assert not rp.DateOpens().applies(nlu, book)  # the chosen one's own: missed_date's


def test_an_intents_nouns_hold_no_number_words() -> None:
    """ "ok that one, can i get in tmrw" said no task's noun: "one" of "one-way flights"
    had switched a doctor's booking to a flight search."""
    nlu = nlu_of(_flights())
    assert "one" not in nlu.all_nouns
    assert nlu.nouns[("Flights", "FindFlights")] == {"flight"}


def test_a_compound_holds_the_description_words_it_is_made_of() -> None:
    from tod_runtime.nlu.learned.text import compound_parts

    described = {"hair", "stylist", "round", "trip", "show", "time"}
    counts = {"cut": 12, "dresser": 1}
    assert compound_parts("haircut", described, counts) == {"hair"}
    assert compound_parts("roundtrip", described, counts) == {"round", "trip"}
    assert compound_parts("hairdresser", described, counts) == frozenset()  # "dresser": rare
    assert compound_parts("hair", described, counts) == frozenset()  # a description word
    assert compound_parts("something", described | {"some"}, {"thing": 99}) == frozenset()


async def test_the_scorer_sees_a_compounds_description_words() -> None:
    """ "i need a haircut" names the hair stylists' "hair" (a service held out of training
    had been offered as an event or a restaurant)."""
    nlu = nlu_of(embedded("Restaurants", "Hotels"))
    u = view("i need a haircut", None, [], {}).utterance
    nlu.scorer.described = nlu.scorer.described | {"hair"}
    assert "hair" in nlu.scorer._compounded(u).content
    nlu.scorer.counts = None  # no users' words given: the utterance as it is
    assert nlu.scorer._compounded(u) is u


async def test_one_after_a_determiner_is_no_count() -> None:
    """ "ok get tickets for that one" after a bus was offered is no party of one."""
    from tod_runtime.nlu.learned.reader import ONE_AFTER, Read, pronoun_one
    from tod_runtime.nlu.learned.values import value_turn

    turn = value_turn("ok get tickets for that one", [], {})
    one = Read("group_size", "1", "1", 0.9, range(5, 6))
    assert turn.tokens[5].lower == "one" and "that" in ONE_AFTER
    assert pronoun_one(turn, one)
    alone = value_turn("just one please", [], {})
    assert not pronoun_one(alone, Read("group_size", "1", "1", 0.9, range(1, 2)))


async def test_a_number_each_time_said_with_a_unit_is_no_other_counts() -> None:
    """ "just 2 nights, 2 rooms" while hotels are searched: the 2 read as a star rating goes
    (each 2 has its unit: the booking's nights and rooms), and the nights, a count of the
    booking near the search, are read."""
    nlu = nlu_of(embedded("Hotels"))
    search = ("Hotels", "SearchHotel")
    r = reading(nlu, "just 2 nights, 2 rooms", search, {"Hotels": "SearchHotel"})
    r = replace(r, near=((4.0, "BookHotel"),), acts=(a("INFORM", "star_rating", "2"),))
    assert cs.CountWithUnit().applies(nlu, r)
    assert texts((await cs.CountWithUnit().apply(nlu, r)).acts) == ["INFORM(number_of_nights=2)"]
    alone = replace(r, near=())  # no booking near: "rooms" names no count, the 2s no owner
    assert not cs.CountWithUnit().applies(nlu, alone)


async def test_after_a_task_is_called_off_a_new_one_opens() -> None:
    nlu = nlu_of(embedded("Restaurants", "Hotels"))
    dropped = system(a("CANCEL"), a("REQ_MORE"), service="Restaurants")
    current = ("Restaurants", "ReserveRestaurant")
    r = reading(
        nlu, "find me a hotel instead", current, {"Restaurants": "ReserveRestaurant"}, [dropped]
    )
    assert rt.AfterDone().applies(nlu, r)
    assert not rt.StayOnTask().applies(nlu, replace(r, predicted=("Hotels", "SearchHotel")))


def test_values_of_a_slots_possible_values_count_over_free_text() -> None:
    """ "a dermatologist in san francisco": the doctors' type allows "Dermatologist"; a
    restaurant's free-text cuisine would take any words. Unsure does not ask then."""
    nlu = nlu_of(embedded("Hotels"))
    read = [a("INFORM", "city", "Boston"), a("INFORM", "star_rating", "4")]
    assert rt._categorical(nlu, "Hotels", read) == 1
    assert rt._categorical(nlu, "Hotels", read[:1]) == 0


async def test_a_turn_about_the_offer_keeps_the_task_its_values_fit() -> None:
    """ "ok can we go to it next tuesday?" after a restaurant was offered: the booking takes
    the date as well as the films' tickets do (and "go" is a word of the films' service
    description), so the task under way keeps the turn; without the pronoun it is the
    scorer's and the descriptions' call as before."""
    nlu = nlu_of(embedded("Restaurants", "Movies"))
    offered = system(a("OFFER", "restaurant_name", "Bistro"), service="Restaurants")
    find, book = ("Restaurants", "FindRestaurants"), ("Restaurants", "ReserveRestaurant")
    tickets = ("Movies", "BuyMovieTickets")
    ranked = ((0.0, find), (-1.0, tickets), (-1.5, book))
    busy = {"Restaurants": "FindRestaurants"}
    r = reading(nlu, "ok can we go see it next tuesday?", find, busy, [offered], ranked=ranked)
    assert rt._about_the_offer(r.text, r.context, "Restaurants")
    assert await rt.service_for_values(nlu, r.text, r.context, ranked) == find
    plain = reading(nlu, "ok can we go next tuesday?", find, busy, [offered], ranked=ranked)
    assert not rt._about_the_offer(plain.text, plain.context, "Restaurants")
    idle = reading(nlu, "can we go see it next tuesday?", find, {}, [offered], ranked=ranked)
    assert not rt._about_the_offer(idle.text, idle.context, "Restaurants")  # no task under way


async def test_task_switch_follows_a_noun_only_one_task_holds_when_ranked_near() -> None:
    """ "and whats the weather like there on sunday" after a museum was offered, the weather
    held out of training: the fresh ranking still puts the museums first, but "weather" is a
    noun of one task only, which the museums' descriptions lack, ranked within the margin. A
    question about the offer no longer keeps the task when it names another."""
    nlu = nlu_of(embedded("Restaurants", "Hotels"))
    offered = system(a("OFFER", "restaurant_name", "Bistro"), service="Restaurants")
    current, hotel = ("Restaurants", "FindRestaurants"), ("Hotels", "SearchHotel")
    fresh = [(-1.5, current), (-2.6, hotel), (-4.0, None)]
    nlu.scorer.rank = lambda turn, among=None: fresh  # type: ignore[method-assign]
    text = "and is there a hotel near it on sunday?"
    r = reading(nlu, text, current, {"Restaurants": "FindRestaurants"}, [offered], ranked=fresh)
    nlu.thresholds = replace(nlu.thresholds, switch_margin=3.0)
    assert (await rt.TaskSwitch().apply(nlu, r)).predicted == hotel
    nlu.thresholds = replace(nlu.thresholds, switch_margin=1.0)  # ranked too far below
    assert (await rt.TaskSwitch().apply(nlu, r)).predicted == current
    nlu.thresholds = replace(nlu.thresholds, switch_margin=3.0)
    plain = replace(r, turn=view("and is there parking near it on sunday?", "Restaurants",
                                 [("OFFER", "restaurant_name", ["Bistro"])], r.intents))  # fmt: skip
    assert (await rt.TaskSwitch().apply(nlu, plain)).predicted == current  # no task named
    timed = replace(r, turn=view("the hotel is near, so make the time 8pm", "Restaurants",
                                 [("OFFER", "restaurant_name", ["Bistro"])], r.intents))  # fmt: skip
    assert (await rt.TaskSwitch().apply(nlu, timed)).predicted == current  # a detail changed


def test_a_yes_no_slots_description_said_as_a_phrase_is_read_true() -> None:
    """ "hey can you get me a shared ride to alcatraz" (the ride service held out of
    training): "shared ride" holds two words of "Boolean flag whether ride is shared with
    other passengers", one of them the slot's own; read True whatever the scorer says."""
    from tod_runtime.nlu.learned.reader import says_flag_phrase
    from tod_runtime.nlu.learned.values import slot_views, value_turn

    rides = ServiceSchema.model_validate(
        {
            "service_name": "Rides",
            "description": "Taxi",
            "slots": [
                _slot("destination", "Destination for taxi ride"),
                _slot("shared_ride", "Boolean flag whether ride is shared with other passengers",
                      flag=True),
            ],
            "intents": [],
        }
    )  # fmt: skip
    shared = next(v for v in slot_views(rides) if v.name == "shared_ride")
    assert says_flag_phrase(value_turn("can you get me a shared ride to alcatraz", [], {}), shared)
    assert not says_flag_phrase(value_turn("a ride to alcatraz", [], {}), shared)  # no own word
    assert not says_flag_phrase(value_turn("is it shared? the ride", [], {}), shared)  # apart
    # the own word after "with", "without" or "no": a feature had or not
    films = ServiceSchema.model_validate(
        {
            "service_name": "Films",
            "description": "Films",
            "slots": [
                _slot("title", "Title of the movie"),
                _slot("subtitles", "Whether subtitles are desired for this movie", flag=True),
            ],
            "intents": [],
        }
    )
    subtitles = next(v for v in slot_views(films) if v.name == "subtitles")
    for text in ("ok play it with subtitles", "play it, no subtitles"):
        assert says_flag_phrase(value_turn(text, [], {}), subtitles)
    assert not says_flag_phrase(value_turn("subtitles", [], {}), subtitles)
    # a question about what is on the table asks, it does not filter: by a pronoun, or by
    # "at/in/of ... that/this <thing>"
    offer = [("OFFER", "destination", ["Alcatraz"])]
    for text in ("is it a shared ride?", "is there a shared ride at that place?"):
        assert not says_flag_phrase(value_turn(text, offer, {}), shared), text
    assert says_flag_phrase(value_turn("any that have a shared ride?", offer, {}), shared)


def _weather() -> ServiceSchema:
    """A weather lookup, as SGD's Weather_1 describes it."""
    slot = lambda name, text: {"name": name, "description": text, "is_categorical": False, "possible_values": []}  # noqa: E731  # fmt: skip
    return ServiceSchema.model_validate({
        "service_name": "Weather", "description": "Check the weather for any place and any date",
        "slots": [slot("precipitation", "The possibility of rain or snow in percentage"),
                  slot("city", "Name of the city"), slot("date", "Date for the weather")],
        "intents": [{"name": "GetWeather", "description": "Get the weather of a certain location",
                     "is_transactional": False, "required_slots": ["city"],
                     "optional_slots": {"date": "2019-03-01"},
                     "result_slots": ["precipitation", "city", "date"]}],
    })  # fmt: skip


async def test_asked_elsewhere_takes_a_question_only_another_service_answers() -> None:
    """ "and will it rain in oslo on saturday?" with a restaurant on offer: "rain" is a word
    of the weather's result alone, and the turn gives the weather its city and a date."""
    services = Schemas([*embedded("Restaurants").values(), _weather()])
    nlu = knowing(services, {"city": ["Oslo"]})
    offered = system(a("OFFER", "restaurant_name", "Nopa"), service="Restaurants")
    rest = ("Restaurants", "FindRestaurants")
    for text, to in [
        ("and will it rain in oslo on saturday?", ("Weather", "GetWeather")),
        ("will it rain?", rest),  # nothing the lookup needs
        ("any italian places in oslo, even if it rains?", rest),  # no more than a search's
    ]:
        r = reading(nlu, text, rest, {"Restaurants": "FindRestaurants"}, [offered])
        assert rt.AskedElsewhere().applies(nlu, r)
        assert (await rt.AskedElsewhere().apply(nlu, r)).predicted == to, text
