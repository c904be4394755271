"""Value normalisation: surface values into the backend's form, by kind."""

from __future__ import annotations

import random
from datetime import date, timedelta

import pytest

from tod_runtime.errors import ConfigError
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.values import (
    clock_today,
    normalise_parameters,
    normalise_value,
    parse_amount,
    parse_count,
    parse_date,
    parse_time,
    slot_kind,
)

SGD_TODAY = date(2019, 3, 1)  # a Friday: SGD's reference date


@pytest.mark.parametrize(
    ("said", "iso"),
    [
        ("today", "2019-03-01"),
        ("later today", "2019-03-01"),
        ("tonight", "2019-03-01"),
        ("tomorrow", "2019-03-02"),
        ("day after tomorrow", "2019-03-03"),
        ("the day after tomorrow", "2019-03-03"),
        ("in 3 days", "2019-03-04"),
        ("3 nights after next friday", "2019-03-11"),
        ("a week after the 5th", "2019-03-12"),
        ("Friday", "2019-03-08"),  # on a Friday, a bare "Friday" is the next one
        ("next Friday", "2019-03-08"),
        ("this Friday", "2019-03-01"),
        ("next Monday", "2019-03-04"),
        ("this Saturday", "2019-03-02"),
        ("Saturday this week", "2019-03-02"),
        ("Friday next week", "2019-03-08"),
        ("Friday, next week", "2019-03-08"),
        ("Monday next week", "2019-03-04"),
        ("on Tuesday", "2019-03-05"),
        ("March 6th", "2019-03-06"),
        ("march 6", "2019-03-06"),
        ("Mar 6", "2019-03-06"),
        ("6th of March", "2019-03-06"),
        ("6 March", "2019-03-06"),
        ("the 6th of March", "2019-03-06"),
        ("March 6th, 2019", "2019-03-06"),
        ("10th of MArch 2019", "2019-03-10"),
        ("the 3rd", "2019-03-03"),
        ("3rd", "2019-03-03"),
        ("the third", "2019-03-03"),
        ("11th of this month", "2019-03-11"),
        ("the 3rd of next month", "2019-04-03"),
        ("3/6", "2019-03-06"),
        ("3/6/2019", "2019-03-06"),
        ("3/6/19", "2019-03-06"),
        ("2019-03-08", "2019-03-08"),
        ("February 3rd", "2020-02-03"),  # a date without a year is the next one
        ("saturday the 9th", "2019-03-09"),  # a weekday with its date
        ("Monday, March 4th", "2019-03-04"),
    ],
)
def test_dates_against_the_reference_day(said: str, iso: str) -> None:
    assert parse_date(said, SGD_TODAY) == date.fromisoformat(iso)


def test_relative_dates_follow_the_reference_day() -> None:
    wednesday = date(2024, 5, 15)
    assert parse_date("next Friday", wednesday) == date(2024, 5, 17)
    assert parse_date("Friday next week", wednesday) == date(2024, 5, 24)
    assert parse_date("tomorrow", date(2024, 12, 31)) == date(2025, 1, 1)
    assert parse_date("the 3rd", wednesday) == date(2024, 6, 3)  # the 3rd has passed
    assert parse_date("the 20th", wednesday) == date(2024, 5, 20)


@pytest.mark.parametrize(
    "said", ["3", "soon", "next week", "February 30th", "13/45", "Friday or Saturday", ""]
)
def test_what_is_no_date_gives_none(said: str) -> None:
    assert parse_date(said, SGD_TODAY) is None


@pytest.mark.parametrize(
    ("said", "clock"),
    [
        ("6pm", "18:00"),
        ("6 pm", "18:00"),
        ("6 p.m.", "18:00"),
        ("6:30 pm", "18:30"),
        ("6:30 PM", "18:30"),
        ("11:30 am", "11:30"),
        ("12 pm", "12:00"),
        ("12 am", "00:00"),
        ("12:30 pm", "12:30"),
        ("half past 6", "06:30"),
        ("half past 6 in the evening", "18:30"),
        ("quarter past 4 in the afternoon", "16:15"),
        ("quarter to 8", "07:45"),
        ("quarter to 8 in the evening", "19:45"),
        ("a quarter to eight pm", "19:45"),
        ("ten to eight in the evening", "19:50"),
        ("20 minutes past 7 pm", "19:20"),
        ("noon", "12:00"),
        ("midday", "12:00"),
        ("midnight", "00:00"),
        ("18:30", "18:30"),
        ("6:30", "06:30"),
        ("6 in the evening", "18:00"),
        ("6:30 in the evening", "18:30"),
        ("4 in the afternoon", "16:00"),
        ("twelve in the afternoon", "12:00"),
        ("8 in the night", "20:00"),
        ("11 at night", "23:00"),
        ("evening 6", "18:00"),
        ("afternoon 4:30", "16:30"),
        ("evening, 7:15", "19:15"),
        ("morning 9", "09:00"),
        ('6 o"clock in the evening', "18:00"),  # SGD's own spelling
        ("6 o'clock in the morning", "06:00"),
        ("six pm", "18:00"),
        ("six thirty pm", "18:30"),
        ("seven forty five in the evening", "19:45"),
        ("at 7", "07:00"),
        ("around 7pm", "19:00"),
    ],
)
def test_times_on_the_24_hour_clock(said: str, clock: str) -> None:
    assert parse_time(said) == clock


@pytest.mark.parametrize(
    "said", ["6 to 7", "6 am in the evening", "25:00", "soon", "13 am", "in the evening", ""]
)
def test_what_is_no_time_gives_none(said: str) -> None:
    assert parse_time(said) is None


