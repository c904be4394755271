"""Values as people say them: the inverse of normalisation."""

from __future__ import annotations

import pytest

from tod_runtime.values import say_amount, say_bool, say_date, say_time, say_value


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("2019-03-08", "Friday, March 8th"),
        ("2019-03-01", "Friday, March 1st"),
        ("2019-03-22", "Friday, March 22nd"),
        ("2019-03-13", "Wednesday, March 13th"),
        ("March 8th", "March 8th"),
        ("next Friday", "next Friday"),
        ("2019-02-30", "2019-02-30"),
    ],
)
def test_dates(value: str, said: str) -> None:
    assert say_date(value) == said


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("14:30", "2:30 pm"),
        ("09:05", "9:05 am"),
        ("12:00", "12 pm"),
        ("00:00", "midnight"),
        ("24:00", "midnight"),  # the end of a day in SGD's calendars
        ("18:00", "6 pm"),
        ("6:30 pm", "6:30 pm"),
        ("25:00", "25:00"),
    ],
)
def test_times(value: str, said: str) -> None:
    assert say_time(value) == said


def test_amounts_booleans_and_kinds() -> None:
    assert say_amount("45") == "$45"
    assert say_amount("1730") == "$1,730"
    assert say_amount("12.5") == "$12.50"
    assert say_amount("$45") == "$45"
    assert say_bool("True") == "yes" and say_bool("false") == "no"
    assert say_value("2019-03-08", "date") == "Friday, March 8th"
    assert say_value("2019-03-08", "text") == "2019-03-08"
    assert say_value("20", "count") == "20"
    assert say_value("80", "amount") == "$80"
