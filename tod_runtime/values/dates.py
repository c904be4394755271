"""Dates as a backend takes them: ISO ``YYYY-MM-DD``, read against a reference "today".

Understood, case-insensitively: ISO dates; ``M/D`` and ``M/D/YYYY`` (US order, as SGD's
users write); "today", "tonight", "later today", "tomorrow", "the day after tomorrow",
"in 3 days", "3 nights after Friday" (the end of a stay); weekdays ("Friday", "this Friday",
"next Friday", "Friday next week", "Saturday this week"); month and day ("March 6th", "Mar
6", "6th of March", "March 6th, 2019"); a day of the month ("the 3rd", "3rd of this month",
"the 3rd of next month").

Conventions (those of SGD, whose users' words and service calls agree on them): "next
Friday" and a bare "Friday" are the first Friday after today (so on a Friday, "next Friday"
is a week away); "this Friday" may be today; "Friday next week" is the Friday of the next
Monday-to-Sunday week; a date without a year is the next one on or after today, and a day
without a month is in this month unless it has passed. Anything else gives None.
"""

from __future__ import annotations

import os
import re
from datetime import date, timedelta

from tod_runtime.errors import ConfigError
from tod_runtime.values.numbers import UNITS

TODAY_ENV = "TOD_TODAY"
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)  # fmt: skip
_MONTH = {m: i for i, m in enumerate(MONTHS, 1)} | {m[:3]: i for i, m in enumerate(MONTHS, 1)}
_MONTH["sept"] = 9
_DAY_WORDS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12,
}  # fmt: skip
_WEEKDAY = {d: i for i, d in enumerate(WEEKDAYS)} | {d[:3]: i for i, d in enumerate(WEEKDAYS)}

_ISO = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
_SLASH = re.compile(r"(\d{1,2})/(\d{1,2})(?:/(\d{2}|\d{4}))?")
_ORDINAL = re.compile(r"(\d{1,2})(?:st|nd|rd|th)?")
_IN_DAYS = re.compile(r"in (\d+|[a-z]+) (day|days|week|weeks)")
_AFTER = re.compile(r"(\d+|[a-z]+) (day|days|night|nights|week|weeks) after (.+)")


def as_length_after(count: str, unit: str, start: str) -> str:
    """A date as a length after another, the form ``parse_date`` reads ("3 nights after next
    fri": the end of a stay, as the NLU composes it from "3 nights, checking in next fri")."""
    return f"{count} {unit} after {start}"


def length_after(text: str) -> bool:
    """Whether ``text`` gives a date as a length after another (``as_length_after``)."""
    return _AFTER.fullmatch(text.strip().lower()) is not None


def clock_today() -> date:
    """The real today, or ``$TOD_TODAY`` (an ISO date) when set: a backend whose data has no
    date of its own reads relative dates against this."""
    pinned = os.environ.get(TODAY_ENV, "").strip()
    if not pinned:
        return date.today()
    try:
        return date.fromisoformat(pinned)
    except ValueError:
        raise ConfigError(
            f"${TODAY_ENV} is not an ISO date: {pinned!r}", hint="e.g. TOD_TODAY=2019-03-01"
        ) from None


def _date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _upcoming(month: int, day: int, today: date) -> date | None:
    """The date ``month``/``day`` on or after today (this year, else the next)."""
    found = _date(today.year, month, day)
    if found is not None and found < today:
        found = _date(today.year + 1, month, day)
    return found


def _day_number(token: str) -> int | None:
    match = _ORDINAL.fullmatch(token)
    if match:
        return int(match[1])
    return _DAY_WORDS.get(token)


