"""Read SGD data in the public archive layout, from a folder or a zip, file by file.

Accepted roots: a split folder itself (holding schema.json), a folder holding split folders,
a folder holding one top folder with split folders (the unpacked archive), or the zip archive.
"""

from __future__ import annotations

import json
import re
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from tod_runtime.data.zips import read_member
from tod_runtime.dialogue.models import Dialogue
from tod_runtime.dialogue.validate import check_against_schemas, parse_dialogue_list
from tod_runtime.errors import DataError
from tod_runtime.schema.loader import Schemas, parse_schema_list

_DIALOGUE_FILE = re.compile(r"dialogues_\d+\.json$")


@dataclass(frozen=True)
class SGDSplit:
    """One split (train, dev, ...) of an SGD dataset, in a folder or inside a zip."""

    root: Path  # the folder or zip the user named
    name: str  # the split name
    inner: str  # the split folder: a path on disk, or a member prefix inside the zip

    @property
    def is_zip(self) -> bool:
        return self.root.is_file()

    def label(self, file: str) -> str:
        return f"{self.root}!{self.inner}/{file}" if self.is_zip else str(Path(self.inner) / file)

    def _read_json(self, file: str) -> Any:
        label = self.label(file)
        try:
            if self.is_zip:
                with zipfile.ZipFile(self.root) as archive:
                    raw = read_member(archive, f"{self.inner}/{file}", label)
            else:
                raw = (Path(self.inner) / file).read_bytes()
        except (KeyError, FileNotFoundError):
            raise DataError("file not found", file=label) from None
        except (OSError, zipfile.BadZipFile) as exc:
            raise DataError(f"cannot read file: {exc}", file=label) from None
        try:
            return json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise DataError(f"invalid JSON: {exc}", file=label) from None

    def schemas(self) -> Schemas:
        return Schemas(
            parse_schema_list(self._read_json("schema.json"), file=self.label("schema.json"))
        )

    def dialogue_files(self) -> list[str]:
        """Names of the split's dialogue files, in numeric order."""
        if self.is_zip:
            with zipfile.ZipFile(self.root) as archive:
                names = [
                    PurePosixPath(n).name
                    for n in archive.namelist()
                    if str(PurePosixPath(n).parent) == self.inner
                ]
        else:
            names = [p.name for p in Path(self.inner).iterdir()]
        return sorted(n for n in names if _DIALOGUE_FILE.fullmatch(n))

    def read_file(self, file: str, *, schemas: Schemas | None = None) -> list[Dialogue]:
        """Validate one dialogue file (and, given schemas, check it against them)."""
        label = self.label(file)
        dialogues = parse_dialogue_list(self._read_json(file), file=label)
        if schemas is not None:
            for dialogue in dialogues:
                check_against_schemas(dialogue, schemas, file=label)
        return dialogues

    def slices(
        self, limit: int | None, files: Sequence[str] | None = None
    ) -> list[tuple[str, int | None]]:
        """(file, how many of its dialogues) covering the first ``limit`` dialogues in file
        order (None: all of every file), over ``files`` or all the split's dialogue files."""
        files = self.dialogue_files() if files is None else list(files)
        if not files:
            raise DataError("no dialogues_*.json files", file=self.label(""))
        if limit is None:
            return [(f, None) for f in files]
        out: list[tuple[str, int | None]] = []
        left = limit
        for file in files:
            if left <= 0:
                break
            try:
                size = len(self.read_raw(file))
            except DataError:
                size = 0
            out.append((file, min(size, left)))
            left -= size
        return out

    def read_raw(self, file: str) -> Any:
        return self._read_json(file)

    def dialogues(self, *, schemas: Schemas | None = None) -> Iterator[Dialogue]:
        """Every dialogue of the split, one file in memory at a time."""
        for file in self.dialogue_files():
            yield from self.read_file(file, schemas=schemas)


def _zip_split_prefix(path: Path, split: str) -> str:
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
    except (OSError, zipfile.BadZipFile) as exc:
        raise DataError(f"not a readable zip archive: {exc}", file=str(path)) from None
    for name in names:
        p = PurePosixPath(name)
        if p.name == "schema.json" and p.parent.name == split:
            return str(p.parent)
    raise DataError(
        f"no split {split!r} in the archive",
        file=str(path),
        hint=f"splits present: {', '.join(available_splits(path)) or 'none'}",
    )


def available_splits(path: str | Path) -> list[str]:
    """Split names found under a dataset root (folder or zip)."""
    path = Path(path)
    if path.is_file():
        with zipfile.ZipFile(path) as archive:
            return sorted(
                {
                    PurePosixPath(n).parent.name
                    for n in archive.namelist()
                    if PurePosixPath(n).name == "schema.json"
                }
            )
    if (path / "schema.json").is_file():
        return [path.name]
    found = {p.parent.name for p in path.glob("schema.json")}
    found |= {p.parent.name for p in path.glob("*/schema.json")}
    found |= {p.parent.name for p in path.glob("*/*/schema.json")}
    return sorted(found)


def open_split(path: str | Path, split: str, *, itself: bool = True) -> SGDSplit:
    """Find split ``split`` under a dataset root: a folder, an unpacked archive or the zip.
    ``itself``: a folder holding schema.json is taken as the split whatever its name (a
    recorded conversation); off, only a folder named ``split`` counts."""
    root = Path(path)
    if not root.exists():
        raise DataError(
            "no such file or folder",
            file=str(root),
            hint="fetch the dataset first: tod data fetch sgd",
        )
    if root.is_file():
        return SGDSplit(root, split, _zip_split_prefix(root, split))
    for candidate in (root / split, *sorted(root.glob(f"*/{split}"))):
        if (candidate / "schema.json").is_file():
            return SGDSplit(root, split, str(candidate))
    if (
        itself and (root / "schema.json").is_file()
    ):  # the split folder itself (e.g. `tod chat --record`)
        return SGDSplit(root, split, str(root))
    raise DataError(
        f"no split {split!r} (a folder with schema.json) found",
        file=str(root),
        hint=f"splits present: {', '.join(available_splits(root)) or 'none'}",
    )


def sgd_train_services() -> frozenset[str]:
    """The services of SGD's train split (shipped, so "seen" means the same wherever the data
    being replayed lies)."""
    text = (Path(__file__).parent / "sgd_train_services.txt").read_text(encoding="utf-8")
    return frozenset(text.split())


def resolve_split(path: str | Path, split: str | None) -> str:
    """The split to read under ``path``: ``split``, or by default the folder itself when it is
    one split (it holds schema.json, as a recording does), else ``dev``. A split folder asked
    for by another split's name is an error, not a silent relabelling."""
    root = Path(path)
    itself = root.is_dir() and (root / "schema.json").is_file()
    if split is None:
        return root.name if itself else "dev"
    if itself and split != root.name and not (root / split / "schema.json").is_file():
        raise DataError(
            f"this folder is one split ({root.name!r}), not {split!r}",
            file=str(root),
            hint=f"leave out --split, or give the dataset folder that holds {split!r}",
        )
    return split
