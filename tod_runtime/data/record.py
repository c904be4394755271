"""Write conversations as SGD split folders (schema.json + dialogues_NNN.json) so that
``tod replay`` can replay them as regression tests."""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from tod_runtime.dialogue.models import Dialogue
from tod_runtime.errors import DataError
from tod_runtime.schema.loader import load_schema_file
from tod_runtime.schema.models import ServiceSchema

_NUMBERED = re.compile(r"dialogues_(\d+)\.json$")


def _write_json(path: Path, data: object) -> None:
    """Write atomically: a temporary file in the same folder, then rename."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=2, ensure_ascii=False)
            out.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def merge_schema_file(
    folder: Path, schemas: Mapping[str, ServiceSchema], used: Sequence[str]
) -> None:
    """Make ``folder/schema.json`` hold every service in ``used`` (keeping what it had)."""
    path = folder / "schema.json"
    known = {s.service_name: s for s in load_schema_file(path)} if path.exists() else {}
    for name in used:
        if name not in schemas:
            raise DataError(f"service {name!r} has no schema", file=str(path))
        known.setdefault(name, schemas[name])
    _write_json(path, [s.to_json() for s in known.values()])


def next_dialogue_file(folder: Path) -> Path:
    numbers = [
        int(m.group(1)) for p in folder.glob("dialogues_*.json") if (m := _NUMBERED.match(p.name))
    ]
    return folder / f"dialogues_{max(numbers, default=0) + 1:03d}.json"


def save_dialogues(
    target: str | Path,
    dialogues: Sequence[Dialogue],
    schemas: Mapping[str, ServiceSchema],
) -> Path:
    """Save dialogues into an SGD split folder (``target`` is a folder) or into a given
    ``dialogues_NNN.json`` file; schema.json beside it gets the services used. Returns the
    dialogue file written."""
    path = Path(target)
    if path.suffix == ".json":
        folder, file = path.parent, path
    else:
        folder = path
        folder.mkdir(parents=True, exist_ok=True)
        file = next_dialogue_file(folder)
    if not folder.is_dir():
        raise DataError("folder does not exist", file=str(folder))
    used = sorted({s for d in dialogues for s in d.services})
    merge_schema_file(folder, schemas, used)
    _write_json(file, [d.to_json() for d in dialogues])
    return file
