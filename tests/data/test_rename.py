"""The renaming transform: opaque names everywhere a name appears, nothing else changed."""

from __future__ import annotations

import json
from pathlib import Path

from tod_runtime.cli import main
from tod_runtime.data.rename import Renaming, rename_split
from tod_runtime.data.sgd import open_split

MINI = Path(__file__).parents[1] / "fixtures" / "sgd_mini"


def _names(split_dir: Path) -> set[str]:
    schemas = json.loads((split_dir / "schema.json").read_text())
    names = {s["service_name"] for s in schemas}
    names |= {i["name"] for s in schemas for i in s["intents"]}
    names |= {sl["name"] for s in schemas for sl in s["slots"]}
    return names


def test_every_name_changes_and_nothing_else(tmp_path: Path) -> None:
    split = open_split(MINI, "dev")
    folder = rename_split(split, tmp_path)
    renamed = open_split(tmp_path, "dev")
    old, new = split.schemas(), renamed.schemas()
    assert all(n.startswith(("Service_", "Intent_", "slot_")) for n in _names(folder))
    for before, after in zip(old.values(), new.values(), strict=True):
        assert before.description == after.description
        assert [s.description for s in before.slots] == [s.description for s in after.slots]
        assert [s.possible_values for s in before.slots] == [s.possible_values for s in after.slots]
    renaming = Renaming.opaque(old.values())
    dialogues = split.read_file("dialogues_001.json")
    again = renamed.read_file("dialogues_001.json", schemas=new)  # still consistent
    assert [renaming.dialogue(d) for d in dialogues] == again
    for a, b in zip(dialogues, again, strict=True):
        assert [t.utterance for t in a.turns] == [t.utterance for t in b.turns]
        values_a = [
            sorted(f.state.slot_values.values()) for t in a.turns for f in t.frames if f.state
        ]
        values_b = [
            sorted(f.state.slot_values.values()) for t in b.turns for f in t.frames if f.state
        ]
        assert values_a == values_b
    text = (folder / "dialogues_001.json").read_text()
    old_names = {n for n in _names(MINI / "dev") if len(n) > 3}
    assert not {n for n in old_names if f'"{n}"' in text}


def test_identity_renaming_copies_the_split(tmp_path: Path) -> None:
    split = open_split(MINI, "dev")
    folder = rename_split(split, tmp_path, renaming=Renaming())
    assert json.loads((folder / "dialogues_001.json").read_text()) == split.read_raw(
        "dialogues_001.json"
    )


def test_tod_data_rename(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["data", "rename", str(MINI), "--split", "dev", "--out", str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "dev")
    assert (tmp_path / "dev" / "schema.json").is_file()
