"""The recorded-results backend for replay: a call that matches one recorded in the dialogues
being replayed gets the recorded results; any other call goes to the backend it wraps (the
split's own tables for SGD data, or the services a chat was recorded against).

A call equal to one the system turn being replayed recorded gets that turn's results
(``TURN_RECORDINGS``, set by the replay engine around each system step): the same call in
other dialogues recorded other results (each SGD dialogue has its own alarms, balances and
flights), and the turn's annotated acts name its own. Any other matching call gets the first
recording in the split."""

from __future__ import annotations

from contextvars import ContextVar
from datetime import date
from pathlib import Path

from tod_runtime.backends.base import (
    Backend,
    ReferenceDates,
    ServiceFolders,
    call_outcome,
    known_intent,
)
from tod_runtime.backends.sgd_tables import Recordings, SGDTablesBackend, record_key
from tod_runtime.dialogue.models import ServiceCall
from tod_runtime.dialogue.refusal import CallOutcome
from tod_runtime.schema.loader import Schemas

# the recorded calls of the system turn being replayed, with their results (per asyncio task)
TURN_RECORDINGS: ContextVar[Recordings | None] = ContextVar("turn_recordings", default=None)


class RecordedBackend:
    def __init__(self, recordings: Recordings, inner: Backend) -> None:
        self.recordings = recordings
        self.inner = inner

    @classmethod
    def from_source(cls, source: str) -> RecordedBackend:
        """``SGD_DIR:split``: the split's recordings over the split's own tables."""
        tables = SGDTablesBackend.from_source(source)
        return cls(tables.recordings, tables)

    def schemas(self) -> Schemas:
        return self.inner.schemas()

    def service_dirs(self) -> dict[str, Path]:
        inner = self.inner
        return inner.service_dirs() if isinstance(inner, ServiceFolders) else {}

    def reference_date(self, service: str) -> date | None:
        inner = self.inner
        return inner.reference_date(service) if isinstance(inner, ReferenceDates) else None

    async def call(self, service: str, call: ServiceCall) -> list[dict[str, str]]:
        recorded = self._recorded(service, call)
        return recorded if recorded is not None else await self.inner.call(service, call)

    async def call_outcome(self, service: str, call: ServiceCall) -> CallOutcome:
        """A recorded call's rows (a recording says no reason); any other call's outcome
        from the backend wrapped, with its refusal when it gives one."""
        recorded = self._recorded(service, call)
        if recorded is not None:
            return CallOutcome(rows=recorded)
        return await call_outcome(self.inner, service, call)

    def _recorded(self, service: str, call: ServiceCall) -> list[dict[str, str]] | None:
        key = record_key(service, call)
        now = TURN_RECORDINGS.get()
        recorded = now[key] if now is not None and key in now else self.recordings.get(key)
        if recorded is None:
            return None
        known_intent(self.schemas(), service, call.method)
        return [dict(row) for row in recorded]

    async def entity_values(self, service: str) -> dict[str, list[str]]:
        return await self.inner.entity_values(service)

    async def close(self) -> None:
        await self.inner.close()
