"""Scripted conversations with the embedded services, through the whole default pipeline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tod_runtime import Config, Runtime
from tod_runtime.cli import main

SCRIPTS = {
    "Restaurants": [
        "I want to find a restaurant",
        "in Austin",
        "Italian food please",
        "what is the phone number?",
        "sounds good, book it",
        "at 7 pm",
        "yes",
        "thanks, that's all",
    ],
    "Hotels": [
        "I need a hotel",
        "in Seattle",
        "what is the address?",
        "that works, book it",
        "tomorrow for 2 nights",
        "yes",
        "no thanks, bye",
    ],
    "Movies": [
        "find me a movie to watch",
        "in Boston",
        "something else",
        "ok buy tickets",
        "2 tickets",
        "yes please",
        "no, that is all",
    ],
}


@pytest.mark.parametrize("service", sorted(SCRIPTS))
async def test_a_scripted_conversation_completes_a_transaction(service: str) -> None:
    async with Runtime(Config()) as runtime:
        results = [await runtime.handle("u", line) for line in SCRIPTS[service]]
    acts = [[a.act for a in r.actions] for r in results]
    success = [i for i, kinds in enumerate(acts) if "NOTIFY_SUCCESS" in kinds]
    assert success, f"no NOTIFY_SUCCESS in {acts}"
    call = results[success[0]].service_call
    assert call is not None and results[success[0]].service == service
    assert runtime.schemas[service].intent(call.method).is_transactional  # type: ignore[union-attr]
    assert results[success[0]].service_results
    assert acts[-1] == ["GOODBYE"]


async def test_a_transaction_fails_by_the_data_rule() -> None:
    # Rustic Olive closes at 22:00 (its closing_hour in db.json): a later table fails.
    lines = SCRIPTS["Restaurants"][:6] + ["actually at 11 pm for 4 people", "yes"]
    async with Runtime(Config()) as runtime:
        results = [await runtime.handle("u", line) for line in lines]
    last = results[-1]
    assert last.service_call is not None
    assert last.service_call.parameters["time"] == "23:00"
    assert last.service_call.parameters["number_of_seats"] == "4"
    assert [a.act for a in last.actions][0] == "NOTIFY_FAILURE"


async def test_after_no_results_changing_another_constraint_keeps_the_one_asked_about() -> None:
    # San Jose has no restaurant in db.json: the system asks about the cuisine; the user
    # moves to Austin instead, and the search keeps Italian.
    lines = ["find me italian food in san jose", "ok what about in austin"]
    async with Runtime(Config()) as runtime:
        results = [await runtime.handle("u", line) for line in lines]
    assert [a.act for a in results[0].actions] == ["INFORM_COUNT", "REQUEST"]
    call = results[1].service_call
    assert call is not None
    assert (call.parameters["city"].lower(), call.parameters["cuisine"].lower()) == (
        "austin",
        "italian",
    )
    assert "OFFER" in [a.act for a in results[1].actions]


def test_chat_script_json_reaches_notify_success(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "hotel.txt"
    script.write_text("\n".join(SCRIPTS["Hotels"]) + "\n")
    assert main(["chat", "--script", str(script), "--json"]) == 0
    turns = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert any(a["act"] == "NOTIFY_SUCCESS" for t in turns for a in t["actions"])


async def test_chat_with_an_sgd_split(sgd_zip: Path) -> None:
    config = Config(services=f"{sgd_zip}:dev")
    async with Runtime(config) as runtime:
        assert "Restaurants_2" in runtime.schemas
        first = await runtime.handle("u", "I want to reserve a table at a restaurant")
        assert first.service == "Restaurants_2"
        assert [a.act for a in first.actions] == ["REQUEST"]
        second = await runtime.handle("u", "in San Jose")
        assert second.state["Restaurants_2"].slot_values["location"] == ["San Jose"]


async def test_one_session_holds_a_frame_per_service() -> None:
    lines = SCRIPTS["Restaurants"][:3] + ["I also need a hotel"]
    async with Runtime(Config()) as runtime:
        results = [await runtime.handle("u", line) for line in lines]
        other = await runtime.handle("someone else", "I need a hotel")
    last = results[-1]
    assert last.service == "Hotels"
    assert set(last.state) == {"Restaurants", "Hotels"}
    assert last.state["Restaurants"].slot_values["cuisine"] == ["Italian"]
    assert last.state["Hotels"].slot_values["city"] == ["Austin"]  # carried over: a hotel there
    assert set(other.state) == {"Hotels"} and other.state["Hotels"].slot_values == {}


async def test_a_booking_without_a_name_looks_one_up() -> None:
    lines = [
        "I want to book a table at a restaurant",
        "tomorrow at 7 pm for 2 people",  # asked for the name; answers with the rest
        "Austin",
        "I don't know",  # the cuisine: any
        "yes",  # the offered restaurant
        "yes",  # the confirmation
    ]
    async with Runtime(Config()) as runtime:
        results = [await runtime.handle("u", line) for line in lines]
    calls = [r.service_call for r in results if r.service_call is not None]
    assert [c.method for c in calls] == ["FindRestaurants", "ReserveRestaurant"]
    assert calls[1].parameters["time"] == "19:00"
    assert calls[1].parameters["number_of_seats"] == "2"
    done = results[-1].actions  # SGD's bare act first, then what was booked (say_booked)
    assert {a.act for a in done} == {"NOTIFY_SUCCESS"} and done[0].slot == ""
    assert ("number_of_seats", ["2"]) in [(a.slot, a.values) for a in done]


@pytest.mark.parametrize("nlu", ["learned", "rules"])
async def test_a_greeting_first_does_not_change_what_the_user_is_understood_to_want(
    nlu: str,
) -> None:
    # The greeting's turn names a service only because every turn does; the user's first
    # request after it is read as if it opened the dialogue.
    line = "I need a hotel in seattle"
    async with Runtime(Config(nlu=nlu)) as runtime:
        greeted = [await runtime.handle("greeted", text) for text in ("hi", line)][-1]
        plain = await runtime.handle("plain", line)
    assert greeted.user_acts == plain.user_acts
    assert plain.user_acts["Hotels"][0].values == ["SearchHotel"]


@pytest.mark.parametrize("nlu", ["learned", "rules"])
async def test_yes_to_anything_else_asks_what_with_what_the_system_can_do(nlu: str) -> None:
    lines = ["book a table for 2 at Royal Bistro in Boston at 7pm", "yes", "thanks", "yes"]
    async with Runtime(Config(nlu=nlu)) as runtime:
        results = [await runtime.handle("u", line) for line in lines]
    assert [a.act for a in results[2].actions] == ["REQ_MORE"]
    last = results[-1]
    assert [a.act for a in last.user_acts["Restaurants"]] == ["AFFIRM"]  # not a "no"
    assert [(a.act, a.slot) for a in last.actions] == [("REQ_MORE", "intent")]
    assert len(last.actions[0].canonical_values) == 3  # a few things, never the whole list
    assert "FindRestaurants" in last.actions[0].canonical_values
    assert last.utterance.startswith("What can I help you with? I can help you ")
