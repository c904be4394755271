"""What the policy reads back from the dialogue history: the last search results and how many
of them were offered, the canonical form of values, the previous system acts, what was asked."""

from __future__ import annotations

from collections.abc import Sequence

from tod_runtime.dialogue.models import DONTCARE, Action, Frame, State, Turn
from tod_runtime.schema.models import ServiceSchema


def system_frames(history: Sequence[Turn], service: str) -> list[Frame]:
    """The system frames of ``service``, newest first."""
    return [
        frame
        for turn in reversed(history)
        if turn.speaker == "SYSTEM"
        for frame in turn.frames
        if frame.service == service
    ]


def last_system_acts(history: Sequence[Turn], service: str) -> list[Action]:
    for turn in reversed(history):
        if turn.speaker == "SYSTEM":
            frame = turn.frame(service)
            return list(frame.actions) if frame else []
    return []


def asked_before(history: Sequence[Turn], service: str, slot: str) -> bool:
    """Whether the system has requested ``slot`` of ``service`` in this dialogue."""
    return any(
        a.act == "REQUEST" and a.slot == slot
        for frame in system_frames(history, service)
        for a in frame.actions
    )


def last_search(history: Sequence[Turn], service: str) -> tuple[Frame | None, int]:
    """The newest system frame holding non-transactional results, and how many system turns
    since then offered an entity (the index of the next one to offer)."""
    offered = 0
    for frame in system_frames(history, service):
        if frame.service_results is not None and frame.service_call is not None:
            return frame, offered + any(a.act == "OFFER" for a in frame.actions)
        if any(a.act == "OFFER" for a in frame.actions):
            offered += 1
    return None, 0


def last_success(
    history: Sequence[Turn], service: str, method: str
) -> tuple[dict[str, str], dict[str, str]] | None:
    """(parameters, first result) of the newest successful call of ``method``."""
    for frame in system_frames(history, service):
        call = frame.service_call
        if call is not None and call.method == method:
            if frame.service_results:
                return dict(call.parameters), frame.service_results[0]
            return None
    return None


def canonical(
    values: Sequence[str],
    slot: str,
    schema: ServiceSchema,
    history: Sequence[Turn],
    current: Sequence[Action] = (),
) -> str:
    """The canonical form of a state slot (its equivalent ``values``, best first): a
    categorical slot's possible value, else the canonical value the newest act naming one of
    the values gave (this turn's ``current`` acts first; an act of another slot, as when a
    value was carried over from another service, if no act of this slot did), else the value
    itself."""
    spec = schema.slot(slot)
    if spec is not None and spec.is_categorical:
        for value in values:
            for possible in spec.possible_values:
                if possible.lower() == value.lower():
                    return possible
    earlier = (a for t in reversed(history) for f in t.frames for a in f.actions)
    fallback = None
    for act in (*current, *earlier):
        if not act.canonical_values:
            continue
        for value in values:
            if value in act.values:
                found = act.canonical_values[act.values.index(value)]
                if act.slot == slot:
                    return found
                fallback = fallback or found
    return fallback or values[0]


def call_parameters(
    state: State,
    slots: Sequence[str],
    schema: ServiceSchema,
    history: Sequence[Turn],
    current: Sequence[Action] = (),
) -> dict[str, str]:
    """Call parameters from the state, canonical; "dontcare" slots are left out."""
    return {
        slot: canonical(state.slot_values[slot], slot, schema, history, current)
        for slot in slots
        if state.slot_values.get(slot) and state.slot_values[slot][0] != DONTCARE
    }
