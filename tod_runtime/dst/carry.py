"""Values carried between frames when the user moves to another service."""

from __future__ import annotations

from tod_runtime.dialogue.context import DialogueState
from tod_runtime.dialogue.models import State
from tod_runtime.schema.models import ServiceSchema


def carry_over(frame: State, service: str, state: DialogueState, schema: ServiceSchema) -> None:
    """When a frame opens, the slots it shares by name with other frames' goals (a ``city``,
    a ``date``) start from the newest value the user settled on there."""
    inputs = {s for i in schema.intents for s in (*i.required_slots, *i.optional_slots)}
    for other, other_frame in reversed(state.items()):
        if other == service:
            continue
        for slot, values in other_frame.slot_values.items():
            if slot in inputs and slot not in frame.slot_values:
                frame.slot_values[slot] = list(values)
