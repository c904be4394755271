"""Transactions of the SGD tables backend: a consistent mock service built from the recordings.

A transaction recorded with every parameter gets its recorded row. Any other call with inputs
valid for the schema succeeds: required slots present, categorical values among the possible
values, and, where a search of the service names the entity (a required slot of the
transaction that the search returns but does not take: the restaurant's name, the bus's
departure time), a row of that search matching every parameter it holds; a transaction that
takes every slot the search returns writes a new record (adds an event) and names nothing.
The result row echoes the inputs (with the intent's defaults) and fills the other result
slots from the entity found, else from the values the service's recordings hold for the
slot, chosen by a hash of the call (the same call, the same row). Anything else is refused
with the input to blame (``Refusal``: ``missing``, ``not_offered``, ``not_found``).
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Mapping

from tod_runtime.backends.tables import Tables
from tod_runtime.dialogue.models import DONTCARE
from tod_runtime.dialogue.refusal import CallOutcome, Refusal
from tod_runtime.schema.models import IntentSchema, ServiceSchema
from tod_runtime.values.normalise import slot_kind


def _given(value: str) -> bool:
    return bool(value.strip()) and value.strip().lower() != DONTCARE


def matching(tables: Tables, table: str, params: Mapping[str, str]) -> list[dict[str, str]]:
    """Rows of ``table`` that hold every given parameter as recorded: none when the table
    does not record one of them (an unknown column matches nothing)."""
    columns = tables.columns.get(table)
    wanted = {k: v for k, v in params.items() if _given(v)}
    if not columns or any(k not in columns for k in wanted):
        return []
    return tables.select(table, wanted)


_FORMS = {"date": re.compile(r"\d{4}-\d{2}-\d{2}"), "time": re.compile(r"\d{2}:\d{2}")}


def any_day(
    tables: Tables,
    schema: ServiceSchema,
    search: IntentSchema,
    params: Mapping[str, str],
    limit: int | None = None,
    table: str | None = None,
) -> list[dict[str, str]]:
    """Rows of the search's table holding every parameter as recorded; else, where the
    recordings hold rows for every parameter but the dates and times the search takes (a
    flight, a car, a forecast recorded on other days), those rows on the day and at the time
    asked: the service runs every day, its recordings only sampled some. Never another value
    of any other parameter (a bus's departure time names the bus: it is found, not asked),
    and never for a call that gives nothing but when. ``find_entity`` reads the same rows,
    so what a search offered can be booked. ``table``: another table of the search's rows
    (the service's own, without its sisters')."""
    table = table or f"{schema.service_name}.{search.name}"
    rows = matching(tables, table, params)
    takes = {*search.required_slots, *search.optional_slots}
    when = {
        k: v
        for k, v in params.items()
        if k in takes and _given(v) and slot_kind(schema, k) in ("date", "time")
    }
    rest = {k: v for k, v in params.items() if k not in when}
    if rows or not when or not any(map(_given, rest.values())):
        return rows[:limit] if limit is not None else rows
    found: dict[str, dict[str, str]] = {}
    for row in matching(tables, table, rest):
        row = row | when
        found.setdefault(json.dumps(row, sort_keys=True), row)
        if limit is not None and len(found) >= limit:
            break
    return list(found.values())


def invalid(
    schema: ServiceSchema, intent: IntentSchema, params: Mapping[str, str]
) -> Refusal | None:
    """The first input the schema does not allow: a required slot left out, a date or a
    clock time not in the backend's form (the runtime could not read "saturday the 9th"),
    a categorical value that is not among its possible values."""
    for slot in intent.required_slots:
        if not _given(params.get(slot, "")):
            return Refusal(slot=slot, reason="missing")
    for slot, value in params.items():
        form = _FORMS.get(slot_kind(schema, slot))
        if form is not None and _given(value) and not form.fullmatch(value.strip()):
            return Refusal(slot=slot, reason="unreadable")
    for slot, value in params.items():
        known = schema.slot(slot)
        if known is None or not known.is_categorical or not _given(value):
            continue
        allowed = {v.lower() for v in known.possible_values}
        if value.strip().lower() not in allowed:
            return Refusal(slot=slot, reason="not_offered")
    return None


def _naming(search: IntentSchema, intent: IntentSchema) -> list[str]:
    """The transaction's required slots that ``search`` finds but does not take: they name
    the entity its results offer. None when the transaction takes every slot the search
    returns: it writes a new record of what the search lists (an event added to a calendar,
    its name, date, time and place all given), so there is nothing for the search to find."""
    inputs = {*search.required_slots, *search.optional_slots}
    takes = {*intent.required_slots, *intent.optional_slots}
    if set(search.result_slots) <= takes:
        return []
    return [s for s in intent.required_slots if s in search.result_slots and s not in inputs]


def _blame(tables: Tables, table: str, params: Mapping[str, str], naming: list[str]) -> str:
    """The parameter whose value no row holds with the others' (the first, naming slots
    last, whose removal finds a row), else the first naming slot."""
    order = [s for s in params if s not in naming] + [s for s in naming if s in params]
    for slot in order:
        others = {s: v for s, v in params.items() if s != slot}
        if others and matching(tables, table, others):
            return slot
    return naming[0]


def quantities(schema: ServiceSchema) -> frozenset[str]:
    """The size of a request, not a property of an entity: search inputs that count
    (``number`` or ``count`` values) and that a transaction of the service takes too (passengers,
    travelers). The recordings hold them as each recorded search asked."""

    def inputs(transactional: bool) -> set[str]:
        return {
            s
            for i in schema.intents
            if i.is_transactional == transactional
            for s in (*i.required_slots, *i.optional_slots)
        }

    both = inputs(True) & inputs(False)
    return frozenset(s for s in both if slot_kind(schema, s) in ("number", "count"))


def search(
    tables: Tables,
    schema: ServiceSchema,
    intent: IntentSchema,
    params: Mapping[str, str],
    table: str | None = None,
) -> list[dict[str, str]]:
    """The rows of a search that hold every parameter as recorded (on any day: ``any_day``);
    a count the request asks for (``quantities``) is the request's, not a constraint: the
    rows carry it. ``table``: as ``any_day``'s."""
    sizes = quantities(schema)
    counts = {k: v for k, v in params.items() if k in sizes and _given(v)}
    asked = {k: v for k, v in params.items() if k not in counts}
    rows = any_day(tables, schema, intent, asked, table=table)
    if not counts:
        return rows
    found: dict[str, dict[str, str]] = {}
    for row in rows:
        row = row | {k: v for k, v in counts.items() if k in row}
        found.setdefault(json.dumps(row, sort_keys=True), row)
    return list(found.values())


