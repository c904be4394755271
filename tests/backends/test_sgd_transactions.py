"""The SGD tables backend as a consistent mock service: valid transactions succeed, anything
else is refused with the input to blame."""

from __future__ import annotations

import json
from pathlib import Path

from tod_runtime.backends.base import call_outcome
from tod_runtime.backends.recorded import RecordedBackend
from tod_runtime.backends.sgd_tables import SGDTablesBackend
from tod_runtime.dialogue import ServiceCall
from tod_runtime.dialogue.refusal import Refusal

MINI = Path(__file__).parents[1] / "fixtures" / "sgd_mini"
BOOK = {"cafe_name": "Grind", "city": "Oslo", "time": "09:00", "party_size": "3"}


async def _reserve(params: dict[str, str]) -> tuple[list[dict[str, str]], Refusal | None]:
    backend = SGDTablesBackend.from_source(f"{MINI}:dev")
    outcome = await backend.call_outcome(
        "Cafes_1", ServiceCall(method="ReserveCafe", parameters=params)
    )
    return outcome.rows, outcome.refusal


async def test_a_valid_booking_nobody_recorded_echoes_its_inputs_and_the_entity() -> None:
    rows, refusal = await _reserve(BOOK)
    assert refusal is None
    assert rows == [BOOK | {"phone": "555-0102"}]


async def test_an_invalid_booking_is_refused_with_the_input_to_blame() -> None:
    assert await _reserve(BOOK | {"party_size": "5"}) == (
        [],
        Refusal(slot="party_size", reason="not_offered"),
    )
    assert await _reserve({k: v for k, v in BOOK.items() if k != "time"}) == (
        [],
        Refusal(slot="time", reason="missing"),
    )
    assert await _reserve(BOOK | {"cafe_name": "Nowhere"}) == (
        [],
        Refusal(slot="cafe_name", reason="not_found"),
    )
    # a clock time the runtime could not read into the backend's form books nothing
    assert await _reserve(BOOK | {"time": "nine-ish"}) == (
        [],
        Refusal(slot="time", reason="unreadable"),
    )


async def test_the_optional_default_is_echoed() -> None:
    rows, _ = await _reserve({k: v for k, v in BOOK.items() if k != "party_size"})
    assert rows[0]["party_size"] == "2"


def _ride_split(root: Path) -> Path:
    """A split whose one service books rides and has no search: two recorded rides."""
    split = root / "dev"
    split.mkdir()
    schema = {
        "service_name": "Rides_1",
        "description": "rides",
        "slots": [
            _open_slot("destination"),
            _open_slot("riders", values=("1", "2", "3")),
            _open_slot("fare"),
        ],
        "intents": [
            {
                "name": "GetRide",
                "description": "book a ride",
                "is_transactional": True,
                "required_slots": ["destination", "riders"],
                "optional_slots": {},
                "result_slots": ["destination", "riders", "fare"],
            }
        ],
    }
    (split / "schema.json").write_text(json.dumps([schema]))

    def system(place: str, fare: str) -> dict[str, object]:
        call = {"method": "GetRide", "parameters": {"destination": place, "riders": "1"}}
        frame = {"service": "Rides_1", "slots": [], "actions": [], "service_call": call,
                 "service_results": [{"destination": place, "riders": "1", "fare": fare}]}  # fmt: skip
        return {"speaker": "SYSTEM", "utterance": "...", "frames": [frame]}

    dialogue = {
        "dialogue_id": "1_00000",
        "services": ["Rides_1"],
        "turns": [system("1 Main St", "12.50"), system("2 Elm St", "20.00")],
    }
    (split / "dialogues_001.json").write_text(json.dumps([dialogue]))
    return root


async def test_a_transaction_without_a_search_fills_results_from_the_recordings(
    tmp_path: Path,
) -> None:
    backend = SGDTablesBackend.from_source(f"{_ride_split(tmp_path)}:dev")
    asked = ServiceCall(method="GetRide", parameters={"destination": "9 Oak Ave", "riders": "2"})
    [row] = await backend.call("Rides_1", asked)
    assert row["destination"] == "9 Oak Ave" and row["riders"] == "2"
    assert row["fare"] in ("12.50", "20.00")
    assert await backend.call("Rides_1", asked) == [row]  # the same call, the same row
    too_many = ServiceCall(method="GetRide", parameters={"destination": "x", "riders": "7"})
    outcome = await backend.call_outcome("Rides_1", too_many)
    assert outcome.rows == [] and outcome.refusal == Refusal(slot="riders", reason="not_offered")


async def test_replay_keeps_the_recorded_rows_and_passes_on_the_refusals() -> None:
    backend = RecordedBackend.from_source(f"{MINI}:dev")
    recorded = ServiceCall(
        method="ReserveCafe",
        parameters={"cafe_name": "Bean There", "city": "Oslo", "time": "17:00", "party_size": "2"},
    )
    outcome = await call_outcome(backend, "Cafes_1", recorded)
    assert outcome.rows == backend.recordings[("Cafes_1", "ReserveCafe", _key(recorded))]
    wrong = ServiceCall(method="ReserveCafe", parameters=BOOK | {"party_size": "9"})
    assert (await call_outcome(backend, "Cafes_1", wrong)).refusal == Refusal(
        slot="party_size", reason="not_offered"
    )


