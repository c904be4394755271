"""The recorded-results backend for replay: a call that matches the dataset's recording gets
the recorded results; any other call is answered from the split's tables."""

from __future__ import annotations

from tod_runtime.backends.sgd_tables import SGDTablesBackend, parse_sgd_source
from tod_runtime.data.sgd import open_split
from tod_runtime.dialogue.models import ServiceCall
from tod_runtime.errors import InputError


class RecordedBackend(SGDTablesBackend):
    @classmethod
    def from_source(cls, source: str) -> RecordedBackend:
        parsed = parse_sgd_source(source)
        if parsed is None:
            raise InputError("expected SGD_DIR:split", file=source)
        return cls(open_split(*parsed))

    async def call(self, service: str, call: ServiceCall) -> list[dict[str, str]]:
        recorded = self.recorded(service, call)
        if recorded is not None:
            self._intent(service, call.method)
            return [dict(row) for row in recorded]
        return await super().call(service, call)
