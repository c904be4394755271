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

The NLU and the tracker read it from ``slot_roles(schema)`` (a ``SlotRoles``, immutable),
computed on first use and kept with the schema object; ``bind_values`` decides them with the
backend's values (the runtime binds every service at start, before any component is built, and
hands the result to components as ``ComponentContext.roles``). Which values carry from one
service to another is learned (``tod_runtime.dst.learned``), from the same kind of evidence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
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
NAMING = frozenset({"name", "title"})  # what a slot says of any named thing
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


def names_entity(slot: SlotSchema | None) -> bool:
    """Whether a slot names an entity: free text whose description's head ends in a name or
    a title ("Name of the restaurant", "Title of the movie", "Movie name")."""
    if slot is None or slot.is_categorical:
        return False
    head = description_head(slot.description)
    head = head[:-1] if head[-1:] == ["in"] else head
    return bool(head) and head[-1] in NAMING


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


@dataclass(frozen=True)
class SlotRoles(Mapping[str, SlotRole]):
    """Every slot's role in one service, as decided once: from the schema, and the backend's
    values where given. Immutable: a backend's values make a new one (``bind_values``)."""

    roles: tuple[tuple[str, SlotRole], ...]

    @classmethod
    def of(
        cls, schema: ServiceSchema, known: Mapping[str, Sequence[str]] | None = None
    ) -> SlotRoles:
        known = known or {}
        return cls(
            tuple((s.name, SlotRole(value_type(s, known.get(s.name, ())))) for s in schema.slots)
        )

    @cached_property
    def _by_name(self) -> dict[str, SlotRole]:
        return dict(self.roles)

    def __getitem__(self, slot: str) -> SlotRole:
        return self._by_name[slot]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self.roles)


_KEY = "roles.slot_roles"


# the units of a count of time ("Number of nights of the stay", "Number of days ...")
TIME_UNITS = frozenset(
    {"night", "nights", "day", "days", "week", "weeks", "month", "months", "year", "years"}
)


def counts_time(words: Iterable[str]) -> bool:
    """Whether a number slot described with ``words`` counts a span of time (nights, days),
    not people or things: a party of 2 is no stay of 2 nights."""
    return not TIME_UNITS.isdisjoint(w.lower() for w in words)


def slot_roles(schema: ServiceSchema) -> SlotRoles:
    """Every slot's role, decided once per schema object: by the backend's values when the
    runtime bound them at start (``bind_values``), else by the schema alone."""
    return schema.derived(_KEY, lambda: SlotRoles.of(schema))


def bind_values(schema: ServiceSchema, known: Mapping[str, Sequence[str]]) -> SlotRoles:
    """The roles of ``schema`` with a backend's values of its slots
    (``Backend.entity_values``) deciding the types its descriptions leave open, kept with the
    schema object for its lifetime. The runtime binds each service once, at start, before it
    builds a component; training binds SGD-X's rewordings to the split's recorded values
    (``learning.reworded_variants``)."""
    roles = SlotRoles.of(schema, known)
    schema.set_derived(_KEY, roles)
    return roles
