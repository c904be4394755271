"""SQLite session store: each event one row, appended in one transaction per turn."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from tod_runtime.session import EVENT_ADAPTER, Event

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
)
"""


class SQLiteStore:
    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(_SCHEMA)
        self._lock = asyncio.Lock()

    def _load(self, session_id: str, start: int) -> list[Event]:
        rows = self._db.execute(
            "SELECT event FROM events WHERE session_id = ? AND seq >= ? ORDER BY seq",
            (session_id, start),
        ).fetchall()
        return [EVENT_ADAPTER.validate_python(json.loads(r[0])) for r in rows]

    def _append(self, session_id: str, events: Sequence[Event]) -> None:
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            (start,) = self._db.execute(
                "SELECT COALESCE(MAX(seq), -1) + 1 FROM events WHERE session_id = ?", (session_id,)
            ).fetchone()
            self._db.executemany(
                "INSERT INTO events (session_id, seq, event) VALUES (?, ?, ?)",
                [
                    (session_id, start + i, EVENT_ADAPTER.dump_json(e).decode())
                    for i, e in enumerate(events)
                ],
            )

    async def load(self, session_id: str, start: int = 0) -> list[Event]:
        async with self._lock:
            return await asyncio.to_thread(self._load, session_id, start)

    async def append(self, session_id: str, events: Sequence[Event]) -> None:
        async with self._lock:
            await asyncio.to_thread(self._append, session_id, events)

    async def sessions(self) -> list[str]:
        rows = self._db.execute("SELECT DISTINCT session_id FROM events").fetchall()
        return [r[0] for r in rows]

    async def delete(self, session_id: str) -> None:
        async with self._lock:
            self._db.execute("DELETE FROM events WHERE session_id = ?", (session_id,))

    async def close(self) -> None:
        self._db.close()
