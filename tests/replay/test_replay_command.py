"""`tod replay` on a small handwritten split: report, JUnit, predictions, exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tod_runtime.cli import main
from tod_runtime.replay.aggregate import METRICS

MINI = Path(__file__).parents[1] / "fixtures" / "sgd_mini"


@pytest.fixture
def split(tmp_path: Path) -> Path:
    shutil.copytree(MINI, tmp_path / "sgd")
    return tmp_path / "sgd"


def break_one_annotation(split: Path) -> None:
    """Make the second dialogue's last system turn disagree with the policy."""
    path = split / "dev" / "dialogues_001.json"
    data = json.loads(path.read_text())
    data[1]["turns"][-1]["frames"][0]["actions"][0]["act"] = "REQ_MORE"
    path.write_text(json.dumps(data))


def test_report_has_the_documented_keys(split: Path, tmp_path: Path) -> None:
    report_path = tmp_path / "report.json"
    code = main(["replay", str(split), "--split", "dev", "--nlu", "gold",
                 "--report", str(report_path)])  # fmt: skip
    assert code == 0
    report = json.loads(report_path.read_text())
    assert report["dialogues"] == 2 and report["turns"] == 14 and report["seconds"] >= 0
    assert set(report["metrics"]) == set(METRICS)
    assert report["metrics"]["joint_goal_accuracy"] == 1.0
    assert report["metrics"]["system_act_f1"] == 1.0
    assert report["metrics"]["service_call_accuracy"] == 1.0
    assert set(report["groups"]) == {"seen", "unseen", "services"}
    assert report["groups"]["services"]["Cafes_1"]["joint_goal_accuracy"] == 1.0
    assert report["notes"]  # no train split here: every service counts as unseen
    assert report["passed"] == 2 and report["failed"] == 0


def test_junit_has_a_case_per_dialogue_with_a_diff(split: Path, tmp_path: Path) -> None:
    break_one_annotation(split)
    junit = tmp_path / "replay.xml"
    assert main(["replay", str(split), "--nlu", "gold", "--junit", str(junit)]) == 0
    suite = ET.parse(junit).getroot()
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["1_00000", "1_00001"]
    assert cases[0].find("failure") is None
    failure = cases[1].find("failure")
    assert failure is not None and failure.text is not None
    assert "turn 3 SYSTEM Cafes_1 acts: expected [REQ_MORE()] got [GOODBYE()]" in failure.text


def test_fail_under_sets_the_exit_code(split: Path) -> None:
    break_one_annotation(split)
    args = ["replay", str(split), "--nlu", "gold"]
    assert main([*args, "--fail-under", "system_act_f1=0.5"]) == 0
    assert main([*args, "--fail-under", "system_act_f1=0.99"]) == 1
    assert main([*args, "--fail-under", "nonsense=1"]) == 2


def test_predictions_are_sgd_files_with_predicted_states(split: Path, tmp_path: Path) -> None:
    out = tmp_path / "pred"
    assert main(["replay", str(split), "--nlu", "gold", "--predictions", str(out)]) == 0
    predicted = json.loads((out / "dialogues_001.json").read_text())
    gold = json.loads((split / "dev" / "dialogues_001.json").read_text())
    assert [d["dialogue_id"] for d in predicted] == [d["dialogue_id"] for d in gold]
    user_frames = [f for t in predicted[0]["turns"] if t["speaker"] == "USER" for f in t["frames"]]
    assert all("state" in f for f in user_frames)
    assert user_frames[-1]["state"]["slot_values"]["party_size"] == ["2"]


def test_an_invalid_file_is_skipped_or_fails_the_run_with_strict(
    split: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (split / "dev" / "dialogues_002.json").write_text('[{"dialogue_id": "x", "services": 3}]')
    report = tmp_path / "r.json"
    assert main(["replay", str(split), "--nlu", "gold", "--report", str(report)]) == 0
    skipped = json.loads(report.read_text())["skipped_files"]
    assert len(skipped) == 1 and "dialogues_002.json" in skipped[0]["file"]
    assert "dialogue x" in skipped[0]["error"]
    capsys.readouterr()
    assert main(["replay", str(split), "--nlu", "gold", "--strict"]) == 2
    err = capsys.readouterr().err
    assert "dialogues_002.json" in err and err.count("\n") == 1


def test_workers_and_limit_give_the_same_numbers(split: Path, tmp_path: Path) -> None:
    reports = []
    for workers in ("1", "2"):
        path = tmp_path / f"r{workers}.json"
        main(["replay", str(split), "--workers", workers, "--report", str(path)])
        report = json.loads(path.read_text())
        reports.append((report["metrics"], report["dialogues"]))
    assert reports[0] == reports[1]
    path = tmp_path / "limited.json"
    main(["replay", str(split), "--nlu", "gold", "--limit", "1", "--report", str(path)])
    assert json.loads(path.read_text())["dialogues"] == 1


def test_pytest_plugin_collects_dialogues(split: Path, tmp_path: Path) -> None:
    break_one_annotation(split)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--tod-dialogues",
            str(split / "dev"),
            "--tod-nlu",
            "gold",
            str(tmp_path),
        ],  # fmt: skip
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert "1 failed, 1 passed" in done.stdout, done.stdout + done.stderr
    assert "expected [REQ_MORE()] got [GOODBYE()]" in done.stdout


def test_recorded_chat_conversations_replay(tmp_path: Path) -> None:
    script = tmp_path / "turns.txt"
    script.write_text("I need a hotel\nin Seattle\nthanks, bye\n")
    assert main(["chat", "--script", str(script), "--record", str(tmp_path / "mine")]) == 0
    report = tmp_path / "r.json"
    assert main(["replay", str(tmp_path / "mine"), "--split", "mine", "--report", str(report)]) == 0
    result = json.loads(report.read_text())
    assert result["dialogues"] == 1 and result["passed"] == 1
