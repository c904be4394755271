"""Times of day as a backend takes them: ``HH:MM`` on the 24-hour clock.

A time is a clock reading ("6", "6:30", "18:30", "six thirty") or a reading relative to an
hour ("half past 6", "quarter to 8", "20 past 7"), with an optional part of the day anywhere
around it ("pm", "p.m.", "in the evening", "evening 6", "at night", "o'clock") that moves an
hour of a 12-hour clock into the afternoon or evening. "noon", "midday" and "midnight" stand
alone. A reading with no part of the day is read on the 24-hour clock ("6:30" is 06:30).
Anything else gives None: the caller keeps the value.
"""

from __future__ import annotations

import re

from tod_runtime.values.numbers import TENS, UNITS

AFTERNOON = {"pm", "afternoon", "evening"}
MORNING = {"am", "morning"}
NIGHT = {"night", "tonight"}
FILLER = {"at", "in", "the", "around", "about", "by", "for", "oclock", "sharp", "ish", "this"}
RELATIVE = {"half": 30, "quarter": 15}

_SPELLING = [
    (re.compile(r"\b([ap])\.\s?m\b\.?"), r"\1m"),  # p.m. -> pm
    (re.compile(r"o['\"’ ]?clock"), " oclock"),  # o'clock, o"clock (SGD writes that), oclock
    (re.compile(r"(\d)([ap]m)\b"), r"\1 \2"),  # 6pm -> 6 pm
    (re.compile(r"[,;!?]"), " "),
    (re.compile(r"(\d)-ish\b|(\d)ish\b"), r"\1\2"),
]
_CLOCK = re.compile(r"(\d{1,2})(?::|\.|h)(\d{2})")


def _number(token: str) -> int | None:
    if token.isdigit():
        return int(token)
    if token in UNITS:
        return UNITS[token]
    return TENS.get(token)


def _minutes(tokens: list[str]) -> int | None:
    """Minutes written as digits or words: "30", "thirty", "forty five", "oh five"."""
    if len(tokens) == 1:
        value = _number(tokens[0])
    elif len(tokens) == 2 and tokens[0] in TENS and tokens[1] in UNITS and UNITS[tokens[1]] < 10:
        value = TENS[tokens[0]] + UNITS[tokens[1]]
    elif len(tokens) == 2 and tokens[0] in ("oh", "o") and tokens[1] in UNITS:
        value = UNITS[tokens[1]]
    else:
        return None
    return value if value is not None and 0 <= value < 60 else None


def _reading(tokens: list[str]) -> tuple[int, int] | None:
    """(hour, minute) of the tokens left once the part of the day and fillers are gone."""
    if not tokens:
        return None
    clock = _CLOCK.fullmatch(tokens[0])
    if clock and len(tokens) == 1:
        return int(clock[1]), int(clock[2])
    for word in ("past", "after", "to", "till", "before"):
        if word in tokens:
            i = tokens.index(word)
            before, hour_tokens = tokens[:i], tokens[i + 1 :]
            said_minutes = before[-1:] in (["minutes"], ["minute"], ["mins"])
            before = before[:-1] if said_minutes else before
            if before[:1] == ["a"]:
                before = before[1:]
            if not before or not hour_tokens:
                return None
            offset = RELATIVE.get(before[0]) if len(before) == 1 else None
            offset = offset if offset is not None else _minutes(before)
            hour = _number(hour_tokens[0]) if len(hour_tokens) == 1 else None
            if offset is None or hour is None or not 0 <= hour <= 24:
                return None
            if word not in ("past", "after") and before[0].isdigit() and not said_minutes:
                return None  # "6 to 7" is a range, not 6:54
            if word in ("past", "after"):
                return hour, offset
            return (hour - 1) % 24 if hour else 23, 60 - offset if offset else 0
    hour = _number(tokens[0])
    if hour is None:
        return None
    minute = _minutes(tokens[1:]) if len(tokens) > 1 else 0
    return None if minute is None else (hour, minute)


def parse_time(text: str) -> str | None:
    """``text`` as ``HH:MM`` (24-hour), else None."""
    lowered = text.strip().lower()
    for pattern, replacement in _SPELLING:
        lowered = pattern.sub(replacement, lowered)
    tokens = [t for t in lowered.split() if t not in FILLER]
    if tokens in (["noon"], ["midday"], ["12", "noon"], ["twelve", "noon"]):
        return "12:00"
    if tokens in (["midnight"], ["12", "midnight"], ["twelve", "midnight"]):
        return "00:00"
    parts = [t for t in tokens if t in AFTERNOON | MORNING | NIGHT]
    if {p in MORNING for p in parts} == {True, False}:
        return None  # "6 am in the evening"
    reading = _reading([t for t in tokens if t not in parts])
    if reading is None:
        return None
    hour, minute = _in_part(reading[0], parts[0] if parts else None), reading[1]
    if hour is None or not (0 <= hour < 24 and 0 <= minute < 60):
        return None
    return f"{hour:02d}:{minute:02d}"


def _in_part(hour: int, part: str | None) -> int | None:
    """The 24-hour hour of ``hour`` said with ``part`` of the day ("pm", "evening",
    "night"), else None ("14 am")."""
    if part is not None and hour > 12:
        return None if part in MORNING else hour
    if part in MORNING and hour == 12:
        hour = 0
    elif part in AFTERNOON and hour < 12:
        hour += 12
    elif part in NIGHT:
        hour = 0 if hour == 12 else hour + 12 if hour >= 5 else hour
    return 0 if hour == 24 else hour