def _key(call: ServiceCall) -> str:
    params = {k: v.strip().lower() for k, v in call.parameters.items()}
    return json.dumps(params, sort_keys=True)


def _open_slot(name: str, description: str = "", values: tuple[str, ...] = ()) -> dict[str, object]:
    """A slot; categorical when it lists ``values``."""
    return {"name": name, "description": description or name, "is_categorical": bool(values),
            "possible_values": list(values)}  # fmt: skip


def _recorded(root: Path, schema: dict[str, object], method: str, ask: dict, rows: list) -> Path:
    """A one-dialogue dev split of ``schema``'s service whose system made one call of
    ``method`` with ``ask`` and recorded ``rows``."""
    split = root / "dev"
    split.mkdir()
    (split / "schema.json").write_text(json.dumps([schema]))
    service = schema["service_name"]
    frame = {"service": service, "slots": [], "actions": [],
             "service_call": {"method": method, "parameters": ask}, "service_results": rows}  # fmt: skip
    turn = {"speaker": "SYSTEM", "utterance": "...", "frames": [frame]}
    dialogue = {"dialogue_id": "1_00000", "services": [service], "turns": [turn]}
    (split / "dialogues_001.json").write_text(json.dumps([dialogue]))
    return root


def _bus_split(root: Path) -> Path:
    """A bus service recorded for one traveller only, with a search and a purchase."""
    route = ["from_city", "to_city", "leave_time", "travelers", "fare"]
    schema = {
        "service_name": "Bus_9",
        "description": "buses",
        "slots": [
            _open_slot("from_city", "City of departure"),
            _open_slot("to_city", "City of arrival"),
            _open_slot("leave_time", "Time of departure"),
            _open_slot("travelers", "Number of travelers"),
            _open_slot("fare", "Price of a ticket"),
        ],
        "intents": [
            {"name": "FindBus", "description": "find a bus", "is_transactional": False,
             "required_slots": ["from_city", "to_city"], "optional_slots": {"travelers": "1"},
             "result_slots": route},
            {"name": "BuyBus", "description": "buy tickets", "is_transactional": True,
             "required_slots": ["from_city", "to_city", "leave_time", "travelers"],
             "optional_slots": {}, "result_slots": route},
        ],
    }  # fmt: skip
    ask = {"from_city": "Reno", "to_city": "Elko", "travelers": "1"}
    rows = [ask | {"leave_time": t, "fare": "20"} for t in ("08:00", "09:30")]
    return _recorded(root, schema, "FindBus", ask, rows)


async def test_a_count_the_request_asks_for_is_not_a_constraint_of_the_search(
    tmp_path: Path,
) -> None:
    """Passengers, travelers: the recordings hold the count each search asked for; three
    travellers find the same buses, carrying 3, and may buy them; a time no bus leaves at
    is refused on the time."""
    backend = SGDTablesBackend.from_source(f"{_bus_split(tmp_path)}:dev")
    ask = {"from_city": "Reno", "to_city": "Elko", "travelers": "3"}
    rows = await backend.call("Bus_9", ServiceCall(method="FindBus", parameters=ask))
    assert [(r["leave_time"], r["travelers"]) for r in rows] == [("08:00", "3"), ("09:30", "3")]
    buy = ask | {"leave_time": "09:30"}
    [row] = await backend.call("Bus_9", ServiceCall(method="BuyBus", parameters=buy))
    assert row == buy | {"fare": "20"}
    late = ServiceCall(method="BuyBus", parameters=buy | {"leave_time": "23:00"})
    assert (await backend.call_outcome("Bus_9", late)).refusal == Refusal(
        slot="leave_time", reason="not_found"
    )
    elsewhere = ServiceCall(method="FindBus", parameters=ask | {"to_city": "Ely"})
    assert await backend.call("Bus_9", elsewhere) == []


def _calendar_split(root: Path) -> Path:
    """A calendar: a search listing the events of a day, and a transaction adding one (it
    takes every slot the search returns). One event recorded."""
    event = ["day", "start", "place", "title"]
    schema = {
        "service_name": "Diary_1",
        "description": "a calendar",
        "slots": [_open_slot(s) for s in event],
        "intents": [
            {"name": "ListEvents", "description": "list events", "is_transactional": False,
             "required_slots": ["day"], "optional_slots": {}, "result_slots": event},
            {"name": "AddEvent", "description": "add an event", "is_transactional": True,
             "required_slots": event, "optional_slots": {}, "result_slots": event},
        ],
    }  # fmt: skip
    row = {"day": "2019-03-06", "start": "19:00", "place": "1 Main St", "title": "Concert"}
    return _recorded(root, schema, "ListEvents", {"day": "2019-03-06"}, [row])