def _weekday(words: list[str], today: date) -> date | None:
    """ "Friday", "this Friday", "next Friday", "Friday next week", "Saturday this week"."""
    days = [w for w in words if w in _WEEKDAY]
    if len(days) != 1:
        return None
    target = _WEEKDAY[days[0]]
    rest = [w for w in words if w != days[0]]
    ahead = (target - today.weekday()) % 7
    if rest in (["next", "week"], ["week", "next"], ["of", "next", "week"]):
        monday = today - timedelta(days=today.weekday()) + timedelta(days=7)
        return monday + timedelta(days=target)
    if rest in (["this", "week"], ["week", "this"], ["this"]):
        return today + timedelta(days=ahead)
    if rest in ([], ["next"], ["coming"], ["upcoming"], ["on"], ["this", "coming"]):
        return today + timedelta(days=ahead or 7)
    return None


def _month_day(words: list[str], today: date) -> date | None:
    """ "March 6th", "6th of March", "March 6th 2019", "the 3rd", "3rd of this month"."""
    months = [w for w in words if w in _MONTH]
    years = [int(w) for w in words if re.fullmatch(r"\d{4}", w)]
    rest = [w for w in words if w not in months and not re.fullmatch(r"\d{4}", w)]
    rest = [w for w in rest if w not in ("the", "of", "on")]
    if len(months) > 1 or len(years) > 1:
        return None
    if not months and rest[1:] in (["this", "month"], ["next", "month"]):
        rest, month_word = rest[:1], rest[1]
    else:
        month_word = None
    if len(rest) != 1 or (day := _day_number(rest[0])) is None:
        return None
    if months:
        month = _MONTH[months[0]]
        if years:
            return _date(years[0], month, day)
        return _upcoming(month, day, today)
    if years or (month_word is None and not re.search(r"\d(st|nd|rd|th)|[a-z]", rest[0])):
        return None  # a bare number is no date
    month, year = today.month, today.year
    if month_word == "next" or (month_word is None and day < today.day):
        month, year = (1, year + 1) if month == 12 else (month + 1, year)
    return _date(year, month, day)


def parse_date(text: str, today: date) -> date | None:
    """``text`` as a date, relative words read against ``today``, else None."""
    lowered = re.sub(r"[,.!?]", " ", text.strip().lower())
    lowered = re.sub(r"\s+", " ", lowered).strip()
    if match := _ISO.fullmatch(lowered):
        return _date(int(match[1]), int(match[2]), int(match[3]))
    if match := _SLASH.fullmatch(lowered):
        month, day = int(match[1]), int(match[2])
        if match[3] is None:
            return _upcoming(month, day, today)
        year = int(match[3]) + (2000 if len(match[3]) == 2 else 0)
        return _date(year, month, day)
    words = [w for w in lowered.split() if w not in ("on", "for")]
    phrase = " ".join(w for w in words if w != "the")
    if phrase in ("today", "tonight", "later today", "now", "this evening", "this afternoon"):
        return today
    if phrase in ("tomorrow", "tomorrow morning", "tomorrow evening", "tomorrow night"):
        return today + timedelta(days=1)
    if phrase in ("day after tomorrow", "day after tomorrow's", "overmorrow"):
        return today + timedelta(days=2)
    if phrase == "yesterday":
        return today - timedelta(days=1)
    if match := _IN_DAYS.fullmatch(phrase):
        return _later(today, match[1], match[2])
    if (match := _AFTER.fullmatch(phrase)) and (start := parse_date(match[3], today)):
        return _later(start, match[1], match[2])
    return _weekday(words, today) or _month_day(words, today) or _dated_weekday(words, today)


def _later(start: date, count: str, unit: str) -> date | None:
    """``count`` days, nights or weeks after ``start``."""
    number = int(count) if count.isdigit() else 1 if count in ("a", "an") else UNITS.get(count)
    if number is None:
        return None
    return start + timedelta(days=number * (7 if unit.startswith("week") else 1))


def _dated_weekday(words: list[str], today: date) -> date | None:
    """ "Saturday the 9th", "Monday, March 4th": the date the weekday comes with."""
    if len(words) < 2 or words[0] not in _WEEKDAY:
        return None
    return _month_day(words[1:], today)
