"""In-process session store (the default)."""

from __future__ import annotations

from collections.abc import Sequence

from tod_runtime.session import Event


class MemoryStore:
    def __init__(self) -> None:
        self._logs: dict[str, list[Event]] = {}

    async def load(self, session_id: str, start: int = 0) -> list[Event]:
        return self._logs.get(session_id, [])[start:]

    async def append(self, session_id: str, events: Sequence[Event]) -> None:
        self._logs.setdefault(session_id, []).extend(events)

    async def sessions(self) -> list[str]:
        return list(self._logs)

    async def delete(self, session_id: str) -> None:
        self._logs.pop(session_id, None)

    async def close(self) -> None:
        self._logs.clear()
