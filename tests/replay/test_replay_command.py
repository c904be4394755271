"""`tod replay` on a small handwritten split: report, JUnit, predictions, exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from stage_helpers import fragile_nlu

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
    assert report["metrics"]["system_act_f1"] == 1.0  # the booked values unsaid in replay
    assert report["metrics"]["service_call_accuracy"] == 1.0
    assert set(report["groups"]) == {"seen", "unseen", "services"}
    assert report["groups"]["services"]["Cafes_1"]["joint_goal_accuracy"] == 1.0
    assert report["notes"]  # no train split here: every service counts as unseen
    assert report["passed"] == 2 and report["failed"] == 0
    assert report["config"]["dialogue_services"] is True  # DSTC8: each dialogue's are given


def test_all_services_lets_the_nlu_choose_among_every_service(split: Path, tmp_path: Path) -> None:
    report_path = tmp_path / "report.json"
    code = main(["replay", str(split), "--split", "dev", "--nlu", "rules", "--all-services",
                 "--report", str(report_path)])  # fmt: skip
    assert code == 0
    assert json.loads(report_path.read_text())["config"]["dialogue_services"] is False


def test_lower_case_gives_the_nlu_the_user_turns_in_lower_case(split: Path, tmp_path: Path) -> None:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    heard = tmp_path / "heard.txt"
    (plugins / "listening.py").write_text(
        "from tod_runtime import hookimpl\n"
        "from tod_runtime.nlu.rules import RulesNLU\n"
        "class Listening(RulesNLU):\n"
        "    async def parse(self, text, context):\n"
        f"        with open({str(heard)!r}, 'a') as out:\n"
        "            out.write(text + '\\n')\n"
        "        return await super().parse(text, context)\n"
        "@hookimpl\n"
        "def register_nlu(register):\n"
        "    register('listening', Listening)\n"
    )
    report = tmp_path / "r.json"
    args = ["replay", str(split), "--nlu", "listening", "--plugins-dir", str(plugins)]
    assert main([*args, "--report", str(report)]) == 0
    as_written = heard.read_text().splitlines()
    assert any(line != line.lower() for line in as_written)
    heard.unlink()
    assert main([*args, "--lower-case", "--report", str(report), "--force"]) == 0
    assert heard.read_text().splitlines() == [line.lower() for line in as_written]
    assert json.loads(report.read_text())["config"]["lower_case"] is True


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
    assert main(["replay", str(split), "--nlu", "gold", "--strict"]) == 3  # bad data
    err = capsys.readouterr().err
    assert "dialogues_002.json" in err and err.count("\n") == 1


def split_in_two_files(split: Path) -> None:
    path = split / "dev" / "dialogues_001.json"
    first, second = json.loads(path.read_text())
    path.write_text(json.dumps([first]))
    (split / "dev" / "dialogues_002.json").write_text(json.dumps([second]))


@pytest.mark.parametrize("nlu", ["gold", "rules"])
def test_a_process_pool_gives_the_single_process_report(
    split: Path, tmp_path: Path, nlu: str
) -> None:
    split_in_two_files(split)  # two files: the pool really gets two tasks
    reports = []
    for workers in ("1", "2"):
        path = tmp_path / f"r{workers}.json"
        code = main(["replay", str(split), "--nlu", nlu, "--workers", workers,
                     "--report", str(path)])  # fmt: skip
        assert code == 0
        report = json.loads(path.read_text())
        assert report["config"].pop("workers") == int(workers)
        report.pop("seconds")
        reports.append(report)
    assert reports[0]["dialogues"] == 2
    assert reports[0] == reports[1]


def test_limit_counts_dialogues(split: Path, tmp_path: Path) -> None:
    path = tmp_path / "limited.json"
    main(["replay", str(split), "--nlu", "gold", "--limit", "1", "--report", str(path)])
    assert json.loads(path.read_text())["dialogues"] == 1


def test_seen_depends_on_the_services_not_on_where_the_data_lies(
    split: Path, tmp_path: Path
) -> None:
    """Seen: a service of the train split beside the data, else of SGD's train split."""

    def seen_of(*args: str) -> tuple[float | None, float | None]:
        path = tmp_path / "r.json"
        assert main(["replay", *args, "--nlu", "gold", "--report", str(path), "--force"]) == 0
        groups = json.loads(path.read_text())["groups"]
        return groups["seen"]["joint_goal_accuracy"], groups["unseen"]["joint_goal_accuracy"]

    # Cafes_1 is not an SGD train service: unseen, from the dataset root or the split folder.
    assert seen_of(str(split)) == (None, 1.0)
    assert seen_of(str(split / "dev"), "--split", "dev") == (None, 1.0)
    assert seen_of(str(split / "dev")) == (None, 1.0)
    # A train split beside it that has Cafes_1: seen.
    shutil.copytree(split / "dev", split / "train")
    assert seen_of(str(split)) == (1.0, None)


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


