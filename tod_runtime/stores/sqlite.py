"""SQLite session store: each event one row, appended in one transaction per turn.

Several processes may share one file. ``session_lock`` is a lease row in ``locks`` taken in
an immediate transaction (so two processes cannot both take it); it names its holder (host,
pid) and expires after ``lock_timeout`` seconds, and a lock whose holder died on this host is
taken over at once (a server killed with -9 does not block its sessions). ``append`` checks
the log's length in the same transaction that writes (``expected``), so a turn that worked
from a stale log writes nothing.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import socket
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TypeVar

from tod_runtime.session import EVENT_ADAPTER, Event
from tod_runtime.stores.base import (
    TOMBSTONE_SECONDS,
    Answer,
    StoreUnavailable,
    conflict,
    deleted,
    take_lock,
)

T = TypeVar("T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);
CREATE TABLE IF NOT EXISTS touched (session_id TEXT PRIMARY KEY, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS answers (
    session_id TEXT NOT NULL, key TEXT NOT NULL, answer BLOB NOT NULL,
    PRIMARY KEY (session_id, key)
);
CREATE TABLE IF NOT EXISTS gone (session_id TEXT PRIMARY KEY, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS locks (
    session_id TEXT PRIMARY KEY, token TEXT NOT NULL, host TEXT NOT NULL, pid INTEGER NOT NULL,
    expires REAL NOT NULL
);
"""
_HOST = socket.gethostname()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


OPEN_TIMEOUT = 30.0  # seconds a connection waits for another one's lock


def _use_wal(db: sqlite3.Connection) -> None:
    """Write-ahead logging, also when another process is switching the same new file to it at
    the same moment: SQLite then answers "database is locked" at once instead of waiting (its
    busy timeout is skipped where waiting could deadlock), so wait here, as long as a lock."""
    deadline = time.monotonic() + OPEN_TIMEOUT
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


