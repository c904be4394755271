"""Several processes opening one new SQLite store at the same moment (two `tod chat --store
sqlite:///...` started together): every one opens it."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from tod_runtime.stores.sqlite import SQLiteStore

PROCESSES = 6
ROUNDS = 4


def _open(path: str, barrier: multiprocessing.synchronize.Barrier) -> None:
    barrier.wait()
    SQLiteStore(path)  # raises (the process exits non-zero) if the database stays locked


def test_processes_opening_a_new_store_at_once_all_open_it(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    for n in range(ROUNDS):
        path = str(tmp_path / f"new{n}.db")
        barrier = ctx.Barrier(PROCESSES)
        procs = [ctx.Process(target=_open, args=(path, barrier)) for _ in range(PROCESSES)]
        for proc in procs:
            proc.start()
        for proc in procs:
            proc.join(timeout=120)
        assert [proc.exitcode for proc in procs] == [0] * PROCESSES