async def test_a_transaction_taking_every_slot_the_search_returns_adds_a_new_record(
    tmp_path: Path,
) -> None:
    """Adding an event no recording lists succeeds (it was refused as an event the search
    does not find: train/r15's AddEvent)."""
    backend = SGDTablesBackend.from_source(f"{_calendar_split(tmp_path)}:dev")
    new = {"day": "2019-03-06", "start": "16:00", "place": "9 Hill Rd", "title": "Dentist"}
    outcome = await backend.call_outcome("Diary_1", ServiceCall(method="AddEvent", parameters=new))
    assert outcome.refusal is None and outcome.rows == [new]


def _car_split(root: Path) -> Path:
    """A car rental recorded in Reno for one pick-up day and time."""
    found = ["city", "pickup_date", "pickup_time", "car_name", "office"]
    schema = {
        "service_name": "Cars_9",
        "description": "car rentals",
        "slots": [
            _open_slot("city", "City to pick the car up in"),
            _open_slot("pickup_date", "Date of pick-up"),
            _open_slot("pickup_time", "Time of pick-up"),
            _open_slot("car_name", "Name of the car"),
            _open_slot("office", "Office where the car is picked up"),
        ],
        "intents": [
            {"name": "FindCars", "description": "find cars", "is_transactional": False,
             "required_slots": ["city", "pickup_date", "pickup_time"], "optional_slots": {},
             "result_slots": found},
            {"name": "RentCar", "description": "rent a car", "is_transactional": True,
             "required_slots": ["office", "pickup_date", "pickup_time"],
             "optional_slots": {}, "result_slots": found},
        ],
    }  # fmt: skip
    ask = {"city": "Reno", "pickup_date": "2019-03-04", "pickup_time": "10:00"}
    return _recorded(
        root, schema, "FindCars", ask, [ask | {"car_name": "Golf", "office": "Airport"}]
    )


async def test_what_a_search_finds_on_an_unrecorded_day_can_be_booked(tmp_path: Path) -> None:
    """The car recorded on the 4th at 10:00 is found on the 6th at 14:00 (a date and a time
    the search takes), and the rental of it on that day succeeds; another city finds none."""
    backend = SGDTablesBackend.from_source(f"{_car_split(tmp_path)}:dev")
    ask = {"city": "Reno", "pickup_date": "2019-03-06", "pickup_time": "14:00"}
    [row] = await backend.call("Cars_9", ServiceCall(method="FindCars", parameters=ask))
    assert row == ask | {"car_name": "Golf", "office": "Airport"}
    rent = {"office": "Airport", "pickup_date": "2019-03-06", "pickup_time": "14:00"}
    [booked] = await backend.call("Cars_9", ServiceCall(method="RentCar", parameters=rent))
    assert booked["pickup_date"] == "2019-03-06" and booked["car_name"] == "Golf"
    elsewhere = ServiceCall(method="FindCars", parameters=ask | {"city": "Elko"})
    assert await backend.call("Cars_9", elsewhere) == []
    nowhere = ServiceCall(method="RentCar", parameters=rent | {"office": "Downtown"})
    refusal = (await backend.call_outcome("Cars_9", nowhere)).refusal
    assert refusal == Refusal(slot="office", reason="not_found")


async def test_an_option_the_search_cannot_be_asked_for_is_the_requests(tmp_path: Path) -> None:
    """Playing a film without subtitles, when its search shows every film with subtitles:
    the booking's option (a default, no input of the search) is what the user wants, not
    what names the film, so the film found is played as asked; another title is refused."""
    shown = ["title", "genre", "subtitles"]
    schema = {
        "service_name": "Films_1",
        "description": "films",
        "slots": [
            _open_slot("title"),
            _open_slot("genre"),
            _open_slot("subtitles", values=("True", "False")),
        ],
        "intents": [
            {"name": "FindFilms", "description": "find films", "is_transactional": False,
             "required_slots": ["genre"], "optional_slots": {}, "result_slots": shown},
            {"name": "PlayFilm", "description": "play a film", "is_transactional": True,
             "required_slots": ["title"], "optional_slots": {"subtitles": "False"},
             "result_slots": shown},
        ],
    }  # fmt: skip
    row = {"title": "After", "genre": "Romance", "subtitles": "True"}
    _recorded(tmp_path, schema, "FindFilms", {"genre": "Romance"}, [row])
    backend = SGDTablesBackend.from_source(f"{tmp_path}:dev")

    async def play(params: dict[str, str]) -> tuple[list[dict[str, str]], Refusal | None]:
        call = ServiceCall(method="PlayFilm", parameters=params)
        outcome = await backend.call_outcome("Films_1", call)
        return outcome.rows, outcome.refusal

    rows, refusal = await play({"title": "After", "subtitles": "False"})
    assert refusal is None and rows[0]["title"] == "After" and rows[0]["subtitles"] == "False"
    assert (await play({"title": "Before", "subtitles": "False"}))[1] == Refusal(
        slot="title", reason="not_found"
    )
