"""A task moved to the sister service that holds what the user is after.

Sister services share one world (``backends/sisters.py``): a search of one finds what the other
recorded. When every row a search found is the sister's own (``CallOutcome.provider``), the
task is the sister's: "any christian music concerts in atlanta on tuesday?" read for Events_2
finds Kirk Franklin, whom only Events_1 sells, so the search, the tickets and what the user
asks next are Events_1's. The frame moves with its values, asked slots and the turn's acts, each
slot under the sister's name; the service's own frame is emptied.
"""

from __future__ import annotations

from tod_runtime.dialogue.context import DialogueState, UserActs
from tod_runtime.dialogue.models import ServiceCall, State
from tod_runtime.dialogue.refusal import Provider


def provider_call(call: ServiceCall, provider: Provider) -> ServiceCall | None:
    """``call`` in the provider's slot names; None when one of its parameters has no pair
    (the provider's search would find what the user did not ask for)."""
    slots = provider.slots
    if not set(call.parameters) <= set(slots):
        return None
    return ServiceCall(
        method=call.method, parameters={slots[k]: v for k, v in call.parameters.items()}
    )


def moved_task(
    state: DialogueState, acts: UserActs, service: str, provider: Provider
) -> tuple[DialogueState, UserActs]:
    """The state and the turn's acts with ``service``'s task moved to the provider."""
    slots = provider.slots
    frame = state.get(service, State())
    moved = dict(state)
    moved[service] = State()
    moved[provider.service] = State(
        active_intent=frame.active_intent,
        requested_slots=[slots[s] for s in frame.requested_slots if s in slots],
        slot_values={slots[s]: v for s, v in frame.slot_values.items() if s in slots},
    )
    said = {s: list(a) for s, a in acts.items() if s != service}
    said[provider.service] = [
        a if a.slot in ("", "intent") else a.model_copy(update={"slot": slots[a.slot]})
        for a in acts.get(service, [])
        if a.slot in ("", "intent") or a.slot in slots
    ]
    return moved, said
