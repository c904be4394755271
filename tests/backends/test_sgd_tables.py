"""Backends built from an SGD split's recorded service results."""

from __future__ import annotations

import json
from pathlib import Path

from tod_runtime.backends.mock import MockBackend
from tod_runtime.backends.recorded import TURN_RECORDINGS, RecordedBackend
from tod_runtime.backends.sgd_tables import SGDTablesBackend, parse_sgd_source, record_key
from tod_runtime.config import embedded_services_dir
from tod_runtime.dialogue import ServiceCall

MINI = Path(__file__).parents[1] / "fixtures" / "sgd_mini"


def test_source_syntax() -> None:
    assert parse_sgd_source(f"{MINI}:dev") == (MINI, "dev")
    assert parse_sgd_source(f"{MINI}:test") is None
    assert parse_sgd_source(str(MINI)) is None
    assert parse_sgd_source("/nowhere:dev") is None


async def test_searches_and_transactions_from_recorded_rows() -> None:
    backend = SGDTablesBackend.from_source(f"{MINI}:dev")
    rows = await backend.call(
        "Cafes_1", ServiceCall(method="FindCafes", parameters={"city": "oslo"})
    )
    assert [r["cafe_name"] for r in rows] == ["Bean There", "Grind"]
    wifi = ServiceCall(method="FindCafes", parameters={"city": "Oslo", "has_wifi": "False"})
    assert [r["cafe_name"] for r in await backend.call("Cafes_1", wifi)] == ["Grind"]
    # A transaction nobody recorded succeeds when an entity matches, echoing the parameters.
    params = {"cafe_name": "Grind", "city": "Oslo", "time": "09:00", "party_size": "3"}
    [row] = await backend.call("Cafes_1", ServiceCall(method="ReserveCafe", parameters=params))
    assert row["phone"] == "555-0102" and row["party_size"] == "3"
    unknown = params | {"cafe_name": "Nowhere"}
    assert (
        await backend.call("Cafes_1", ServiceCall(method="ReserveCafe", parameters=unknown)) == []
    )
    known = await backend.entity_values("Cafes_1")
    assert known["cafe_name"] == ["Bean There", "Grind"]
    # a slot no search returns: the values the recorded bookings took (not the one above,
    # made in this test: the recordings are the service's data)
    assert known["time"] == ["17:00"] and known["party_size"] == ["2"]


async def test_recorded_calls_get_their_recorded_results() -> None:
    backend = RecordedBackend.from_source(f"{MINI}:dev")
    call = ServiceCall(
        method="ReserveCafe",
        parameters={"cafe_name": "Bean There", "city": "Oslo", "time": "17:00", "party_size": "2"},
    )
    recorded = backend.recordings[record_key("Cafes_1", call)]
    assert recorded[0]["time"] == "17:00"
    assert await backend.call("Cafes_1", call) == recorded


async def test_a_recording_wraps_any_backend() -> None:
    """Replaying a conversation recorded against the embedded services: recorded calls get
    their recorded results, others go to the services' own backend."""
    inner = MockBackend(embedded_services_dir())
    call = ServiceCall(method="FindRestaurants", parameters={"city": "Atlantis"})
    backend = RecordedBackend({record_key("Restaurants", call): [{"city": "Atlantis"}]}, inner)
    assert await backend.call("Restaurants", call) == [{"city": "Atlantis"}]
    other = ServiceCall(method="FindRestaurants", parameters={"city": "Austin"})
    assert await backend.call("Restaurants", other) == await inner.call("Restaurants", other)
    assert backend.service_dirs() == inner.service_dirs()


async def test_a_call_the_replayed_turn_recorded_gets_that_turns_results() -> None:
    """The same call recorded in two dialogues with other results (each SGD dialogue has its
    own alarms): while a turn is replayed, its own recording answers; else the first."""
    inner = MockBackend(embedded_services_dir())
    call = ServiceCall(method="FindRestaurants", parameters={"city": "Atlantis"})
    key = record_key("Restaurants", call)
    backend = RecordedBackend({key: [{"city": "Atlantis", "restaurant_name": "First"}]}, inner)
    token = TURN_RECORDINGS.set({key: [{"city": "Atlantis", "restaurant_name": "Own"}]})
    try:
        assert await backend.call("Restaurants", call) == [
            {"city": "Atlantis", "restaurant_name": "Own"}
        ]
        TURN_RECORDINGS.set({key: []})  # the turn recorded no results
        assert await backend.call("Restaurants", call) == []
    finally:
        TURN_RECORDINGS.reset(token)
    assert (await backend.call("Restaurants", call))[0]["restaurant_name"] == "First"