def test_a_recorded_chat_replays_with_full_agreement(tmp_path: Path) -> None:
    """Record scripted chats against the embedded services, replay them through the same
    pipeline: every turn agrees (acts, state, calls, replies); a changed turn fails the run."""
    from tod_runtime.config import embedded_services_dir

    scripts = [
        "I want to find a restaurant\nin Austin\nItalian food please\nwhat is the phone number?\n"
        "sounds good, book it\nat 7 pm\nyes\nthanks, that's all\n",
        "I need a hotel\nin Seattle\nwhat is the address?\nthat works, book it\n"
        "tomorrow for 2 nights\nyes\nno thanks, bye\n",
    ]
    recording = tmp_path / "mine"
    for index, text in enumerate(scripts):
        script = tmp_path / f"turns{index}.txt"
        script.write_text(text)
        code = main(["chat", "--script", str(script), "--session", f"chat{index}",
                     "--record", str(recording)])  # fmt: skip
        assert code == 0
    replay = ["replay", str(recording), "--services", str(embedded_services_dir()),
              "--expect-exact"]  # fmt: skip
    report = tmp_path / "r.json"
    assert main([*replay, "--report", str(report)]) == 0
    result = json.loads(report.read_text())
    assert result["dialogues"] == 2 and result["passed"] == 2 and result["failed"] == 0
    assert result["metrics"]["joint_goal_accuracy"] == 1.0
    assert result["metrics"]["system_act_f1"] == 1.0 and result["metrics"]["bleu"] == 100.0
    assert result["groups"]["seen"]["joint_goal_accuracy"] is None  # not SGD's services

    path = recording / "dialogues_002.json"
    data = json.loads(path.read_text())
    data[0]["turns"][1]["utterance"] = "Which city, please?"  # the system said something else
    path.write_text(json.dumps(data))
    assert main(replay) == 1


def test_errors_lists_misses_wrong_values_and_false_fills_by_slot(
    split: Path, tmp_path: Path
) -> None:
    path = split / "dev" / "dialogues_001.json"
    data = json.loads(path.read_text())
    for turn in data[0]["turns"]:  # the annotation now expects another city
        for frame in turn["frames"]:
            if "state" in frame and "city" in frame["state"]["slot_values"]:
                frame["state"]["slot_values"]["city"] = ["Trondheim"]
    path.write_text(json.dumps(data))
    errors = tmp_path / "errors.txt"
    assert main(["replay", str(split), "--nlu", "gold", "--errors", str(errors)]) == 0
    text = errors.read_text()
    assert "== Cafes_1:" in text
    assert "  city: " in text and "wrong value" in text
    assert "expected Trondheim, got Oslo" in text
    assert "1_00000 turn" in text


def test_a_split_folder_is_not_replayed_under_another_splits_name(
    split: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(split / "dev"), "--split", "train", "--nlu", "gold"]) == 3
    assert "this folder is one split ('dev'), not 'train'" in capsys.readouterr().err
    assert main(["replay", str(split), "--split", "test"]) == 3
    assert "splits present: dev" in capsys.readouterr().err


def test_a_failing_component_fails_its_dialogue_and_replay_goes_on(
    split: Path, tmp_path: Path
) -> None:
    plugins = fragile_nlu(tmp_path / "plugins", "phone")
    report = tmp_path / "r.json"
    junit = tmp_path / "r.xml"
    code = main(["replay", str(split), "--nlu", "fragile", "--plugins-dir", str(plugins),
                 "--report", str(report), "--junit", str(junit)])  # fmt: skip
    assert code == 0
    result = json.loads(report.read_text())
    assert result["dialogues"] == 2 and result["failed"] >= 1
    failures = [f.text or "" for f in ET.parse(junit).getroot().iter("failure")]
    assert any(
        "nlu 'fragile' (plugin file:" in t and "ValueError('cannot cope')" in t for t in failures
    )


def test_sgd_replay_leaves_the_booked_values_unsaid_unless_the_config_asks(tmp_path: Path) -> None:
    from tod_runtime.replay.runner import ReplayOptions

    root = str(Path(__file__).parents[1] / "fixtures" / "sgd_mini")
    sgd = ReplayOptions(root=root, split="dev").runtime_config()
    assert sgd.options["policy"]["say_booked"] is False
    assert "clarify" in sgd.patterns_off  # SGD's users answer no question they were not asked
    chat = ReplayOptions(root=root, split="dev", services=root + ":dev").runtime_config()
    assert "say_booked" not in chat.options.get("policy", {})
    assert "clarify" not in chat.patterns_off
    config = tmp_path / "c.toml"
    config.write_text("[options.policy]\nsay_booked = true\n")
    asked = ReplayOptions(root=root, split="dev", config=str(config)).runtime_config()
    assert asked.options["policy"]["say_booked"] is True