@pytest.mark.parametrize(
    ("said", "digits"),
    [
        ("2", "2"),
        ("two", "2"),
        ("Two", "2"),
        ("a couple", "2"),
        ("a couple of people", "2"),
        ("for 4", "4"),
        ("for four", "4"),
        ("two people", "2"),
        ("party of five", "5"),
        ("twenty-five", "25"),
        ("one hundred and twenty", "120"),
        ("a dozen", "12"),
        ("just me", "1"),
    ],
)
def test_counts_as_digits(said: str, digits: str) -> None:
    assert parse_count(said) == digits


@pytest.mark.parametrize("said", ["4 or 5", "some", "2.5", "", "a few"])
def test_what_is_no_single_count_gives_none(said: str) -> None:
    assert parse_count(said) is None


@pytest.mark.parametrize(
    ("said", "digits"),
    [
        ("$50", "50"),
        ("50 dollars", "50"),
        ("50 bucks", "50"),
        ("USD 50", "50"),
        ("$1,730", "1730"),
        ("$1,730.00", "1730"),
        ("$12.50", "12.50"),
        ("fifty dollars", "50"),
        ("two thousand five hundred dollars", "2500"),
        ("1730", "1730"),
    ],
)
def test_amounts_as_digits(said: str, digits: str) -> None:
    assert parse_amount(said) == digits


@pytest.mark.parametrize("said", ["$50 or $60", "a lot", ""])
def test_what_is_no_single_amount_gives_none(said: str) -> None:
    assert parse_amount(said) is None


def test_iso_dates_are_fixed_points() -> None:
    rng = random.Random(0)
    start = date(1990, 1, 1)
    for _ in range(2000):
        day = start + timedelta(days=rng.randrange(60 * 365))
        today = start + timedelta(days=rng.randrange(60 * 365))
        assert normalise_value(day.isoformat(), "date", today) == day.isoformat()


def test_24_hour_times_are_fixed_points() -> None:
    for hour in range(24):
        for minute in range(60):
            clock = f"{hour:02d}:{minute:02d}"
            assert normalise_value(clock, "time", SGD_TODAY) == clock


def test_digits_and_truth_values_are_fixed_points() -> None:
    for n in range(0, 5000, 7):
        assert normalise_value(str(n), "number", SGD_TODAY) == str(n)
        assert normalise_value(str(n), "count", SGD_TODAY) == str(n)
        assert normalise_value(str(n), "amount", SGD_TODAY) == str(n)
    for truth in ("True", "False"):
        assert normalise_value(truth, "bool", SGD_TODAY) == truth


@pytest.mark.parametrize(
    ("value", "kind", "out"),
    [
        ("next Friday", "date", "2019-03-08"),
        ("half past 6 in the evening", "time", "18:30"),
        ("two", "number", "2"),
        ("$50", "amount", "50"),
        ("yes", "bool", "True"),
        ("no", "bool", "False"),
        ("sometime soon", "date", "sometime soon"),  # unreadable: unchanged
        ("dontcare", "date", "dontcare"),
        ("San Fran", "text", "San Fran"),  # text is never touched
        ("14:30", "amount", "14:30"),  # no time read as an amount of 30
    ],
)
def test_normalise_value_by_kind(value: str, kind: str, out: str) -> None:
    assert normalise_value(value, kind, SGD_TODAY) == out  # type: ignore[arg-type]


def _slot(name: str, description: str, *possible: str) -> dict[str, object]:
    return {
        "name": name,
        "description": description,
        "is_categorical": bool(possible),
        "possible_values": list(possible),
    }


SCHEMA = ServiceSchema.model_validate(
    {
        "service_name": "Things_1",
        "description": "things",
        "slots": [
            _slot("pickup_date", "Date of pickup"),
            _slot("pickup_time", "Time of pickup"),
            _slot("amount", "The amount of money to transfer"),
            _slot("total_price", "Total price"),
            _slot("rent", "Rent per month of the apartment"),
            _slot("number_of_days", "Number of days"),
            _slot("phone_number", "Phone number"),
            _slot("price_range", "Price range", "cheap", "moderate"),
            _slot("seats", "Seats", "1", "2", "3"),
            _slot("has_wifi", "Wifi", "True", "False"),
            _slot("city", "City"),
        ],
        "intents": [],
    }
)


def test_slot_kinds_come_from_the_roles_and_the_slot_names() -> None:
    kinds = {s.name: slot_kind(SCHEMA, s.name) for s in SCHEMA.slots}
    assert kinds == {
        "pickup_date": "date",
        "pickup_time": "time",
        "amount": "amount",
        "total_price": "amount",
        "rent": "amount",
        "number_of_days": "count",
        "phone_number": "text",
        "price_range": "text",
        "seats": "number",
        "has_wifi": "bool",
        "city": "text",
    }
    assert slot_kind(SCHEMA, "no_such_slot") == "text"


def test_normalise_parameters_of_a_call() -> None:
    said = {
        "pickup_date": "March 6th",
        "pickup_time": "14:30",
        "total_price": "$30",
        "number_of_days": "three",
        "seats": "two",
        "city": "Philly",
        "phone_number": "555-1234",
    }
    assert normalise_parameters(SCHEMA, said, SGD_TODAY) == {
        "pickup_date": "2019-03-06",
        "pickup_time": "14:30",
        "total_price": "30",
        "number_of_days": "3",
        "seats": "2",
        "city": "Philly",
        "phone_number": "555-1234",
    }


def test_the_clock_is_the_real_today_unless_pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOD_TODAY", raising=False)
    assert clock_today() == date.today()
    monkeypatch.setenv("TOD_TODAY", "2019-03-01")
    assert clock_today() == SGD_TODAY
    monkeypatch.setenv("TOD_TODAY", "next week")
    with pytest.raises(ConfigError, match="TOD_TODAY"):
        clock_today()