async def test_the_real_dev_split(sgd_zip: Path) -> None:
    backend = RecordedBackend.from_source(f"{sgd_zip}:dev")
    call = ServiceCall(
        method="ReserveRestaurant",
        parameters={
            "date": "2019-03-01",
            "location": "San Jose",
            "number_of_seats": "2",
            "restaurant_name": "Sino",
            "time": "11:30",
        },  # fmt: skip
    )
    [row] = await backend.call("Restaurants_2", call)
    assert row["phone_number"] == "408-247-8880"
    assert len(backend.schemas()) == 17


def _weather_split(root: Path) -> Path:
    """A one-dialogue SGD split whose only forecasts are London's for two recorded days."""
    split = root / "dev"
    split.mkdir()
    slot = lambda name: {  # noqa: E731
        "name": name, "description": name, "is_categorical": False, "possible_values": []
    }  # fmt: skip
    schema = {
        "service_name": "Weather_1",
        "description": "weather",
        "slots": [slot("city"), slot("date"), slot("temperature")],
        "intents": [
            {
                "name": "GetWeather",
                "description": "weather",
                "is_transactional": False,
                "required_slots": ["city"],
                "optional_slots": {"date": "2019-03-01"},
                "result_slots": ["city", "date", "temperature"],
            }
        ],
    }
    (split / "schema.json").write_text(json.dumps([schema]))

    def system(date: str, temperature: str) -> dict[str, object]:
        call = {"method": "GetWeather", "parameters": {"city": "London", "date": date}}
        row = {"city": "London", "date": date, "temperature": temperature}
        frame = {"service": "Weather_1", "slots": [], "actions": [], "service_call": call,
                 "service_results": [row]}  # fmt: skip
        return {"speaker": "SYSTEM", "utterance": "...", "frames": [frame]}

    dialogue = {
        "dialogue_id": "1_00000",
        "services": ["Weather_1"],
        "turns": [system("2019-03-02", "60"), system("2019-03-04", "60")],
    }
    (split / "dialogues_001.json").write_text(json.dumps([dialogue]))
    return root


async def test_a_search_for_an_unrecorded_day_finds_the_rows_of_other_days(tmp_path: Path) -> None:
    """The service runs every day; its recordings sampled some: London's forecast asked for
    an unrecorded day is a recorded one on the day asked. Another city is never London's."""
    backend = SGDTablesBackend.from_source(f"{_weather_split(tmp_path)}:dev")
    asked = ServiceCall(method="GetWeather", parameters={"city": "London", "date": "2019-03-08"})
    assert await backend.call("Weather_1", asked) == [
        {"city": "London", "date": "2019-03-08", "temperature": "60"}
    ]
    recorded = ServiceCall(method="GetWeather", parameters={"city": "london", "date": "2019-03-04"})
    assert [r["date"] for r in await backend.call("Weather_1", recorded)] == ["2019-03-04"]
    anyday = ServiceCall(method="GetWeather", parameters={"city": "London", "date": "dontcare"})
    assert len(await backend.call("Weather_1", anyday)) == 2
    elsewhere = ServiceCall(method="GetWeather", parameters={"city": "Paris", "date": "2019-03-08"})
    assert await backend.call("Weather_1", elsewhere) == []
    when_only = ServiceCall(method="GetWeather", parameters={"date": "2019-03-08"})
    assert await backend.call("Weather_1", when_only) == []


async def test_a_search_recorded_with_one_row_answers_with_one(tmp_path: Path) -> None:
    """Every recorded forecast was one row: a search that holds two answers with the first
    (a balance, the weather: not every balance the recordings hold), unless it asks for any
    value ("dontcare"), which lists what there is."""
    backend = SGDTablesBackend.from_source(f"{_weather_split(tmp_path)}:dev")
    city = ServiceCall(method="GetWeather", parameters={"city": "London"})
    assert [r["date"] for r in await backend.call("Weather_1", city)] == ["2019-03-02"]
