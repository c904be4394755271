"""The DST stage: user acts in, the new dialogue state per frame out."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from tod_runtime.dialogue.context import DialogueState, TrackerInput


@runtime_checkable
class Tracker(Protocol):
    """Updates the dialogue state from this turn's user acts and the previous system turn.

    Returns the full new state (every frame, changed or not). Must not mutate its input.
    """

    async def update(self, turn: TrackerInput) -> DialogueState: ...
