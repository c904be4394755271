"""Session stores keep each session's event log."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from tod_runtime.session import Event


@runtime_checkable
class SessionStore(Protocol):
    """Append-only event logs by session id. ``append`` adds a whole turn's events at once,
    so a session never holds half a turn. ``load(session_id, start)`` returns the events from
    position ``start`` on (all of them by default): the runtime keeps each session folded and
    asks only for what it has not seen, so a turn does not cost more as the session grows."""

    async def load(self, session_id: str, start: int = 0) -> list[Event]: ...

    async def append(self, session_id: str, events: Sequence[Event]) -> None: ...

    async def sessions(self) -> list[str]: ...

    async def delete(self, session_id: str) -> None: ...

    async def close(self) -> None: ...
