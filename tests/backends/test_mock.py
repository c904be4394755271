"""The embedded services and the mock backend."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tod_runtime.backends.mock import MockBackend, is_services_folder
from tod_runtime.config import embedded_services_dir
from tod_runtime.dialogue import ServiceCall
from tod_runtime.dialogue.refusal import Refusal
from tod_runtime.errors import DataError, InputError

SERVICES = embedded_services_dir()


@pytest.fixture
def backend() -> MockBackend:
    return MockBackend(SERVICES)


def test_at_least_three_services_with_fifty_entities_each(backend: MockBackend) -> None:
    schemas = backend.schemas()
    assert {"Restaurants", "Hotels", "Movies"} <= set(schemas)
    for name in schemas:
        data = json.loads((backend.service_dirs()[name] / "db.json").read_text())
        assert len(data["entities"]) >= 50, name
        assert any(i.is_transactional for i in schemas[name].intents)


async def test_search_filters_case_insensitively(backend: MockBackend) -> None:
    rows = await backend.call(
        "Restaurants", ServiceCall(method="FindRestaurants", parameters={"city": "austin"})
    )
    assert rows and all(r["city"] == "Austin" for r in rows)
    assert "max_party_size" not in rows[0]  # rule fields never leave the backend
    dontcare = await backend.call(
        "Restaurants",
        ServiceCall(method="FindRestaurants", parameters={"city": "Austin", "cuisine": "dontcare"}),
    )
    assert dontcare == rows


TRANSACTIONS = {
    "Restaurants": (
        "ReserveRestaurant",
        {"restaurant_name": "Rustic Olive", "city": "Austin", "time": "19:00"},
        {"time": "23:00"},  # after closing_hour
    ),
    "Hotels": (
        "BookHotel",
        None,  # filled from the data: a hotel with rooms
        {"number_of_rooms": "3"},
    ),
    "Movies": ("BuyMovieTickets", None, {"number_of_tickets": "9"}),
}


def _entity_with(backend: MockBackend, service: str, field: str, minimum: int) -> dict[str, object]:
    data = json.loads((backend.service_dirs()[service] / "db.json").read_text())
    return next(e for e in data["entities"] if int(e[field]) >= minimum)


@pytest.mark.parametrize("service", sorted(TRANSACTIONS))
async def test_transactions_succeed_or_fail_by_the_data_rule(
    backend: MockBackend, service: str
) -> None:
    method, params, failing = TRANSACTIONS[service]
    if service == "Hotels":
        e = _entity_with(backend, service, "rooms_available", 1)
        params = {"hotel_name": str(e["hotel_name"]), "city": str(e["city"]),
                  "check_in_date": "tomorrow", "number_of_nights": "2"}  # fmt: skip
        failing = {"number_of_rooms": str(int(str(e["rooms_available"])) + 1)}
    if service == "Movies":
        e = _entity_with(backend, service, "seats_left", 2)
        params = {"movie_name": str(e["movie_name"]), "city": str(e["city"]),
                  "show_time": str(e["show_time"]), "number_of_tickets": "2"}  # fmt: skip
        failing = {"number_of_tickets": str(int(str(e["seats_left"])) + 1)}
    assert params is not None
    ok = await backend.call(service, ServiceCall(method=method, parameters=params))
    assert len(ok) == 1 and all(ok[0][k] == v for k, v in params.items())
    intent = backend.schemas()[service].intent(method)
    assert intent is not None
    for slot, default in intent.optional_slots.items():
        if slot not in params and default != "dontcare":
            assert ok[0][slot] == default  # defaults fill the optional slots
    bad = await backend.call(service, ServiceCall(method=method, parameters=params | failing))
    assert bad == []


async def test_unknown_service_or_method_is_an_input_error(backend: MockBackend) -> None:
    with pytest.raises(InputError, match="unknown service"):
        await backend.call("Nope", ServiceCall(method="X"))
    with pytest.raises(InputError, match="not an intent of Hotels"):
        await backend.call("Hotels", ServiceCall(method="X"))


async def test_entity_values_list_known_names(backend: MockBackend) -> None:
    values = await backend.entity_values("Restaurants")
    assert "Rustic Olive" in values["restaurant_name"]
    assert "Austin" in values["city"]


def copy_service(tmp_path: Path, db: object) -> Path:
    folder = tmp_path / "services" / "Restaurants"
    folder.mkdir(parents=True)
    (folder / "schema.json").write_text((SERVICES / "Restaurants" / "schema.json").read_text())
    (folder / "db.json").write_text(db if isinstance(db, str) else json.dumps(db))
    return folder.parent


@pytest.mark.parametrize(
    ("db", "message"),
    [
        ("{", "invalid JSON"),
        ({"entities": "nope"}, "entities"),
        ({"entities": [], "transactions": {}}, "no rule for the transactional intent"),
        (
            {"entities": [], "transactions": {"ReserveRestaurant": {"entity_match": ["colour"]}}},
            r"entity_match\[0\]",
        ),
        (
            {
                "entities": [],
                "transactions": {
                    "ReserveRestaurant": {
                        "entity_match": ["city"],
                        "fail_when": [{"param": "city", "op": "~"}],
                    }
                },
            },  # fmt: skip
            r"fail_when\[0\]\.op",
        ),
    ],
)
def test_a_bad_db_json_names_file_and_field(tmp_path: Path, db: object, message: str) -> None:
    with pytest.raises(DataError, match=message) as info:
        MockBackend(copy_service(tmp_path, db))
    assert "db.json" in str(info.value)


def test_services_folder_detection(tmp_path: Path) -> None:
    assert is_services_folder(str(SERVICES))
    assert not is_services_folder(str(tmp_path))
    assert not is_services_folder(str(tmp_path / "missing"))


async def test_a_refused_booking_names_the_input_and_the_limit(backend: MockBackend) -> None:
    data = json.loads((backend.service_dirs()["Restaurants"] / "db.json").read_text())
    e = data["entities"][0]
    base = {"restaurant_name": e["restaurant_name"], "city": e["city"], "time": "12:00"}

    async def refusal(**params: str) -> Refusal | None:
        call = ServiceCall(method="ReserveRestaurant", parameters=base | params)
        return (await backend.call_outcome("Restaurants", call)).refusal

    most = str(e["max_party_size"])
    assert await refusal(number_of_seats=str(e["max_party_size"] + 1)) == Refusal(
        slot="number_of_seats", reason="at_most", limit=most
    )
    assert await refusal(time=f"{e['closing_hour']}:30") == Refusal(
        slot="time", reason="closed", limit=f"{e['closing_hour']}:00"
    )
    assert await refusal(city="Atlantis") == Refusal(slot="city", reason="not_found")
    assert await refusal(number_of_seats=most) is None


async def test_a_search_never_offers_what_cannot_be_booked_at_all(backend: MockBackend) -> None:
    data = json.loads((backend.service_dirs()["Hotels"] / "db.json").read_text())
    full = [e for e in data["entities"] if e["rooms_available"] == 0]
    assert full  # the data holds hotels with no room left
    for city in {e["city"] for e in full}:
        call = ServiceCall(method="SearchHotel", parameters={"city": city})
        found = {r["hotel_name"] for r in await backend.call("Hotels", call)}
        assert found and not found & {e["hotel_name"] for e in full}
    e = full[0]
    book = {"hotel_name": e["hotel_name"], "city": e["city"], "check_in_date": "2026-12-01",
            "number_of_nights": "1"}  # fmt: skip
    outcome = await backend.call_outcome("Hotels", ServiceCall(method="BookHotel", parameters=book))
    assert outcome.refusal == Refusal(slot="number_of_rooms", reason="none_left", limit="0")


async def test_a_table_before_opening_time_is_refused_with_the_opening_hour(
    backend: MockBackend,
) -> None:
    data = json.loads((backend.service_dirs()["Restaurants"] / "db.json").read_text())
    e = data["entities"][0]
    params = {"restaurant_name": e["restaurant_name"], "city": e["city"], "time": "07:30"}
    call = ServiceCall(method="ReserveRestaurant", parameters=params)
    outcome = await backend.call_outcome("Restaurants", call)
    assert outcome.refusal == Refusal(slot="time", reason="opens", limit=f"{e['opening_hour']}:00")
