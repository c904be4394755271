"""Values as people say them: the inverse of ``normalise``.

A backend's values come in machine form (ISO dates, 24-hour times, plain digits,
``True``/``False``); a reply says them as a person would: ``say_date("2019-03-08")`` is
"Friday, March 8th", ``say_time("14:30")`` is "2:30 pm", ``say_amount("45")`` is "$45",
``say_bool("True")`` is "yes". A value that is not in machine form (already said, as in SGD's
annotations: "March 8th", "6:30 pm", "$45") comes back unchanged, so saying is idempotent.
"""

from __future__ import annotations

import re
from datetime import date

from tod_runtime.values.dates import MONTHS, WEEKDAYS

_ISO = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})(?::\d{2})?$")
_DIGITS = re.compile(r"^\d+(?:\.\d+)?$")


def ordinal(day: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st..."""
    suffix = "th" if 11 <= day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def say_date(value: str) -> str:
    """An ISO date as "Friday, March 8th"; anything else unchanged."""
    match = _ISO.match(value.strip())
    if not match:
        return value
    try:
        day = date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return value
    weekday = WEEKDAYS[day.weekday()].capitalize()
    return f"{weekday}, {MONTHS[day.month - 1].capitalize()} {ordinal(day.day)}"


def say_time(value: str) -> str:
    """A 24-hour time as "2:30 pm" ("12 pm", "6 am", "midnight"); anything else unchanged."""
    match = _CLOCK.match(value.strip())
    if not match:
        return value
    hour, minute = int(match[1]), int(match[2])
    if (hour, minute) in ((0, 0), (24, 0)):  # SGD's calendars end a day at "24:00"
        return "midnight"
    if hour > 23 or minute > 59:
        return value
    half = "am" if hour < 12 else "pm"
    hour = hour % 12 or 12
    return f"{hour} {half}" if minute == 0 else f"{hour}:{minute:02d} {half}"


def say_amount(value: str) -> str:
    """Digits as dollars: "45" -> "$45", "1730" -> "$1,730", "12.5" -> "$12.50"."""
    text = value.strip()
    if not _DIGITS.match(text):
        return value
    if "." in text:
        whole, cents = text.split(".", 1)
        cents = (cents + "00")[:2]
        return f"${int(whole):,}" + ("" if cents == "00" else f".{cents}")
    return f"${int(text):,}"


def say_bool(value: str) -> str:
    """True/False as yes/no; anything else unchanged."""
    lowered = value.strip().lower()
    return {"true": "yes", "false": "no"}.get(lowered, value)


def say_value(value: str, kind: str) -> str:
    """``value`` as said for a slot of ``kind`` (see ``values.normalise.slot_kind``)."""
    if kind == "date":
        return say_date(value)
    if kind == "time":
        return say_time(value)
    if kind == "amount":
        return say_amount(value)
    if kind == "bool":
        return say_bool(value)
    return value
