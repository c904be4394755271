"""The one home of writing files: every file the runtime writes goes through here.

- ``atomic_open`` / ``atomic_write``: a temporary file in the target's folder, flushed and
  fsynced, then ``os.replace``d onto the target, so a reader (or a crash, or a kill -9) sees
  the old file or the new one and never half of one. The temporary file is removed when the
  writing fails or is interrupted. A new file gets the user's normal permissions (0666 less
  the umask, not mkstemp's 0600); a replaced file keeps its own.
- ``check_output`` / ``check_output_dir``: called by a command before its long work starts.
  An existing output is an error unless ``force``; nothing is written inside a folder the
  command reads, and an output folder may not hold an input.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import IO, Any, Literal

from tod_runtime.errors import IOFailure

FORCE_HINT = "pass --force to replace it, or choose another name"


@cache
def _umask() -> int:
    mask = os.umask(0o022)  # the only way to read it is to set it: put it straight back
    os.umask(mask)
    return mask


def _mode_for(path: Path) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return 0o666 & ~_umask()


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextmanager
def atomic_open(
    path: str | Path, mode: Literal["w", "wb"] = "w", *, fsync: bool = True
) -> Iterator[IO[Any]]:
    """``with atomic_open(path) as out: out.write(...)``: the target appears (or is replaced)
    only when the block ends without an exception."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, _mode_for(path))
        encoding = None if "b" in mode else "utf-8"
        with os.fdopen(fd, mode, encoding=encoding) as out:
            yield out
            out.flush()
            if fsync:
                os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if fsync:
        _fsync_dir(path.parent)


def remove_temporaries(folder: str | Path) -> None:
    """Remove the temporary files ``atomic_open`` left in ``folder`` (a process killed while
    writing cannot remove its own)."""
    for path in Path(folder).glob(".*.tmp"):
        path.unlink(missing_ok=True)


def atomic_write(path: str | Path, data: str | bytes, *, fsync: bool = True) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` atomically."""
    if isinstance(data, bytes):
        with atomic_open(path, "wb", fsync=fsync) as out:
            out.write(data)
    else:
        with atomic_open(path, "w", fsync=fsync) as out:
            out.write(data)


def write_json(path: str | Path, data: object, *, indent: int | None = 2) -> None:
    """Write ``data`` as JSON (UTF-8, a final newline) atomically."""
    atomic_write(path, json.dumps(data, indent=indent, ensure_ascii=False) + "\n")


# ---------------------------------------------------------------- checks before the work


def _inside(child: Path, parent: Path) -> bool:
    return child == parent or parent in child.parents


def check_apart(output: str | Path, inputs: Iterable[str | Path], what: str = "output") -> None:
    """An output may not lie inside an input folder, nor an output folder hold an input."""
    out = Path(output).resolve()
    for given in inputs:
        source = Path(given).resolve()
        if not source.exists():
            continue
        if (source.is_dir() and _inside(out, source)) or _inside(source, out):
            raise IOFailure(
                f"the {what} would be written inside the input {given}",
                file=str(output),
                hint="write outputs outside the folder being read",
            )


def check_output(
    path: str | Path,
    *,
    force: bool = False,
    inputs: Iterable[str | Path] = (),
    what: str = "output",
) -> Path:
    """Check, before the work starts, that a file output can be written: its folder exists
    and is writable, it lies outside every input, and it does not exist yet (unless
    ``force``). Returns the path."""
    path = Path(path)
    if path.is_dir():
        raise IOFailure(f"the {what} is a folder", file=str(path), hint="give a file name")
    folder = path.parent
    if not folder.is_dir():
        raise IOFailure(
            "the folder does not exist", file=str(folder), hint=f"create it before writing {path}"
        )
    if not os.access(folder, os.W_OK):
        raise IOFailure("the folder is not writable", file=str(folder))
    check_apart(path, inputs, what)
    if path.exists() and not force:
        raise IOFailure(f"the {what} exists already", file=str(path), hint=FORCE_HINT)
    return path


def check_output_dir(
    path: str | Path,
    *,
    force: bool = False,
    inputs: Iterable[str | Path] = (),
    owned: str = "*",
    what: str = "output folder",
) -> Path:
    """Check, before the work starts, that a folder can take the outputs: it lies apart from
    every input, and holds no earlier output (files matching ``owned``). With ``force`` the
    earlier outputs are removed now, so an earlier run's files never mix with this run's.
    Creates the folder. Returns it."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise IOFailure(f"the {what} is a file", file=str(path), hint="give a folder")
    check_apart(path, inputs, what)
    stale = sorted(path.glob(owned)) if path.is_dir() else []
    if stale and not force:
        raise IOFailure(
            f"the {what} holds {len(stale)} file(s) of an earlier run ({stale[0].name}...)",
            file=str(path),
            hint="pass --force to remove them first, or choose an empty folder",
        )
    for old in stale:
        if old.is_file():
            old.unlink()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise IOFailure(f"cannot create the folder: {exc.strerror}", file=str(path)) from None
    if not os.access(path, os.W_OK):
        raise IOFailure("the folder is not writable", file=str(path))
    return path
