"""Values carried between frames when the user moves to another service.

SGD users often say "a hotel there", "a cab for the three of us" or "book it for that day":
the new frame starts from the goal of the frame they were just in. Slots are matched by what
they are, read from their names and descriptions, never by service:

* a **place** (a city, town or area; a bare "location"/"destination" when the service has no
  city slot), and whether it is where a trip **starts** (an origin fills only an origin);
* a **number of people** (a numeric slot counting people, seats, tickets...);
* a **date**, which carries only into a transactional intent that takes one.

Places and party sizes carry when the frame opens; dates when the frame's intent becomes a
transaction. Values the user gives in the same turn win. What each slot is comes from
``schema.roles``, decided once per schema.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from tod_runtime.dialogue.context import DialogueState
from tod_runtime.dialogue.history import History
from tod_runtime.dialogue.models import State
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.schema.roles import carried, is_spot


def carry_over(
    frame: State,
    service: str,
    state: DialogueState,
    schemas: Mapping[str, ServiceSchema],
    history: History,
    *,
    opening: bool,
) -> None:
    """Fill ``frame`` from the newest other frame (the one the user was just in)."""
    others = [s for s in reversed(state) if s != service and s in schemas]
    if not others:
        return
    schema = schemas[service]
    source = {k: name for name, k in carried(schemas[others[0]]).items()}
    values = state[others[0]].slot_values
    intent = schema.intent(frame.active_intent)
    booking = set()
    if intent is not None and intent.is_transactional:
        booking = {*intent.required_slots, *intent.optional_slots}
    inputs = {s for i in schema.intents for s in (*i.required_slots, *i.optional_slots)}
    for slot, wanted in carried(schema).items():
        if slot not in inputs or slot in frame.slot_values or wanted == "people":
            continue  # a party size is the user's to give; a trip takes its company along
        if (wanted == "date" and slot not in booking) or (wanted != "date" and not opening):
            continue
        if wanted == "spot":  # a ride or an event "there": the address given for the last task
            spot = history.last_told(others[0], _spots(schemas[others[0]])) if opening else []
            if spot:
                frame.slot_values[slot] = spot
            continue
        found = source.get(wanted) or (source.get("people") if wanted == "travellers" else None)
        if found and values.get(found):
            frame.slot_values[slot] = list(values[found])


def _spots(schema: ServiceSchema) -> Callable[[str], bool]:
    """Whether a slot of ``schema`` is a street-level place (an address, a venue)."""

    def spot(slot: str) -> bool:
        spec = schema.slot(slot)
        return spec is not None and is_spot(spec)

    return spot
