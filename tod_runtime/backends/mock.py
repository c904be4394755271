"""The mock backend: services defined as data in a folder, served from in-memory SQLite.

Layout: ``<folder>/<Service>/schema.json`` (SGD format, a list holding the service) and
``<folder>/<Service>/db.json``::

    {"entities": [{"restaurant_name": "Blue Spoon", "city": "Austin", ...}, ...],
     "transactions": {"ReserveRestaurant": {
         "entity_match": ["restaurant_name", "city"],
         "fail_when": [{"param": "number_of_seats", "op": ">", "field": "max_party_size"}]}}}

A search (non-transactional intent) returns the entities matching every parameter that can be
booked at all (no ``param > field`` limit under 1: 0 rooms left). A transaction finds the
entity named by ``entity_match`` and fails (returns ``[]``) when any ``fail_when`` condition
holds, saying why (``call_outcome``: a ``Refusal`` naming the input and the limit);
otherwise it returns one row of the intent's result slots.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import date
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from tod_runtime.backends.base import known_intent, known_service
from tod_runtime.backends.tables import Tables
from tod_runtime.dialogue.models import DONTCARE, ServiceCall
from tod_runtime.dialogue.refusal import CallOutcome, Reason, Refusal
from tod_runtime.errors import DataError, SchemaError, from_validation_error
from tod_runtime.schema.loader import Schemas, load_schema_file
from tod_runtime.schema.models import ServiceSchema

Scalar = str | int | float | bool


class Condition(BaseModel):
    """``param op field`` (an entity field) or ``param op value`` (a constant)."""

    model_config = ConfigDict(extra="forbid")
    param: str
    op: Literal[">", ">=", "<", "<=", "==", "!=", "in", "not in"]
    field: str | None = None
    value: Scalar | list[Scalar] | None = None

    @model_validator(mode="after")
    def _one_operand(self) -> Condition:
        if (self.field is None) == (self.value is None):
            raise ValueError("give exactly one of 'field' or 'value'")
        return self

    def holds(self, params: dict[str, str], entity: dict[str, str]) -> bool:
        left = params.get(self.param)
        right: object = entity.get(self.field) if self.field is not None else self.value
        if left is None or right is None:
            return False
        if self.op in ("in", "not in"):
            options = right if isinstance(right, list) else [right]
            found = left.lower() in {str(o).lower() for o in options}
            return found if self.op == "in" else not found
        a, b = _comparable(left), _comparable(str(right))
        if self.op in ("==", "!="):
            return (a == b) == (self.op == "==")
        if type(a) is not type(b):
            return False
        return {
            ">": a > b,  # type: ignore[operator]
            ">=": a >= b,  # type: ignore[operator]
            "<": a < b,  # type: ignore[operator]
            "<=": a <= b,  # type: ignore[operator]
        }[self.op]

    def refusal(self, params: dict[str, str], entity: dict[str, str]) -> Refusal:
        """Why the condition refuses: ``param > field`` is at most the field's value (none
        left at 0), ``param >= field`` on a time is the closing time, ``<``/``<=`` the
        least (on a time: the opening time); an equality or a list: not offered."""
        right = entity.get(self.field) if self.field is not None else self.value
        limit = str(right) if right is not None and not isinstance(right, list) else ""
        number = _comparable(limit) if limit else ""
        timed = isinstance(number, float) and ":" in f"{limit} {params.get(self.param, '')}"
        if self.op in (">", ">="):
            if timed:
                return Refusal(slot=self.param, reason="closed", limit=_clock(number))
            most = number - 1 if self.op == ">=" and isinstance(number, float) else number
            if isinstance(most, float):
                reason: Reason = "none_left" if most < 1 else "at_most"
                return Refusal(slot=self.param, reason=reason, limit=_number(most))
        if self.op in ("<", "<="):
            if timed:
                return Refusal(slot=self.param, reason="opens", limit=_clock(number))
            least = number + 1 if self.op == "<=" and isinstance(number, float) else number
            if isinstance(least, float):
                return Refusal(slot=self.param, reason="at_least", limit=_number(least))
        return Refusal(slot=self.param, reason="not_offered")


class Transaction(BaseModel):
    model_config = ConfigDict(extra="forbid")
    entity_match: list[str] = Field(min_length=1)
    fail_when: list[Condition] = Field(default_factory=list)


class MockData(BaseModel):
    model_config = ConfigDict(extra="forbid")
    entities: list[dict[str, Scalar]]
    transactions: dict[str, Transaction] = Field(default_factory=dict)
    reference_date: date | None = None
    """The day the data calls "today", when its dates are fixed; default: the real today."""


def _comparable(text: str) -> float | str:
    """Numbers and ``HH:MM`` times compare as numbers (hours), everything else as text."""
    text = text.strip()
    try:
        return float(text)
    except ValueError:
        pass
    hours, sep, minutes = text.partition(":")
    if sep and hours.isdigit() and minutes.isdigit():
        return int(hours) + int(minutes) / 60
    return text.lower()


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)


def _clock(hours: float | str) -> str:
    """Hours as a 24-hour ``HH:MM`` time (22 -> 22:00, 21.5 -> 21:30)."""
    if isinstance(hours, str):
        return hours
    whole = int(hours)
    return f"{whole % 24:02d}:{round((hours - whole) * 60):02d}"


def bookable(entity: dict[str, str], rules: Iterable[Transaction]) -> bool:
    """Whether some booking of the entity could succeed: no ``param > field`` limit of a
    transaction holds a number under 1 for it (0 rooms left: nothing can be booked)."""
    for rule in rules:
        for condition in rule.fail_when:
            if condition.field is None or condition.op != ">":
                continue
            limit = _comparable(str(entity.get(condition.field, "")))
            if isinstance(limit, float) and limit < 1:
                return False
    return True


def _unmatched(tables: Tables, table: str, named: dict[str, str]) -> str:
    """The slot whose value no entity has with the others' (the first whose removal finds
    one), else the first slot named."""
    for slot in reversed(list(named)):
        others = {s: v for s, v in named.items() if s != slot}
        if others and tables.select(table, others, limit=1):
            return slot
    return next(iter(named))


def is_services_folder(source: str) -> bool:
    """True when ``source`` is a folder with at least one ``<Service>/schema.json``."""
    folder = Path(source)
    return folder.is_dir() and any(folder.glob("*/schema.json"))


def _load_data(path: Path, schema: ServiceSchema) -> MockData:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError("mock data file not found", file=str(path)) from None
    except json.JSONDecodeError as exc:
        raise DataError(f"invalid JSON at line {exc.lineno}: {exc.msg}", file=str(path)) from None
    try:
        data = MockData.model_validate(raw)
    except ValidationError as exc:
        raise from_validation_error(exc, DataError, file=str(path), where=None) from None
    for name, rule in data.transactions.items():
        intent = schema.intent(name)
        if intent is None or not intent.is_transactional:
            raise DataError(
                f"{name!r} is not a transactional intent of {schema.service_name}",
                file=str(path),
                path=f"transactions.{name}",
            )
        for index, param in enumerate(rule.entity_match):
            if param not in schema.slot_map:
                raise DataError(
                    f"{param!r} is not a slot of {schema.service_name}",
                    file=str(path),
                    path=f"transactions.{name}.entity_match[{index}]",
                )
    for intent in schema.intents:
        if intent.is_transactional and intent.name not in data.transactions:
            raise DataError(
                f"no rule for the transactional intent {intent.name}",
                file=str(path),
                path="transactions",
                hint='add {"entity_match": [...], "fail_when": [...]}',
            )
    return data


class MockBackend:
    """Serves every service of a services folder from its db.json."""

    def __init__(self, source: str | Path) -> None:
        folder = Path(source)
        if not is_services_folder(str(folder)):
            raise SchemaError(
                "not a services folder", file=str(folder), hint="expected <Service>/schema.json"
            )
        services: list[ServiceSchema] = []
        self._dirs: dict[str, Path] = {}
        self._rules: dict[str, dict[str, Transaction]] = {}
        self._dates: dict[str, date | None] = {}
        self._tables = Tables()
        for schema_path in sorted(folder.glob("*/schema.json")):
            for schema in load_schema_file(schema_path):
                if schema.service_name in self._dirs:
                    raise SchemaError(
                        f"service {schema.service_name!r} is defined twice",
                        file=str(schema_path),
                        hint=f"{self._dirs[schema.service_name]} defines it too: rename one",
                    )
                data = _load_data(schema_path.parent / "db.json", schema)
                services.append(schema)
                self._dirs[schema.service_name] = schema_path.parent
                self._rules[schema.service_name] = data.transactions
                self._dates[schema.service_name] = data.reference_date
                self._tables.create(schema.service_name, data.entities)
        self._schemas = Schemas(services)

    def schemas(self) -> Schemas:
        return self._schemas

    def service_dirs(self) -> dict[str, Path]:
        return dict(self._dirs)

    def reference_date(self, service: str) -> date | None:
        """The service's ``reference_date`` from its db.json, else None (the real today)."""
        return self._dates.get(service)

    async def call(self, service: str, call: ServiceCall) -> list[dict[str, str]]:
        return (await self.call_outcome(service, call)).rows

    async def call_outcome(self, service: str, call: ServiceCall) -> CallOutcome:
        """A search: the entities matching every parameter that can be booked at all. A
        transaction: one row of the intent's result slots, or the refusal naming the input
        that broke a ``fail_when`` limit (or that named no entity)."""
        intent = known_intent(self._schemas, service, call.method)
        if not intent.is_transactional:
            rules = self._rules[service].values()
            rows = [r for r in self._tables.select(service, call.parameters) if bookable(r, rules)]
            return CallOutcome(
                rows=[{k: v for k, v in row.items() if k in intent.result_slots} for row in rows]
            )
        params = {
            slot: default
            for slot, default in intent.optional_slots.items()
            if default.lower() != DONTCARE
        } | dict(call.parameters)
        rule = self._rules[service][intent.name]
        missing = [slot for slot in rule.entity_match if slot not in params]
        if missing:
            return CallOutcome(refusal=Refusal(slot=missing[0], reason="missing"))
        named = {s: params[s] for s in rule.entity_match}
        matches = self._tables.select(service, named, limit=1)
        if not matches:
            blamed = _unmatched(self._tables, service, named)
            return CallOutcome(refusal=Refusal(slot=blamed, reason="not_found"))
        entity = matches[0]
        for condition in rule.fail_when:
            if condition.holds(params, entity):
                return CallOutcome(refusal=condition.refusal(params, entity))
        row = {
            slot: params[slot] if slot in params else entity[slot]
            for slot in intent.result_slots
            if slot in params or slot in entity
        }
        return CallOutcome(rows=[row])

    async def entity_values(self, service: str) -> dict[str, list[str]]:
        known_service(self._schemas, service)
        return self._tables.distinct(service, self._schemas[service].slot_map)

    async def close(self) -> None:
        self._tables.close()
