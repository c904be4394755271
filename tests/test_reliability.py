"""The one error path (an exit status per error class, one line, a traceback log for bugs)
and the one file writer (atomic, never over an existing output without --force)."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from tod_runtime.cli import EXIT_CODES, exit_code, main
from tod_runtime.errors import (
    ConfigError,
    DataError,
    InputError,
    IOFailure,
    PluginError,
    SchemaError,
    StageFailed,
    TodError,
)
from tod_runtime.files import (
    atomic_open,
    atomic_write,
    check_output,
    check_output_dir,
    remove_temporaries,
)

ROOT = Path(__file__).resolve().parents[1]
SERVICES = ROOT / "services"
MINI = ROOT / "tests" / "fixtures" / "sgd_mini"

BOOM_COMMAND = (
    "from tod_runtime import hookimpl\n"
    "def run(args):\n"
    "    raise RuntimeError('kaboom')\n"
    "@hookimpl\n"
    "def register_commands(cli):\n"
    "    cli.add_parser('boom').set_defaults(func=run)\n"
)


def one_line(err: str) -> str:
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_every_error_class_has_its_own_exit_status() -> None:
    codes = {
        cls: exit_code(cls("x"))
        for cls in (ConfigError, DataError, SchemaError, InputError, PluginError, IOFailure)
    }
    assert codes[ConfigError] == 2
    assert codes[DataError] == codes[SchemaError] == codes[InputError] == 3
    assert codes[PluginError] == exit_code(StageFailed("x")) == 4
    assert codes[IOFailure] == 5
    assert exit_code(TodError("x")) == 3
    assert EXIT_CODES[-1][0] is TodError  # the catch-all comes last


def test_an_unexpected_error_is_one_line_and_a_traceback_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("TOD_DEBUG", raising=False)
    (tmp_path / "boom.py").write_text(BOOM_COMMAND)
    assert main(["--plugins-dir", str(tmp_path), "boom"]) == 70
    err = one_line(capsys.readouterr().err)
    assert "internal error: RuntimeError: kaboom" in err
    [log] = (tmp_path / "state" / "tod-runtime").glob("crash-*.log")
    assert str(log) in err
    assert "Traceback" in log.read_text() and "kaboom" in log.read_text()


def test_debug_prints_the_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    (tmp_path / "boom.py").write_text(BOOM_COMMAND)
    assert main(["--plugins-dir", str(tmp_path), "--debug", "boom"]) == 70
    err = capsys.readouterr().err
    assert "Traceback" in err and "kaboom" in err
    assert not (tmp_path / "state").exists()


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay"]) == 2
    assert main(["chat", "--nlu", "nope", "--script", "-"]) == 2


def services_copy(tmp_path: Path) -> Path:
    shutil.copytree(SERVICES, tmp_path / "services")
    return tmp_path / "services"


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda s: s + s, "defined twice"),
        (lambda s: [], "list of services is empty"),
    ],
)
def test_a_schema_list_with_a_service_twice_or_none_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mutate: object, message: str
) -> None:
    services = services_copy(tmp_path)
    path = services / "Hotels" / "schema.json"
    path.write_text(json.dumps(mutate(json.loads(path.read_text()))))  # type: ignore[operator]
    assert main(["chat", "--services", str(services), "--script", os.devnull]) == 3
    err = one_line(capsys.readouterr().err)
    assert message in err and "Hotels/schema.json" in err


def test_a_service_in_two_folders_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    services = services_copy(tmp_path)
    shutil.copytree(services / "Hotels", services / "Hotels2")
    assert main(["chat", "--services", str(services), "--script", os.devnull]) == 3
    assert "defined twice" in one_line(capsys.readouterr().err)


def test_a_misnamed_hook_is_one_line_with_the_right_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "typo.py").write_text(
        "from tod_runtime import hookimpl\n@hookimpl\ndef register_nlus(register):\n    pass\n"
    )
    assert main(["--plugins-dir", str(tmp_path), "plugins"]) == 4
    err = one_line(capsys.readouterr().err)
    assert "unknown hook 'register_nlus'" in err and "did you mean 'register_nlu'" in err
    (tmp_path / "typo.py").write_text(
        "from tod_runtime import hookimpl\n@hookimpl\ndef register_nlu(regster):\n    pass\n"
    )
    assert main(["--plugins-dir", str(tmp_path), "plugins"]) == 4
    assert "regster" in one_line(capsys.readouterr().err)


# ---------------------------------------------------------------- the file writer


def test_atomic_write_uses_the_umask_and_keeps_a_replaced_files_mode(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        from tod_runtime import files

        files._umask.cache_clear()
        atomic_write(tmp_path / "a.json", "{}")
        assert stat.S_IMODE((tmp_path / "a.json").stat().st_mode) == 0o640
    finally:
        os.umask(old)
        files._umask.cache_clear()
    (tmp_path / "a.json").chmod(0o600)
    atomic_write(tmp_path / "a.json", b"[]")
    assert stat.S_IMODE((tmp_path / "a.json").stat().st_mode) == 0o600
    assert (tmp_path / "a.json").read_text() == "[]"


def test_an_interrupted_write_keeps_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    target.write_text("old")
    with pytest.raises(KeyboardInterrupt), atomic_open(target) as out:
        out.write("half")
        raise KeyboardInterrupt
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]
    (tmp_path / ".x.json.abc.tmp").write_text("left by a kill")
    remove_temporaries(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_output_checks(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "r.json").write_text("{}")
    with pytest.raises(IOFailure, match="exists already"):
        check_output(tmp_path / "r.json")
    assert check_output(tmp_path / "r.json", force=True) == tmp_path / "r.json"
    with pytest.raises(IOFailure, match="does not exist"):
        check_output(tmp_path / "nowhere" / "r.json")
    with pytest.raises(IOFailure, match="inside the input"):
        check_output(tmp_path / "data" / "r.json", inputs=[tmp_path / "data"])
    with pytest.raises(IOFailure, match="inside the input"):
        check_output_dir(tmp_path, inputs=[tmp_path / "data"])
    out = tmp_path / "pred"
    check_output_dir(out, owned="dialogues_*.json")
    (out / "dialogues_001.json").write_text("[]")
    (out / "notes.txt").write_text("mine")
    with pytest.raises(IOFailure, match="earlier run"):
        check_output_dir(out, owned="dialogues_*.json")
    check_output_dir(out, owned="dialogues_*.json", force=True)
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


# ---------------------------------------------------------------- the commands' outputs


@pytest.fixture
def split(tmp_path: Path) -> Path:
    shutil.copytree(MINI, tmp_path / "sgd")
    return tmp_path / "sgd"


def test_replay_checks_its_outputs_before_the_work(
    split: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "r.json"
    base = ["replay", str(split), "--nlu", "gold"]
    assert main([*base, "--report", str(report)]) == 0
    first = report.read_text()
    capsys.readouterr()
    assert main([*base, "--report", str(report)]) == 5
    assert "exists already" in one_line(capsys.readouterr().err)
    assert report.read_text() == first
    assert main([*base, "--report", str(report), "--force"]) == 0
    assert main([*base, "--predictions", str(split / "dev")]) == 5
    assert "inside the input" in capsys.readouterr().err
    assert main([*base, "--junit", str(split / "dev" / "j.xml")]) == 5
    assert not (split / "dev" / "j.xml").exists()


def test_replay_predictions_are_never_mixed_with_an_earlier_runs(
    split: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pred = tmp_path / "pred"
    base = ["replay", str(split), "--nlu", "gold", "--predictions", str(pred)]
    assert main(base) == 0
    (pred / "dialogues_099.json").write_text("[]")  # as if from a bigger earlier run
    assert main(base) == 5
    assert "earlier run" in capsys.readouterr().err
    assert main([*base, "--force"]) == 0
    assert sorted(p.name for p in pred.iterdir()) == ["dialogues_001.json"]


def test_strict_stops_at_the_first_failed_dialogue(
    split: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = split / "dev" / "dialogues_001.json"
    data = json.loads(path.read_text())
    data[0]["turns"][-1]["frames"][0]["actions"][0]["act"] = "REQ_MORE"
    path.write_text(json.dumps(data))
    report = tmp_path / "r.json"
    assert main(["replay", str(split), "--nlu", "gold", "--report", str(report)]) == 0
    assert json.loads(report.read_text())["dialogues"] == 2
    capsys.readouterr()
    args = ["replay", str(split), "--nlu", "gold", "--strict", "--report", str(report), "--force"]
    assert main(args) == 1
    assert json.loads(report.read_text())["dialogues"] == 1  # stopped at the first
    assert "stopped at the first failed dialogue" in capsys.readouterr().err


def test_chat_save_never_replaces_a_file_without_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "talk.json"
    target.write_text("precious")
    script = tmp_path / "turns.txt"
    script.write_text(f"I want to find a restaurant\n/save {target}\n")
    assert main(["chat", "--script", str(script), "--json", "--nlu", "rules"]) == 0
    last = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert "exists already" in last["error"] and target.read_text() == "precious"
    script.write_text(f"I want to find a restaurant\n/save --force {target}\n")
    assert main(["chat", "--script", str(script), "--json", "--nlu", "rules"]) == 0
    assert json.loads(target.read_text())[0]["turns"]


def test_chat_record_may_not_go_into_the_services(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    services = services_copy(tmp_path)
    args = ["chat", "--services", str(services), "--record", str(services / "rec")]
    assert main([*args, "--script", os.devnull]) == 5
    assert "inside the input" in one_line(capsys.readouterr().err)


def test_train_checks_out_before_training(
    split: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "model"
    out.mkdir()
    (out / "nlu.npz").write_bytes(b"old")
    assert main(["train", "nlu", str(split), "--out", str(out)]) == 5
    assert "exists already" in one_line(capsys.readouterr().err)
    assert main(["train", "nlu", str(split), "--out", str(split / "m")]) == 5
    assert "inside the input" in capsys.readouterr().err


def test_a_recorded_chat_whose_frames_carry_only_state_replays_exactly(tmp_path: Path) -> None:
    """A recorded user frame with no acts (a service that only has state) is no difference."""
    import sys

    sys.path.insert(0, str(ROOT / "scripts"))
    from record_faults import SCRIPT

    script = tmp_path / "turns.txt"
    script.write_text("\n".join(SCRIPT) + "\n")
    rec = tmp_path / "rec"
    assert main(["chat", "--nlu", "rules", "--script", str(script), "--record", str(rec)]) == 0
    (rec / ".dialogues_001.json.x.tmp").write_text("left by a kill -9")
    assert main(["replay", str(rec), "--services", str(SERVICES), "--nlu", "rules",
                 "--expect-exact"]) == 0  # fmt: skip
    script.write_text("hello\n")
    assert main(["chat", "--nlu", "rules", "--script", str(script), "--record", str(rec)]) == 0
    assert not list(rec.glob(".*.tmp"))  # the next recording chat removed it
