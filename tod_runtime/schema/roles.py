"""What kind of values each slot of a service holds, decided once per schema from the slot's
possible values and description (and, where the description leaves it open, the backend's
values for the slot), never from its name or the service's identity.

``value_type``: which recogniser fits a slot's values: ``bool`` (possible values True and
False), ``number`` (categorical, all possible values digits), ``time`` or ``date`` (the
description's head, the words before its first function word, names a time or a date: "Start
time of event", "Check in date for reservation", but not "Number of days in the reservation"
or "The amount of money held in a bank account at a given time"; or, past the head, a time or
a date word points at the value itself: "Pick up car on this date", "Book table for this
time", a description ending "... flight date"; or, when the description names neither,
the backend's known values of the slot are nearly all written as dates or as times), else
``text``.

The NLU and the tracker read it from ``slot_roles(schema)``, computed on first use and kept
for the schema's lifetime; ``note_values`` adds the backend's values (the runtime calls it at
start, before any component is built). Which values carry from one service to another is learned
(``tod_runtime.dst.learned``), from the same kind of evidence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from tod_runtime.schema.models import ServiceSchema, SlotSchema

ValueType = Literal["bool", "number", "time", "date", "text"]

# General English function words: where the head of a description ("Date of ...", "Time when
# ...", "Amount of money ...") ends.
FUNCTION_WORDS = frozenset(
    {
        "of", "for", "when", "where", "which", "who", "whom", "whose", "that", "to", "at", "on",
        "with", "by", "from", "whether", "if", "or", "and", "as", "than", "about", "into", "over",
        "under", "per", "is", "are", "was", "be", "being", "been", "can", "will", "would", "should",
    }
)  # fmt: skip
TIME_HEADS = frozenset({"time", "hour"})
DATE_HEADS = frozenset({"date", "day"})
# What makes a time word an amount of time, not a moment (``_amount_of_time``): a measure
# anywhere ("duration"), or right beside the time word ("time span", "travel time"; not
# "time of travel").
_AMOUNT_OF_TIME = frozenset({"duration", "length"})
_AFTER_TIME = frozenset({"span"})
_BEFORE_TIME = frozenset({"travel"})
_UNITS_OF_TIME = frozenset({"seconds", "minutes", "hours", "days", "nights", "weeks", "months"})
# Words that make a time or date word past the head a measure or any moment, not the value:
# "miles per hour", "for each day", "at a given time", "for a particular day".
_NOT_THE_VALUE = frozenset({"a", "an", "per", "each", "every", "any"})
_WORD = re.compile(r"[a-z]+")
# How a backend writes a date and a time (``tod_runtime.values``): a slot whose known values are
# nearly all one of these holds that type, whatever its description says.
_WRITTEN: dict[ValueType, re.Pattern[str]] = {
    "date": re.compile(r"\d{4}-\d{2}-\d{2}"),
    "time": re.compile(r"\d{1,2}:\d{2}"),
}
MIN_VALUES = 3  # known values needed before they decide


@dataclass(frozen=True)
class SlotRole:
    value_type: ValueType


def description_head(description: str) -> list[str]:
    """The words of a description before its first function word ("start time of event" ->
    start, time)."""
    head = []
    for word in _WORD.findall(description.lower()):
        if word in FUNCTION_WORDS:
            break
        head.append(word)
    return head


def value_type(slot: SlotSchema, known: Sequence[str] = ()) -> ValueType:
    """The one definition of what a slot's values are. ``known``: the values a backend holds
    for the slot, which decide a type the description leaves as text ("When the car will be
    picked up?" over values such as 2019-03-05)."""
    described = _described_type(slot)
    if described != "text" or len(known) < MIN_VALUES:
        return described
    for kind, written in _WRITTEN.items():
        if sum(bool(written.fullmatch(v)) for v in known) >= 0.9 * len(known):
            return kind
    return "text"


def _described_type(slot: SlotSchema) -> ValueType:
    values = {v.lower() for v in slot.possible_values}
    if values and values <= {"true", "false"}:
        return "bool"
    if values and all(v.isdigit() for v in values):
        return "number"
    words = _WORD.findall(slot.description.lower())
    head = description_head(slot.description)
    if set(head) & TIME_HEADS:
        return "text" if _amount_of_time(words) else "time"
    if set(head) & DATE_HEADS:
        return "date"
    return _pointed_type(words[len(head) :])


def _amount_of_time(words: list[str]) -> bool:
    """Whether a description with a time word measures time ("Time span that guest is staying
    in days", "Travel time for the ride") rather than naming a moment."""
    pairs = set(zip(words, words[1:], strict=False))
    return bool(set(words) & _AMOUNT_OF_TIME) or any(
        (a == "in" and b in _UNITS_OF_TIME)
        or (a in TIME_HEADS and b in _AFTER_TIME)
        or (a in _BEFORE_TIME and b in TIME_HEADS)
        for a, b in pairs
    )


def _pointed_type(words: list[str]) -> ValueType:
    """``time`` or ``date`` when, past a description's head, a time or date word names the
    value: right after "this" or "that" ("from this date onwards"), or as the description's
    last word after a content word ("Destination-to-origin flight date"), neither of the two
    words before it making it a measure or any moment ("in miles per hour", "for a
    particular day"); else ``text``."""
    for n, word in enumerate(words):
        kind: ValueType = "time" if word in TIME_HEADS else "date" if word in DATE_HEADS else "text"
        if kind == "text":
            continue
        before = words[max(n - 2, 0) : n]
        if before and before[-1] in ("this", "that"):
            return kind
        last = n == len(words) - 1
        if (
            last
            and before
            and before[-1] not in FUNCTION_WORDS
            and not set(before) & _NOT_THE_VALUE
        ):
            return kind
    return "text"


def _compute(
    schema: ServiceSchema, known: Mapping[str, Sequence[str]] | None = None
) -> dict[str, SlotRole]:
    known = known or {}
    return {
        slot.name: SlotRole(value_type(slot, known.get(slot.name, ()))) for slot in schema.slots
    }


_CACHE: dict[int, tuple[ServiceSchema, dict[str, SlotRole]]] = {}


def slot_roles(schema: ServiceSchema) -> Mapping[str, SlotRole]:
    """Every slot's role, computed once per schema object."""
    cached = _CACHE.get(id(schema))
    if cached is None or cached[0] is not schema:
        cached = _CACHE[id(schema)] = (schema, _compute(schema))
    return cached[1]


def note_values(schema: ServiceSchema, known: Mapping[str, Sequence[str]]) -> None:
    """Let a backend's values of the schema's slots (``Backend.entity_values``) decide the
    types its descriptions leave open, for the schema's lifetime. Call it before building
    anything that reads the roles: the runtime does, once per service, at start."""
    slot_roles(schema)
    _CACHE[id(schema)][1].update(_compute(schema, known))
