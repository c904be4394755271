"""Values carried between frames when the user moves to another service.

When a frame opens, its place and party-size slots start from the goal the user settled on
in the frame they were just in: going to a show in a city, then asking for a hotel or a bus
"there", or booking a cab "for the three of us". Slots are matched by what they are, read
from their names and descriptions (a place, and whether it is where a trip starts; a number
of people), never by service.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tod_runtime.dialogue.context import DialogueState
from tod_runtime.dialogue.models import State
from tod_runtime.schema.models import ServiceSchema, SlotSchema

PLACE = {"city", "town", "area"}
LOOSE_PLACE = {"location", "destination"}
NOT_PLACE = {"address", "station", "airport", "name", "street"}
ORIGIN = {"from", "origin", "originates", "starting", "departing", "leaving"}
PEOPLE = {
    "people", "persons", "person", "seats", "riders", "travelers", "travellers",
    "passengers", "tickets", "guests", "party",
}  # fmt: skip
_WORD = re.compile(r"[a-z]+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower().replace("_", " ")))


def kind(slot: SlotSchema, city_named: bool = True) -> str | None:
    """'origin' or 'place' for a city-like slot (a trip's start, or any other), 'people' for
    a number of people, else None. ``city_named``: the service names its cities as such, so
    a bare "location" or "destination" is a spot (a pick-up point), not a city."""
    name = _words(slot.name)
    described = name | _words(slot.description)
    if not slot.is_categorical and not name & NOT_PLACE:
        if described & PLACE or (not city_named and name & LOOSE_PLACE):
            return "origin" if described & ORIGIN else "place"
    if slot.possible_values and all(v.isdigit() for v in slot.possible_values):
        if described & PEOPLE:
            return "people"
    return None


def slot_kinds(schema: ServiceSchema) -> dict[str, str]:
    """The carry-over kind of every slot of a service that has one."""
    city_named = any(_words(s.name + " " + s.description) & PLACE for s in schema.slots)
    found = {s.name: kind(s, city_named) for s in schema.slots}
    return {name: k for name, k in found.items() if k is not None}


def _inputs(schema: ServiceSchema) -> Iterable[SlotSchema]:
    names = {s for i in schema.intents for s in (*i.required_slots, *i.optional_slots)}
    return [s for s in schema.slots if s.name in names]


def carry_over(
    frame: State,
    service: str,
    state: DialogueState,
    schemas: dict[str, ServiceSchema] | object,
    schema: ServiceSchema,
) -> None:
    """Fill a new frame's place and people slots from the newest other frame that has them."""
    lookup = schemas if isinstance(schemas, dict) else {}
    for other in reversed(list(state)):
        if other == service or other not in lookup:
            continue
        source = {k: name for name, k in slot_kinds(lookup[other]).items()}
        values = state[other].slot_values
        kinds = slot_kinds(schema)
        for slot in _inputs(schema):
            wanted = kinds.get(slot.name)
            if wanted is None or slot.name in frame.slot_values:
                continue
            found = source.get(wanted)  # a trip's origin only from another origin
            if found and values.get(found):
                frame.slot_values[slot.name] = list(values[found])
        return  # only the frame the user was just in