def find_entity(
    tables: Tables,
    schema: ServiceSchema,
    intent: IntentSchema,
    params: Mapping[str, str],
) -> dict[str, str] | Refusal:
    """The entity the searches of the service found for these inputs (counts and options of
    the request left out): merged over the searches that name it and hold a row with them,
    else over those that hold one without naming it; when searches name the entity and none
    holds a row with the inputs, the refusal."""
    named: dict[str, str] = {}  # rows of searches that name the entity (its name, its time)
    other: dict[str, str] = {}  # rows of searches that hold the inputs without naming it
    refusal: Refusal | None = None
    sizes = quantities(schema)
    for search in schema.intents:
        table = f"{schema.service_name}.{search.name}"
        columns = tables.columns.get(table)
        if search.is_transactional or not columns:
            continue
        # an option of the transaction the search cannot be asked for is the request's
        # ("without subtitles"), not the entity's: the search's rows hold what was shown
        options = set(intent.optional_slots) - search.inputs
        held = {
            k: v
            for k, v in params.items()
            if k in columns and k not in sizes and k not in options and _given(v)
        }
        if not held:
            continue
        naming = [s for s in _naming(search, intent) if s in held]
        rows = any_day(tables, schema, search, held, limit=1)
        if rows and naming:
            named = rows[0] | named
        elif rows:
            other = rows[0] | other
        elif naming and refusal is None:
            refusal = Refusal(slot=_blame(tables, table, held, naming), reason="not_found")
    if named:
        return named
    return refusal if refusal is not None else other


def recorded_value(tables: Tables, schema: ServiceSchema, method: str, slot: str, seed: int) -> str:
    """A value the service's recordings hold for ``slot`` (the transaction's own results
    first, then its searches'), chosen by ``seed``; "" when none does."""
    for table in (f"{schema.service_name}.{method}", schema.service_name):
        values = tables.distinct(table, [slot]).get(slot, [])
        if values:
            return values[seed % len(values)]
    return ""


def transact(
    tables: Tables, schema: ServiceSchema, intent: IntentSchema, call_params: Mapping[str, str]
) -> CallOutcome:
    """The outcome of a transactional call (see the module's docstring)."""
    recorded = matching(tables, f"{schema.service_name}.{intent.name}", call_params)
    if recorded:
        return CallOutcome(rows=recorded[:1])
    params = {s: v for s, v in intent.optional_slots.items() if _given(v)} | dict(call_params)
    refusal = invalid(schema, intent, params)
    if refusal is not None:
        return CallOutcome(refusal=refusal)
    found = find_entity(tables, schema, intent, params)
    if isinstance(found, Refusal):
        return CallOutcome(refusal=found)
    seed = zlib.crc32(json.dumps(params, sort_keys=True).encode())
    row: dict[str, str] = {}
    for slot in intent.result_slots:
        value = params.get(slot, "")
        if not _given(value):
            value = found.get(slot) or recorded_value(tables, schema, intent.name, slot, seed)
        if value:
            row[slot] = value
    return CallOutcome(rows=[row])
