"""The SGD backend: ``SGD_DIR:split`` served from tables built from the split's own
``service_results``, so any SGD service can be talked to.

Every recorded result row is kept once per (service, method) table, with the rows sister
services recorded for a search of the same name (``sisters``); the service's own rows of
searches also make up a table of its entities. A search returns the method's rows that hold every
parameter as recorded; where none does but rows hold every parameter except the dates and times
asked, those rows on the day asked (``sgd_transactions.any_day``: a flight recorded on other
days also flies on this one; never another value of any other parameter), else ``[]``. A
transaction succeeds whenever its inputs are valid for the schema and is refused with a
reason otherwise (``sgd_transactions``). What the service knows (``entity_values``): its
entities' values, and the values its recorded transactions took for slots no search returns
(the times tables were booked for). Relative dates are read against SGD's day, 2019-03-01.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Mapping
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Self

from pydantic import ValidationError

from tod_runtime.backends.base import known_intent, known_service
from tod_runtime.backends.sgd_transactions import search, transact
from tod_runtime.backends.sisters import provider, shared_rows
from tod_runtime.backends.tables import Tables
from tod_runtime.data.sgd import SGDSplit, open_split
from tod_runtime.dialogue.models import DONTCARE, Frame, ServiceCall
from tod_runtime.dialogue.providers import provider_call
from tod_runtime.dialogue.refusal import CallOutcome, Provider
from tod_runtime.errors import InputError, TodError
from tod_runtime.progress import progress
from tod_runtime.schema.loader import Schemas
from tod_runtime.schema.models import IntentSchema

SGD_REFERENCE_DATE = date(2019, 3, 1)
"""The day SGD's dialogues call "today" (a Friday). Found on train: every service call made
after a user said "today", "tomorrow" or "the day after tomorrow" (1,772 of them, every
service) dates that day; "next Monday" is 2019-03-04 and "next Friday" 2019-03-08."""

RecordKey = tuple[str, str, str]  # service, method, canonical JSON of the parameters
Recordings = dict[RecordKey, list[dict[str, str]]]


def parse_sgd_source(source: str) -> tuple[Path, str] | None:
    """``PATH:split`` where PATH is an SGD folder or zip holding that split, else None."""
    path, sep, split = source.rpartition(":")
    if not sep or not split or not path or "/" in split or not Path(path).exists():
        return None
    try:
        open_split(path, split)
    except TodError:
        return None
    return Path(path), split


def record_key(service: str, call: ServiceCall) -> RecordKey:
    params = {k: v.strip().lower() for k, v in call.parameters.items()}
    return service, call.method, json.dumps(params, sort_keys=True)


def read_recordings(split: SGDSplit) -> Recordings:
    """The results recorded in a split's dialogues, by call (the first recording wins)."""
    recorded: Recordings = {}
    for service, call, results in _recorded_calls(split):
        recorded.setdefault(record_key(service, call), results)
    return recorded


def _recorded_calls(split: SGDSplit) -> Iterator[tuple[str, ServiceCall, list[dict[str, str]]]]:
    """(service, call, results) of every frame with a service call, file by file. Only the
    frames with a call are validated (fast); a file that does not read is left out here, as
    replay skips it (or stops, with --strict)."""
    files = split.dialogue_files()
    with progress(f"index {split.name} service results", len(files)) as bar:
        for file in files:
            try:
                calls = [
                    (frame.service, frame.service_call, frame.service_results or [])
                    for dialogue in split.read_raw(file)
                    for turn in dialogue.get("turns", ())
                    for raw in turn.get("frames", ())
                    if raw.get("service_call")
                    for frame in [Frame.model_validate(raw)]
                    if frame.service_call is not None
                ]
            except (TodError, ValidationError, AttributeError, TypeError):
                calls = []
            yield from calls
            bar.advance()


