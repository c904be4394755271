"""Values carried between frames when the user moves to another service.

SGD users often say "a hotel there", "a cab for the three of us" or "book it for that day":
the new frame starts from the goal of the frame they were just in. Slots are matched by what
they are, read from their names and descriptions, never by service:

* a **place** (a city, town or area; a bare "location"/"destination" when the service has no
  city slot), and whether it is where a trip **starts** (an origin fills only an origin);
* a **number of people** (a numeric slot counting people, seats, tickets...);
* a **date**, which carries only into a transactional intent that takes one.

Places and party sizes carry when the frame opens; dates when the frame's intent becomes a
transaction. Values the user gives in the same turn win.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from tod_runtime.dialogue.context import DialogueState
from tod_runtime.dialogue.models import State
from tod_runtime.dst.memory import SystemMemory
from tod_runtime.schema.models import ServiceSchema, SlotSchema

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


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower().replace("_", " ")))


def is_spot(slot: SlotSchema) -> bool:
    """A street-level place the system can tell about: an address, a venue's location."""
    name = _words(slot.name)
    return (
        not slot.is_categorical
        and bool(name & {"address", "location"})
        and not ((name | _words(slot.description)) & PLACE)
    )


def kind(slot: SlotSchema, city_named: bool = True) -> str | None:
    """'origin', 'place', 'people', 'date' or None. ``city_named``: the service names its
    cities as such, so a bare "location" there is a spot (a pick-up point), not a city."""
    name = _words(slot.name)
    described = name | _words(slot.description)
    loose = not city_named and described & LOOSE_PLACE
    if not slot.is_categorical and not name & NOT_PLACE and (described & PLACE or loose):
        return "origin" if described & ORIGIN else "place"
    if not slot.is_categorical and "date" in name and not name & LATER_DATE:
        return "date"
    numeric = slot.possible_values and all(v.isdigit() for v in slot.possible_values)
    if numeric and described & TRAVELLERS:
        return "travellers"  # people on a trip: filled from any count of people
    return "people" if numeric and described & PEOPLE else None


def slot_kinds(schema: ServiceSchema) -> dict[str, str]:
    """The carry-over kind of every slot of a service that has one."""
    city_named = any(_words(s.name + " " + s.description) & PLACE for s in schema.slots)
    searched = {s for i in schema.intents if not i.is_transactional for s in i.required_slots}
    found = {}
    for slot in schema.slots:
        # Where a search looks (a hotel's or a house's location) is a city-like place even
        # when the service does not call it a city; an event's or a ride's spot is not.
        found[slot.name] = kind(slot, city_named or slot.name not in searched)
        loose = _words(slot.name + " " + slot.description) & LOOSE_PLACE
        if found[slot.name] is None and loose and not city_named and not slot.is_categorical:
            found[slot.name] = "spot"
    return {name: k for name, k in found.items() if k is not None}


def carry_over(
    frame: State,
    service: str,
    state: DialogueState,
    schemas: Mapping[str, ServiceSchema],
    memory: SystemMemory,
    *,
    opening: bool,
) -> None:
    """Fill ``frame`` from the newest other frame (the one the user was just in)."""
    others = [s for s in reversed(state) if s != service and s in schemas]
    if not others:
        return
    schema = schemas[service]
    source = {k: name for name, k in slot_kinds(schemas[others[0]]).items()}
    values = state[others[0]].slot_values
    intent = schema.intent(frame.active_intent)
    booking = set()
    if intent is not None and intent.is_transactional:
        booking = {*intent.required_slots, *intent.optional_slots}
    inputs = {s for i in schema.intents for s in (*i.required_slots, *i.optional_slots)}
    for slot, wanted in slot_kinds(schema).items():
        if slot not in inputs or slot in frame.slot_values or wanted == "people":
            continue  # a party size is the user's to give; a trip takes its company along
        if (wanted == "date" and slot not in booking) or (wanted != "date" and not opening):
            continue
        if wanted == "spot":  # a ride or an event "there": the address given for the last task
            spot = memory.mentioned_spot(others[0], schemas[others[0]]) if opening else []
            if spot:
                frame.slot_values[slot] = spot
            continue
        found = source.get(wanted) or (source.get("people") if wanted == "travellers" else None)
        if found and values.get(found):
            frame.slot_values[slot] = list(values[found])
