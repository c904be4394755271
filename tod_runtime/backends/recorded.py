"""The recorded-results backend for replay: a call that matches the dataset's recording gets
the recorded results; any other call is answered from the split's tables."""

from __future__ import annotations

from tod_runtime.backends.base import known_intent
from tod_runtime.backends.sgd_tables import SGDTablesBackend
from tod_runtime.dialogue.models import ServiceCall


class RecordedBackend(SGDTablesBackend):
    async def call(self, service: str, call: ServiceCall) -> list[dict[str, str]]:
        recorded = self.recorded(service, call)
        if recorded is not None:
            known_intent(self._schemas, service, call.method)
            return [dict(row) for row in recorded]
        return await super().call(service, call)
