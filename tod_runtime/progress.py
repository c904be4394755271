"""Progress bars for long work: shown on a terminal, silent when piped or under CI."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol


class Progress(Protocol):
    def advance(self, amount: float = 1) -> None: ...

    def total(self, total: float | None) -> None: ...


class _Silent:
    def advance(self, amount: float = 1) -> None:
        pass

    def total(self, total: float | None) -> None:
        pass


class _Rich:
    def __init__(self, bar: object, task: object) -> None:
        self._bar = bar
        self._task = task

    def advance(self, amount: float = 1) -> None:
        self._bar.advance(self._task, amount)  # type: ignore[attr-defined]

    def total(self, total: float | None) -> None:
        self._bar.update(self._task, total=total)  # type: ignore[attr-defined]


def progress_enabled() -> bool:
    """Bars only on an interactive terminal, never under CI or TOD_NO_PROGRESS."""
    if os.environ.get("CI") or os.environ.get("TOD_NO_PROGRESS"):
        return False
    return sys.stderr.isatty()


@contextmanager
def progress(description: str, total: float | None = None, *, unit: str = "") -> Iterator[Progress]:
    """``with progress("replay", total=n) as bar: bar.advance()``."""
    if not progress_enabled():
        yield _Silent()
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        MofNCompleteColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.progress import Progress as RichProgress

    count = DownloadColumn() if unit == "bytes" else MofNCompleteColumn()
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        count,
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with RichProgress(*columns, console=Console(stderr=True), transient=False) as bar:
        task = bar.add_task(description, total=total)
        yield _Rich(bar, task)
