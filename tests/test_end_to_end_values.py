"""Scripted chats through the default pipeline: what the user says ("next Friday", "March
6th", "6pm") stays in the state as said and reaches the backend in its form (ISO dates read
against the backend's day, 24-hour times)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tod_runtime import Config, Runtime, TurnResult


def calls(results: list[TurnResult]) -> list[tuple[str, dict[str, str]]]:
    return [(r.service_call.method, r.service_call.parameters) for r in results if r.service_call]


async def test_next_friday_reaches_an_sgd_restaurant_booking_as_an_iso_date(
    sgd_zip: Path,
) -> None:
    lines = ["thai food in san jose", "book a table there next Friday at 6pm", "yes", "yes"]
    async with Runtime(Config(services=f"{sgd_zip}:dev")) as runtime:
        results = [await runtime.handle("u", line) for line in lines]
    booked = [p for method, p in calls(results) if method == "ReserveRestaurant"]
    assert booked and booked[0]["date"] == "2019-03-08"  # SGD's today is Friday 2019-03-01
    assert booked[0]["time"] == "18:00"
    state = results[-1].state["Restaurants_2"].slot_values
    assert state["date"] == ["next Friday"] and state["time"] == ["6pm"]  # as said
    assert "NOTIFY_SUCCESS" in [a.act for r in results for a in r.actions]


async def test_march_6th_reaches_an_sgd_weather_search_as_an_iso_date(sgd_zip: Path) -> None:
    async with Runtime(Config(services=f"{sgd_zip}:dev")) as runtime:
        result = await runtime.handle("u", "what's the weather in London on March 6th?")
    assert result.service_call is not None
    assert result.service_call.parameters == {"city": "London", "date": "2019-03-06"}
    # never another day's forecast relabelled to the 6th (issue 39): that day's rows or none
    assert all(r["date"] == "2019-03-06" for r in result.service_results or [])
    assert result.state["Weather_1"].slot_values["date"] == ["March 6th"]


async def test_the_embedded_services_read_dates_against_the_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TOD_TODAY", "2024-05-15")  # a Wednesday
    lines = ["reserve a table at Sunny Pepper in Chicago next Friday at 6pm", "yes"]
    async with Runtime(Config()) as runtime:
        results = [await runtime.handle("u", line) for line in lines]
    [(method, params)] = calls(results)
    assert method == "ReserveRestaurant"
    assert params["date"] == "2024-05-17" and params["time"] == "18:00"
    assert "NOTIFY_SUCCESS" in [a.act for a in results[-1].actions]
