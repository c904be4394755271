"""Service-call executors: the only place a pipeline reaches data outside the session."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from tod_runtime.dialogue.models import ServiceCall
from tod_runtime.schema.loader import Schemas


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
