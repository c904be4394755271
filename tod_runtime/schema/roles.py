"""What kind of values each slot of a service holds, decided once per schema from the slot's
possible values and description, never from its name or the service's identity.

``value_type``: which recogniser fits a slot's values: ``bool`` (possible values True and
False), ``number`` (categorical, all possible values digits), ``time`` or ``date`` (the
description's head, the words before its first function word, names a time or a date: "Start
time of event", "Check in date for reservation", but not "Number of days in the reservation"
or "The amount of money held in a bank account at a given time"), else ``text``.

The NLU and the tracker read it from ``slot_roles(schema)``, computed on first use and kept
for the schema's lifetime. Which values carry from one service to another is learned
(``tod_runtime.dst.learned``), from the same kind of evidence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
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
_WORD = re.compile(r"[a-z]+")


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


def value_type(slot: SlotSchema) -> ValueType:
    """The one definition of what a slot's values are."""
    values = {v.lower() for v in slot.possible_values}
    if values and values <= {"true", "false"}:
        return "bool"
    if values and all(v.isdigit() for v in values):
        return "number"
    head = set(description_head(slot.description))
    if head & TIME_HEADS:
        return "time"
    if head & DATE_HEADS:
        return "date"
    return "text"


def _compute(schema: ServiceSchema) -> dict[str, SlotRole]:
    return {slot.name: SlotRole(value_type(slot)) for slot in schema.slots}


_CACHE: dict[int, tuple[ServiceSchema, dict[str, SlotRole]]] = {}


def slot_roles(schema: ServiceSchema) -> Mapping[str, SlotRole]:
    """Every slot's role, computed once per schema object."""
    cached = _CACHE.get(id(schema))
    if cached is None or cached[0] is not schema:
        cached = _CACHE[id(schema)] = (schema, _compute(schema))
    return cached[1]
