"""Every schema and dialogue file of the shared SGD data loads, validates and round-trips."""

from __future__ import annotations

from pathlib import Path

import pytest

from tod_runtime.data import available_splits, open_split


@pytest.mark.parametrize("split", ["dev", "train"])
def test_every_file_round_trips_to_equal_json(sgd_zip: Path, split: str) -> None:
    data = open_split(sgd_zip, split)
    raw_schema = data.read_raw("schema.json")
    schemas = data.schemas()
    assert [s.to_json() for s in schemas.values()] == raw_schema
    files = data.dialogue_files()
    assert files, "no dialogue files"
    dialogues = turns = 0
    for file in files:
        raw = data.read_raw(file)
        parsed = data.read_file(file, schemas=schemas)
        assert [d.to_json() for d in parsed] == raw, file
        dialogues += len(parsed)
        turns += sum(len(d.turns) for d in parsed)
    # The shared README's counts: the code itself never assumes them.
    expected = {"dev": (2098, 38768), "train": (12174, 223756)}[split]
    assert (dialogues, turns) == expected


def test_archive_layout_is_found(sgd_zip: Path) -> None:
    assert available_splits(sgd_zip) == ["dev", "train"]
    assert open_split(sgd_zip, "dev").inner == "dstc8-schema-guided-dialogue-master/dev"
