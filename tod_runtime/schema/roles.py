"""What role each slot of a service plays, decided once per schema from the slot's name,
description and possible values (never from the service's identity).

* ``value_type``: which recogniser fits its values: ``bool``, ``number``, ``time``, ``date``
  or ``text``.
* ``carry``: what the slot holds that a user takes along to another service ("a hotel
  there", "a cab for the three of us"): a ``place`` (a city, town or area), an ``origin`` (a
  place a trip starts from), a count of ``people`` (or ``travellers`` on a trip), the
  ``date`` a task happens on (not a return or check-out date), or a ``spot`` (a street-level
  place: an address, a venue), else None.

The NLU and the tracker read both from ``slot_roles(schema)``, computed on first use and kept
for the schema's lifetime. The word lists below are the rules pipeline's; learned components
read the schema's descriptions instead.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from tod_runtime.schema.models import ServiceSchema, SlotSchema

ValueType = Literal["bool", "number", "time", "date", "text"]
CarryRole = Literal["origin", "place", "people", "travellers", "date", "spot"]

PLACE = {"city", "town", "area"}
LOOSE_PLACE = {"location", "destination"}
NOT_PLACE = {"address", "station", "airport", "name", "street"}
ORIGIN = {"from", "origin", "originates", "starting", "departing", "leaving"}
LATER_DATE = {"return", "dropoff", "end", "out", "checkout"}
PEOPLE = {
    "people", "persons", "person", "seats", "riders", "travelers", "travellers",
    "passengers", "tickets", "guests", "party",
}  # fmt: skip
TRAVELLERS = {"riders", "travelers", "travellers", "passengers"}
_WORD = re.compile(r"[a-z]+")


@dataclass(frozen=True)
class SlotRole:
    value_type: ValueType
    carry: CarryRole | None = None


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower().replace("_", " ")))


def value_type(slot: SlotSchema) -> ValueType:
    """The one definition of what a slot's values are (a date is a slot named for one)."""
    values = {v.lower() for v in slot.possible_values}
    if values and values <= {"true", "false"}:
        return "bool"
    if values and all(v.isdigit() for v in values):
        return "number"
    named = _words(slot.name)
    if "time" in named or "hour" in named:
        return "time"
    if "date" in named or "day" in named:
        return "date"
    return "text"


def is_spot(slot: SlotSchema) -> bool:
    """A street-level place the system can tell about: an address, a venue's location."""
    name = _words(slot.name)
    return (
        not slot.is_categorical
        and bool(name & {"address", "location"})
        and not ((name | _words(slot.description)) & PLACE)
    )


def _carry(slot: SlotSchema, kind: ValueType, city_named: bool) -> CarryRole | None:
    """``city_named``: the service names its cities as such, so a bare "location" there is a
    spot (a pick-up point), not a city."""
    name = _words(slot.name)
    described = name | _words(slot.description)
    loose = not city_named and described & LOOSE_PLACE
    if not slot.is_categorical and not name & NOT_PLACE and (described & PLACE or loose):
        return "origin" if described & ORIGIN else "place"
    if not slot.is_categorical and kind == "date" and not name & LATER_DATE:
        return "date"
    if kind == "number" and described & TRAVELLERS:
        return "travellers"  # people on a trip: filled from any count of people
    if kind == "number" and described & PEOPLE:
        return "people"
    return None


def _compute(schema: ServiceSchema) -> dict[str, SlotRole]:
    city_named = any(_words(s.name + " " + s.description) & PLACE for s in schema.slots)
    searched = {s for i in schema.intents if not i.is_transactional for s in i.required_slots}
    roles = {}
    for slot in schema.slots:
        kind = value_type(slot)
        # Where a search looks (a hotel's or a house's location) is a city-like place even
        # when the service does not call it a city; an event's or a ride's spot is not.
        carry = _carry(slot, kind, city_named or slot.name not in searched)
        loose = _words(slot.name + " " + slot.description) & LOOSE_PLACE
        if carry is None and loose and not city_named and not slot.is_categorical:
            carry = "spot"
        roles[slot.name] = SlotRole(kind, carry)
    return roles


_CACHE: dict[int, tuple[ServiceSchema, dict[str, SlotRole]]] = {}


def slot_roles(schema: ServiceSchema) -> Mapping[str, SlotRole]:
    """Every slot's role, computed once per schema object."""
    cached = _CACHE.get(id(schema))
    if cached is None or cached[0] is not schema:
        cached = _CACHE[id(schema)] = (schema, _compute(schema))
    return cached[1]


def carried(schema: ServiceSchema) -> dict[str, CarryRole]:
    """The slots of a service that carry over, with their role."""
    return {name: r.carry for name, r in slot_roles(schema).items() if r.carry is not None}
