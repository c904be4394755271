"""M2M (sim-M / sim-R) dialogues converted to SGD split folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SHARED, require_shared

from tod_runtime.cli import main
from tod_runtime.data.m2m import convert, convert_files, split_name
from tod_runtime.data.sgd import open_split
from tod_runtime.errors import DataError


def _utterance(text: str, slots: list[tuple[str, int, int]] = ()) -> dict[str, object]:  # type: ignore[assignment]
    return {
        "text": text,
        "tokens": text.split(" "),
        "slots": [{"slot": s, "start": a, "exclusive_end": b} for s, a, b in slots],
    }


DIALOGUE = {
    "dialogue_id": "movies_00000001",
    "turns": [
        {
            "user_intents": ["BUY_MOVIE_TICKETS"],
            "user_acts": [{"type": "GREETING"}, {"type": "INFORM"}],
            "user_utterance": _utterance(
                "hi , 2 tickets for deadpool please", [("num_tickets", 2, 3), ("movie", 5, 6)]
            ),
            "dialogue_state": [
                {"slot": "num_tickets", "value": "2"},
                {"slot": "movie", "value": "deadpool"},
            ],
        },
        {
            "system_acts": [
                {"type": "SELECT", "slot": "time", "value": "6 pm"},
                {"type": "SELECT", "slot": "time", "value": "8 pm"},
            ],
            "system_utterance": _utterance("6 pm or 8 pm ?", [("time", 0, 2), ("time", 3, 5)]),
            "user_acts": [{"type": "AFFIRM", "slot": "time"}],
            "user_utterance": _utterance("8 pm works", [("time", 0, 2)]),
            "dialogue_state": [
                {"slot": "num_tickets", "value": "2"},
                {"slot": "movie", "value": "deadpool"},
                {"slot": "time", "value": "8 pm"},
            ],
        },
        {
            "system_acts": [{"type": "NOTIFY_SUCCESS", "slot": "time", "value": "8 pm"}],
            "system_utterance": _utterance("done , 8 pm ."),
            "user_acts": [{"type": "THANK_YOU"}, {"type": "GOOD_BYE"}],
            "user_utterance": _utterance("thanks bye"),
            "dialogue_state": [
                {"slot": "num_tickets", "value": "2"},
                {"slot": "movie", "value": "deadpool"},
                {"slot": "time", "value": "8 pm"},
            ],
        },
    ],
}


def test_one_dialogue() -> None:
    schemas, splits = convert([("dev", [DIALOGUE])])
    (schema,) = schemas
    assert schema.service_name == "movies"
    assert [s.name for s in schema.slots] == ["movie", "num_tickets", "time"]
    intent = schema.intent("BUY_MOVIE_TICKETS")
    assert intent is not None and intent.is_transactional
    assert intent.required_slots == ["movie", "num_tickets", "time"]
    (dialogue,) = splits["dev"]
    assert [t.speaker for t in dialogue.turns] == ["USER", "SYSTEM", "USER", "SYSTEM", "USER"]
    first = dialogue.turns[0]
    frame = first.frames[0]
    assert [first.utterance[s.start : s.exclusive_end] for s in frame.slots] == ["2", "deadpool"]
    assert [str(a) for a in frame.actions] == [
        "INFORM_INTENT(intent=BUY_MOVIE_TICKETS)",
        "INFORM(num_tickets=2)",
        "INFORM(movie=deadpool)",
    ]
    assert frame.state is not None and frame.state.active_intent == "BUY_MOVIE_TICKETS"
    offer = dialogue.turns[1].frames[0]
    assert [str(a) for a in offer.actions] == ["OFFER(time=6 pm)", "OFFER(time=8 pm)"]
    assert [str(a) for a in dialogue.turns[2].frames[0].actions] == ["SELECT(time=8 pm)"]
    assert dialogue.turns[2].frames[0].state.slot_values["time"] == ["8 pm"]  # type: ignore[union-attr]
    assert [str(a) for a in dialogue.turns[4].frames[0].actions] == ["THANK_YOU()", "GOODBYE()"]


def test_split_names() -> None:
    assert split_name("sim-M-dev.json") == "dev"
    assert split_name("/x/sim-R-train.json") == "train"
    with pytest.raises(DataError, match="split"):
        split_name("movies.json")


def test_files_and_errors(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    source = tmp_path / "sim-M-dev.json"
    source.write_text(json.dumps([DIALOGUE]))
    out = tmp_path / "out"
    assert main(["data", "convert", "m2m", str(source), "--out", str(out)]) == 0
    assert capsys.readouterr().out.strip() == str(out / "dev")
    split = open_split(out, "dev")
    assert len(list(split.dialogues(schemas=split.schemas()))) == 1
    assert main(["data", "convert", "m2m", str(source), "--out", str(out)]) != 0  # exists
    assert main(["data", "convert", "m2m", str(source), "--out", str(out), "--split", "x"]) == 0
    bad = tmp_path / "sim-M-test.json"
    bad.write_text('{"not": "a list"}')
    assert main(["data", "convert", "m2m", str(bad), "--out", str(tmp_path / "o2")]) != 0
    assert "not an M2M dialogue list" in capsys.readouterr().err


def test_sim_m_gold_replay(tmp_path: Path) -> None:
    m2m = require_shared(SHARED / "m2m")
    folders = convert_files([m2m / "sim-M-train.json", m2m / "sim-M-dev.json"], tmp_path / "simm")
    assert sorted(f.name for f in folders) == ["dev", "train"]
    report = tmp_path / "report.json"
    args = ["replay", str(tmp_path / "simm"), "--split", "dev", "--nlu", "gold"]
    assert main([*args, "--report", str(report)]) == 0
    result = json.loads(report.read_text())
    assert result["dialogues"] == 120
    assert result["metrics"]["joint_goal_accuracy"] >= 0.99
