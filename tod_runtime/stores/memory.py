"""In-process session store (the default).

Each event is kept as its JSON, as the SQLite and Redis stores keep it: a stored event cannot
be changed through a reference a stage still holds, and a log of bytes is nothing the garbage
collector has to walk (a full collection costs time in proportion to the objects alive, so a
process holding many long sessions as objects pauses longer and longer). The runtime folds
the events it appends itself, so a turn reads nothing back."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from tod_runtime.session import EVENT_ADAPTER, Event
from tod_runtime.stores.base import Answer, conflict


class MemoryStore:
    def __init__(self) -> None:
        self._logs: dict[str, list[bytes]] = {}
        self._touched: dict[str, float] = {}
        self._answers: dict[str, dict[str, bytes]] = {}

    async def load(self, session_id: str, start: int = 0) -> list[Event]:
        return [EVENT_ADAPTER.validate_json(e) for e in self._logs.get(session_id, [])[start:]]

    async def append(
        self,
        session_id: str,
        events: Sequence[Event],
        expected: int | None = None,
        answer: Answer | None = None,
    ) -> None:
        found = len(self._logs.get(session_id, ()))
        if expected is not None and found != expected:
            raise conflict(session_id, expected, found)
        self._logs.setdefault(session_id, []).extend(EVENT_ADAPTER.dump_json(e) for e in events)
        if answer is not None:
            self._answers.setdefault(session_id, {})[answer[0]] = answer[1]
        self._touched[session_id] = time.time()

    async def answer(self, session_id: str, key: str) -> bytes | None:
        return self._answers.get(session_id, {}).get(key)

    async def length(self, session_id: str) -> int:
        return len(self._logs.get(session_id, ()))

    @asynccontextmanager
    async def session_lock(self, session_id: str) -> AsyncIterator[None]:
        """One process only: the runtime's own per-session lock is enough."""
        yield

    async def expire(self, idle_seconds: float) -> list[str]:
        cutoff = time.time() - idle_seconds
        gone = [s for s, at in self._touched.items() if at < cutoff]
        for session_id in gone:
            await self.delete(session_id)
        return gone

    async def count(self) -> int:
        return len(self._logs)

    async def sessions(self) -> list[str]:
        return list(self._logs)

    async def delete(self, session_id: str) -> None:
        self._logs.pop(session_id, None)
        self._touched.pop(session_id, None)
        # no tombstone: one process, whose per-session lock orders a delete and the turns;
        # an id used again after a delete is a new session (tod test does so)
        self._answers.pop(session_id, None)

    async def close(self) -> None:
        self._logs.clear()
        self._touched.clear()
        self._answers.clear()