class SGDTablesBackend:
    """Serves an SGD split's services from the results recorded in its dialogues."""

    def __init__(self, split: SGDSplit) -> None:
        self._schemas = split.schemas()
        self._tables = Tables()
        self._recorded: Recordings = {}
        self._transactions: dict[str, list[IntentSchema]] = {}  # recorded, by service
        by_method: dict[tuple[str, str], dict[str, dict[str, str]]] = {}
        most: dict[tuple[str, str], int] = {}  # the most rows one recorded call returned
        for service, call, results in _recorded_calls(split):
            self._recorded.setdefault(record_key(service, call), results)
            key = (service, call.method)
            most[key] = max(most.get(key, 0), len(results))
            rows = by_method.setdefault((service, call.method), {})
            for row in results:
                rows.setdefault(json.dumps(row, sort_keys=True), row)
        all_rows: dict[str, dict[str, dict[str, str]]] = {s: {} for s in self._schemas}
        sisters = shared_rows(self._schemas, by_method)  # one world for sister services
        # (service, search) -> the sisters whose rows it shares and that can take its task
        # on: where a search finding none of the service's own rows went (``_provider``)
        self._providers: dict[tuple[str, str], list[Provider]] = {}
        for (service, method), rows in by_method.items():
            shared = sisters.get((service, method), [])
            self._tables.create(f"{service}.{method}", [*rows.values(), *(r.row for r in shared)])
            if shared:
                self._tables.create(f"own:{service}.{method}", list(rows.values()))
                sample = {r.sister: r for r in shared}.values()  # one row of each sister
                found = (provider(self._schemas, service, r) for r in sample)
                self._providers[service, method] = [p for p in found if p is not None]
            intent = self._schemas[service].intent(method) if service in self._schemas else None
            if intent is not None and not intent.is_transactional:  # entities come from searches
                all_rows.setdefault(service, {}).update(rows)
            elif intent is not None:
                self._transactions.setdefault(service, []).append(intent)
        for service, rows in all_rows.items():
            self._tables.create(service, list(rows.values()))

        # searches that answer with one row (a balance, the weather): one row, not every
        # balance the recordings hold for a savings account
        self._one_row = frozenset(key for key, n in most.items() if n == 1)

    @classmethod
    def from_source(cls, source: str) -> Self:
        parsed = parse_sgd_source(source)
        if parsed is None:
            raise InputError("expected SGD_DIR:split", file=source)
        return cls(open_split(*parsed))

    def schemas(self) -> Schemas:
        return self._schemas

    def reference_date(self, service: str) -> date | None:
        """SGD's dialogues were collected as if on 2019-03-01, for every service."""
        return SGD_REFERENCE_DATE

    @property
    def recordings(self) -> Recordings:
        """The results recorded in the split, by call."""
        return self._recorded

    async def call(self, service: str, call: ServiceCall) -> list[dict[str, str]]:
        return (await self.call_outcome(service, call)).rows

    async def call_outcome(self, service: str, call: ServiceCall) -> CallOutcome:
        """A search: the rows holding every parameter as recorded (the first only where every
        recorded call of the method answered with one row, and no parameter is "dontcare").
        A transaction: see
        ``sgd_transactions.transact``."""
        intent = known_intent(self._schemas, service, call.method)
        if not intent.is_transactional:
            schema = self._schemas[service]
            rows = search(self._tables, schema, intent, call.parameters)
            loose = DONTCARE in {v.strip().lower() for v in call.parameters.values()}
            one = (service, call.method) in self._one_row and not loose
            return CallOutcome(
                rows=rows[:1] if one else rows, provider=self._provider(service, call, rows)
            )
        return transact(self._tables, self._schemas[service], intent, call.parameters)

    def _provider(
        self, service: str, call: ServiceCall, rows: list[dict[str, str]]
    ) -> Provider | None:
        """The sister whose own rows answer a search that found none of the service's own."""
        sisters = self._providers.get((service, call.method))
        if not rows or not sisters or self._own(service, call):
            return None
        for found in sisters:
            to = provider_call(call, found)
            if (
                to
                and (found.service, call.method) in self._providers
                and self._own(found.service, to)
            ):
                return found
        return None

    def _own(self, service: str, call: ServiceCall) -> list[dict[str, str]]:
        """The rows of the service's own recordings a search finds (its sisters' left out)."""
        intent = known_intent(self._schemas, service, call.method)
        table = f"own:{service}.{call.method}"
        return search(self._tables, self._schemas[service], intent, call.parameters, table)

    async def entity_values(self, service: str) -> dict[str, list[str]]:
        """The values of the entities the service's searches returned, and, for a slot no
        search returned, the values its recorded transactions took (the times tables were
        booked for, the names money was sent to): what the service's data holds."""
        values = self.entities(service)
        searched = {slot for slot, found in values.items() if found}
        for intent in self._transactions.get(service, ()):
            inputs = [*intent.required_slots, *intent.optional_slots]
            for slot, found in self._tables.distinct(f"{service}.{intent.name}", inputs).items():
                if slot not in searched:
                    values[slot] = sorted({*values.get(slot, ()), *found})
        return values

    def entities(self, service: str) -> dict[str, list[str]]:
        """The values of the entities the service's searches returned."""
        known_service(self._schemas, service)
        return self._tables.distinct(service, self._schemas[service].slot_map)

    async def close(self) -> None:
        self._tables.close()


@lru_cache(maxsize=4)
def recorded_values(
    split: SGDSplit, transactions: bool = True
) -> Mapping[str, Mapping[str, list[str]]]:
    """Every service's slot values in the split's recorded results, as its backend's
    ``entity_values`` gives them (with ``transactions`` False: the entities' only, as
    training reads them: the shipped NLU was fitted on those, and refitted on the
    transactions' values too it lost 0.033 of the embedded services' simulated success);
    read once per split. Read only."""

    async def read() -> dict[str, dict[str, list[str]]]:
        backend = SGDTablesBackend(split)
        try:
            if not transactions:
                return {name: backend.entities(name) for name in backend.schemas()}
            return {name: await backend.entity_values(name) for name in backend.schemas()}
        finally:
            await backend.close()

    return asyncio.run(read())
