"""Reading SGD folders and zips, and the errors bad files give."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

import tod_echo
from tod_runtime.cli import main
from tod_runtime.data import open_split
from tod_runtime.errors import DataError, SchemaError

SCHEMA = json.loads(tod_echo.SCHEMA.read_text())


def dialogue(**changes: object) -> dict[str, object]:
    d: dict[str, object] = {
        "dialogue_id": "1_00000",
        "services": ["Echo_1"],
        "turns": [
            {
                "speaker": "USER",
                "utterance": "find a thing in Paris",
                "frames": [
                    {
                        "service": "Echo_1",
                        "slots": [{"slot": "city", "start": 16, "exclusive_end": 21}],
                        "actions": [
                            {
                                "act": "INFORM",
                                "slot": "city",
                                "values": ["Paris"],
                                "canonical_values": ["Paris"],
                            }
                        ],
                        "state": {
                            "active_intent": "FindThing",
                            "requested_slots": [],
                            "slot_values": {"city": ["Paris"]},
                        },
                    }
                ],
            }
        ],
    }
    d.update(changes)
    return d


def write_split(root: Path, dialogues: list[object], schema: object = SCHEMA) -> Path:
    split = root / "top" / "dev"
    split.mkdir(parents=True)
    (split / "schema.json").write_text(json.dumps(schema))
    (split / "dialogues_001.json").write_text(json.dumps(dialogues))
    return root


def test_folder_and_zip_read_the_same(tmp_path: Path) -> None:
    root = write_split(tmp_path / "folder", [dialogue()])
    archive = tmp_path / "data.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in root.rglob("*"):
            zf.write(path, path.relative_to(root).as_posix())
    for source in (root, archive, root / "top", root / "top" / "dev"):
        split = open_split(source, "dev")
        assert split.dialogue_files() == ["dialogues_001.json"]
        [loaded] = list(split.dialogues(schemas=split.schemas()))
        assert loaded.to_json() == dialogue()


def test_unknown_split_names_the_ones_present(tmp_path: Path) -> None:
    root = write_split(tmp_path, [dialogue()])
    with pytest.raises(DataError, match="no split 'test'.*splits present: dev"):
        open_split(root, "test")


def bad_turn(**frame_changes: object) -> dict[str, object]:
    d = dialogue()
    d["turns"][0]["frames"][0].update(frame_changes)  # type: ignore[index]
    return d


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (bad_turn(actions=[{"act": "SHOUT", "slot": "", "values": []}]), r"turns\[0\]"),
        (bad_turn(actions=[{"act": "OFFER", "slot": "city", "values": []}]), "not a USER act"),
        (bad_turn(slots=[{"slot": "city", "start": 16, "exclusive_end": 99}]), "outside"),
        (bad_turn(service="Other_1"), "not among the dialogue's services"),
        (dialogue(turns="nope"), "turns"),
    ],
)
def test_bad_dialogues_name_file_dialogue_and_field(
    tmp_path: Path, bad: object, message: str
) -> None:
    split = open_split(write_split(tmp_path, [bad]), "dev")
    with pytest.raises(DataError, match=message) as info:
        split.read_file("dialogues_001.json")
    text = str(info.value)
    assert "dialogues_001.json" in text and "dialogue 1_00000" in text


def test_schema_checks_name_the_slot(tmp_path: Path) -> None:
    bad = dialogue()
    bad["turns"][0]["frames"][0]["state"]["slot_values"] = {"colour": ["red"]}  # type: ignore[index]
    split = open_split(write_split(tmp_path, [bad]), "dev")
    with pytest.raises(DataError, match="slot 'colour' is not a slot of Echo_1"):
        split.read_file("dialogues_001.json", schemas=split.schemas())


def test_broken_schema_names_service_and_field(tmp_path: Path) -> None:
    schema = json.loads(json.dumps(SCHEMA))
    schema[0]["intents"][0]["required_slots"] = ["colour"]
    split = open_split(write_split(tmp_path, [dialogue()], schema), "dev")
    with pytest.raises(SchemaError, match="service Echo_1.*'colour' is not one of"):
        split.schemas()


def test_invalid_json_names_the_file(tmp_path: Path) -> None:
    root = write_split(tmp_path, [])
    (root / "top" / "dev" / "dialogues_001.json").write_text("[{")
    with pytest.raises(DataError, match=r"dialogues_001\.json: invalid JSON"):
        open_split(root, "dev").read_file("dialogues_001.json")


def test_tod_data_validate_reports_bad_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_split(tmp_path, [bad_turn(service="Other_1")])
    (root / "top" / "dev" / "dialogues_002.json").write_text(json.dumps([dialogue()]))
    assert main(["data", "validate", str(root), "--split", "dev"]) == 1
    out, err = capsys.readouterr()
    assert '"dialogues": 1' in out and '"invalid_files": 1' in out
    assert "dialogues_001.json" in err and "Traceback" not in err
