"""The NLG stage: system acts in, an utterance out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from tod_runtime.dialogue.models import Action


@runtime_checkable
class Generator(Protocol):
    """Realises the system acts of one service frame as text."""

    async def generate(self, service: str, actions: Sequence[Action]) -> str: ...
