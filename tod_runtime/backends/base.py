"""Service-call executors: the only place a pipeline reaches data outside the session."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Protocol, runtime_checkable

from tod_runtime.dialogue.models import ServiceCall
from tod_runtime.dialogue.refusal import CallOutcome
from tod_runtime.errors import InputError
from tod_runtime.schema.loader import Schemas
from tod_runtime.schema.models import IntentSchema
from tod_runtime.values.dates import clock_today


@runtime_checkable
class Backend(Protocol):
    """Runs service calls and tells which services and entity values it knows.

    ``call`` returns result rows (slot -> value strings, SGD ``service_results``); for a
    transactional intent an empty list means the transaction failed.
    ``entity_values`` gives every known value per slot of a service (NLU uses it to match
    names that are not in the schema's possible values).
    """

    def schemas(self) -> Schemas: ...

    async def call(self, service: str, call: ServiceCall) -> list[dict[str, str]]: ...

    async def entity_values(self, service: str) -> dict[str, list[str]]: ...

    async def close(self) -> None: ...


@runtime_checkable
class ExplainsRefusals(Protocol):
    """An optional capability: a backend that says why it refused a call.

    ``call_outcome`` runs the call as ``call`` does and returns its rows with, when the
    service refused it, a ``Refusal`` (which input broke which limit). ``call`` keeps
    returning the rows alone, so callers that need no reason, and backends that give none,
    keep working: ``call_outcome(backend, ...)`` asks either kind."""

    async def call_outcome(self, service: str, call: ServiceCall) -> CallOutcome: ...


async def call_outcome(backend: Backend, service: str, call: ServiceCall) -> CallOutcome:
    """The rows of a call and, from a backend that ``ExplainsRefusals``, its refusal; any
    other backend's rows come without one."""
    explained = getattr(backend, "call_outcome", None)  # ``isinstance``'s check, cheaper
    if explained is not None:
        return await explained(service, call)  # type: ignore[no-any-return]
    return CallOutcome(rows=await backend.call(service, call))


@runtime_checkable
class ServiceFolders(Protocol):
    """An optional capability: a backend whose services live in folders (a services folder's
    ``<Service>/``), where per-service files such as NLG templates are found."""

    def service_dirs(self) -> dict[str, Path]: ...


@runtime_checkable
class ReferenceDates(Protocol):
    """An optional capability: a backend whose data is dated relative to a fixed day.

    ``reference_date(service)`` is the date the service's data calls "today" (relative dates
    in a call, "next Friday", are read against it before the call is made), or None for the
    real today. SGD's dialogues were collected as if on 2019-03-01.
    """

    def reference_date(self, service: str) -> date | None: ...


def reference_date(backend: Backend, service: str) -> date:
    """The day "today" means for calls to ``service`` on ``backend``: the backend's own
    (``ReferenceDates``), else the real today (``$TOD_TODAY`` pins it: see ``clock_today``).
    Backends without the capability keep working: they get the real today."""
    # what ``isinstance(backend, ReferenceDates)`` checks (the method is there and not None),
    # without the protocol's walk over its attributes at every call
    method = getattr(backend, "reference_date", None)
    own = method(service) if method is not None else None
    return own if own is not None else clock_today()


def known_service(schemas: Schemas, service: str) -> None:
    if service not in schemas:
        raise InputError(f"unknown service {service!r}", hint=f"known: {', '.join(schemas)}")


def known_intent(schemas: Schemas, service: str, method: str) -> IntentSchema:
    """The intent a call names, or an InputError naming what is unknown."""
    known_service(schemas, service)
    intent = schemas[service].intent(method)
    if intent is None:
        raise InputError(f"{method!r} is not an intent of {service}")
    return intent
