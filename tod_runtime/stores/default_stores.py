"""Built-in session stores by URL scheme: ``memory://`` and ``sqlite:///path/to/file.db``."""

from __future__ import annotations

from tod_runtime.hookspecs import StoreRegister, hookimpl
from tod_runtime.stores.base import SessionStore
from tod_runtime.stores.memory import MemoryStore
from tod_runtime.stores.sqlite import SQLiteStore


def _sqlite(url: str) -> SessionStore:
    """``sqlite:///rel.db`` is relative to the working folder, ``sqlite:////abs.db`` absolute."""
    path = url.split("://", 1)[1]
    return SQLiteStore(path[1:] if path.startswith("/") else path)


@hookimpl
def register_stores(register: StoreRegister) -> None:
    register("memory", lambda url: MemoryStore())
    register("sqlite", _sqlite)