class SQLiteStore:
    def __init__(
        self, path: str | Path, *, lock_timeout: float = 60.0, lock_wait: float = 60.0
    ) -> None:
        self.path = str(path)
        self.lock_timeout, self.lock_wait = lock_timeout, lock_wait
        where = Path(self.path)
        if where.is_dir():
            raise StoreUnavailable(
                "the SQLite store is a folder",
                file=self.path,
                hint="give a file name: sqlite:///path/to/sessions.db",
            )
        if not where.parent.is_dir():
            raise StoreUnavailable(
                "the SQLite store's folder does not exist",
                file=self.path,
                hint="create the folder first",
            )
        try:
            self._db = sqlite3.connect(
                self.path, check_same_thread=False, isolation_level=None, timeout=OPEN_TIMEOUT
            )
            _use_wal(self._db)
            self._db.executescript(_SCHEMA)
        except sqlite3.Error as exc:
            raise self._failed(exc) from None
        self._lock = asyncio.Lock()

    def _failed(self, exc: sqlite3.Error) -> StoreUnavailable:
        return StoreUnavailable(
            f"sqlite: {exc}",
            file=self.path,
            hint="the store must be a writable SQLite file on a disk with room",
        )

    async def _run(self, work: Callable[..., T], *args: object) -> T:
        """``work(*args)`` in a worker thread, one at a time; SQLite's errors become
        StoreUnavailable (the server answers 503, the CLI exits 5)."""
        async with self._lock:
            try:
                return await asyncio.to_thread(work, *args)
            except sqlite3.Error as exc:
                raise self._failed(exc) from None

    # ------------------------------------------------------------ in a worker thread

    def _load(self, session_id: str, start: int) -> list[Event]:
        rows = self._db.execute(
            "SELECT event FROM events WHERE session_id = ? AND seq >= ? ORDER BY seq",
            (session_id, start),
        ).fetchall()
        return [EVENT_ADAPTER.validate_python(json.loads(r[0])) for r in rows]

    def _length(self, session_id: str) -> int:
        (count,) = self._db.execute(
            "SELECT COALESCE(MAX(seq), -1) + 1 FROM events WHERE session_id = ?", (session_id,)
        ).fetchone()
        return int(count)

    def _append(
        self,
        session_id: str,
        events: Sequence[Event],
        expected: int | None,
        answer: Answer | None = None,
    ) -> None:
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            start = self._length(session_id)
            if (
                start == 0
                and self._db.execute(
                    "SELECT 1 FROM gone WHERE session_id = ?", (session_id,)
                ).fetchone()
            ):
                raise deleted(session_id)
            if expected is not None and start != expected:
                raise conflict(session_id, expected, start)
            if answer is not None:
                self._db.execute(
                    "INSERT OR REPLACE INTO answers VALUES (?, ?, ?)", (session_id, *answer)
                )
            self._db.executemany(
                "INSERT INTO events (session_id, seq, event) VALUES (?, ?, ?)",
                [
                    (session_id, start + i, EVENT_ADAPTER.dump_json(e).decode())
                    for i, e in enumerate(events)
                ],
            )
            self._db.execute(
                "INSERT OR REPLACE INTO touched (session_id, at) VALUES (?, ?)",
                (session_id, time.time()),
            )

    def _try_lock(self, session_id: str, token: str) -> bool:
        now = time.time()
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            row = self._db.execute(
                "SELECT host, pid, expires FROM locks WHERE session_id = ?", (session_id,)
            ).fetchone()
            if row is not None:
                host, pid, expires = row
                held = expires > now and not (host == _HOST and not _alive(pid))
                if held:
                    return False
            self._db.execute(
                "INSERT OR REPLACE INTO locks VALUES (?, ?, ?, ?, ?)",
                (session_id, token, _HOST, os.getpid(), now + self.lock_timeout),
            )
            return True

    def _unlock(self, session_id: str, token: str) -> None:
        self._db.execute(
            "DELETE FROM locks WHERE session_id = ? AND token = ?", (session_id, token)
        )

    def _delete(self, session_ids: Sequence[str]) -> None:
        now = time.time()
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            for table in ("events", "touched", "answers"):
                self._db.executemany(
                    f"DELETE FROM {table} WHERE session_id = ?", [(s,) for s in session_ids]
                )
            self._db.executemany(  # the tombstones: a turn in flight cannot write it back
                "INSERT OR REPLACE INTO gone VALUES (?, ?)", [(s, now) for s in session_ids]
            )
            self._db.execute("DELETE FROM gone WHERE at < ?", (now - TOMBSTONE_SECONDS,))

    def _answer(self, session_id: str, key: str) -> bytes | None:
        row = self._db.execute(
            "SELECT answer FROM answers WHERE session_id = ? AND key = ?", (session_id, key)
        ).fetchone()
        return None if row is None else bytes(row[0])

    def _idle(self, cutoff: float) -> list[str]:
        rows = self._db.execute("SELECT session_id FROM touched WHERE at < ?", (cutoff,))
        return [r[0] for r in rows.fetchall()]

    # ------------------------------------------------------------ the SessionStore API

    async def load(self, session_id: str, start: int = 0) -> list[Event]:
        return await self._run(self._load, session_id, start)

    async def append(
        self,
        session_id: str,
        events: Sequence[Event],
        expected: int | None = None,
        answer: Answer | None = None,
    ) -> None:
        await self._run(self._append, session_id, events, expected, answer)

    async def answer(self, session_id: str, key: str) -> bytes | None:
        return await self._run(self._answer, session_id, key)

    async def length(self, session_id: str) -> int:
        return await self._run(self._length, session_id)

    @asynccontextmanager
    async def session_lock(self, session_id: str) -> AsyncIterator[None]:
        token = secrets.token_hex(8)
        await take_lock(
            lambda: self._run(self._try_lock, session_id, token),
            session_id,
            self.lock_wait,
            0.002,
            self.path,
        )
        try:
            yield
        finally:
            await self._run(self._unlock, session_id, token)

    async def expire(self, idle_seconds: float) -> list[str]:
        gone = await self._run(self._idle, time.time() - idle_seconds)
        if gone:
            await self._run(self._delete, gone)
        return gone

    def _sessions(self) -> list[str]:
        rows = self._db.execute("SELECT DISTINCT session_id FROM events").fetchall()
        return [r[0] for r in rows]

    def _count(self) -> int:
        (count,) = self._db.execute("SELECT COUNT(*) FROM touched").fetchone()
        return int(count)

    async def count(self) -> int:
        return await self._run(self._count)

    async def sessions(self) -> list[str]:
        return await self._run(self._sessions)

    async def delete(self, session_id: str) -> None:
        await self._run(self._delete, [session_id])

    async def close(self) -> None:
        async with self._lock:
            self._db.close()
