"""Write conversations as SGD split folders (schema.json + dialogues_NNN.json) so that
``tod replay`` can replay them as regression tests."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from tod_runtime.dialogue.models import Dialogue
from tod_runtime.errors import DataError
from tod_runtime.files import write_json
from tod_runtime.schema.loader import load_schema_file
from tod_runtime.schema.models import ServiceSchema

_NUMBERED = re.compile(r"dialogues_(\d+)\.json$")


def merge_schema_file(
    folder: Path, schemas: Mapping[str, ServiceSchema], used: Sequence[str]
) -> None:
    """Make ``folder/schema.json`` hold every service in ``used`` (keeping what it had);
    written only when that adds a service. A dialogue that used no service yet gets every
    service, so the folder is a valid split (a schema list is never empty)."""
    path = folder / "schema.json"
    known = {s.service_name: s for s in load_schema_file(path)} if path.exists() else {}
    before = len(known)
    for name in used or ([] if known else list(schemas)):
        if name not in schemas:
            raise DataError(f"service {name!r} has no schema", file=str(path))
        known.setdefault(name, schemas[name])
    if len(known) != before:
        write_json(path, [s.to_json() for s in known.values()])


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
    write_json(file, [d.to_json() for d in dialogues])
    return file
