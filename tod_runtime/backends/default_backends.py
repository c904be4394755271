"""Built-in backends, registered like any plugin's.

* ``mock``: a services folder (``<Service>/schema.json`` + ``<Service>/db.json``) served from
  an in-memory SQLite database;
* ``sgd``: ``SGD_DIR:split`` (a folder or zip), tables built from every ``service_results``;
* ``recorded``: like ``sgd``, but a call that matches a recording gets the recorded results
  (replay wraps whatever backend it runs on the same way).
"""

from __future__ import annotations

from tod_runtime.backends.base import Backend
from tod_runtime.hookspecs import BackendRegister, hookimpl


def _mock(source: str) -> Backend:
    from tod_runtime.backends.mock import MockBackend

    return MockBackend(source)


def _mock_accepts(source: str) -> bool:
    from tod_runtime.backends.mock import is_services_folder

    return bool(is_services_folder(source))


def _sgd(source: str) -> Backend:
    from tod_runtime.backends.sgd_tables import SGDTablesBackend

    return SGDTablesBackend.from_source(source)


def _sgd_accepts(source: str) -> bool:
    from tod_runtime.backends.sgd_tables import parse_sgd_source

    return bool(parse_sgd_source(source) is not None)


def _recorded(source: str) -> Backend:
    from tod_runtime.backends.recorded import RecordedBackend

    return RecordedBackend.from_source(source)


@hookimpl
def register_backends(register: BackendRegister) -> None:
    register("mock", _mock, _mock_accepts)
    register("sgd", _sgd, _sgd_accepts)
    register("recorded", _recorded)
