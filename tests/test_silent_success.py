"""No silent success: a run that did nothing, or whose turns failed, does not exit 0; bad
counts are refused before the work; outputs never overwrite each other or the data."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tod_runtime.cli import main

ROOT = Path(__file__).resolve().parents[1]
MINI = ROOT / "tests" / "fixtures" / "sgd_mini"


@pytest.fixture
def split(tmp_path: Path) -> Path:
    path = tmp_path / "sgd"
    shutil.copytree(MINI, path)
    return path


def chat(*args: str, stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "tod_runtime.cli", "chat", "--nlu", "rules", *args],
        input=stdin,
        capture_output=True,
        timeout=120,
    )


def test_replay_of_nothing_fails(split: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (split / "dev" / "dialogues_001.json").write_text('[{"dialogue_id": 3}]')
    assert main(["replay", str(split), "--nlu", "gold"]) == 3
    assert "no dialogue was replayed (1 file(s) skipped)" in capsys.readouterr().err


def test_replay_outputs_may_not_share_a_file(
    split: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "out")
    args = ["replay", str(split), "--nlu", "gold", "--report", out, "--junit", out]
    assert main([*args, "--force"]) == 2
    assert "name the same file" in capsys.readouterr().err
    assert not Path(out).exists()


@pytest.mark.parametrize(
    "option", [["--limit", "-1"], ["--cv", "0"], ["--cv", "1"], ["--cv", "-2"],
               ["--workers", "0"], ["--workers", "-1"]],
)  # fmt: skip
@pytest.mark.parametrize("kind", ["nlu", "dst", "policy"])
def test_train_refuses_counts_that_make_no_model(
    split: Path, tmp_path: Path, kind: str, option: list[str]
) -> None:
    out = tmp_path / "model"
    assert main(["train", kind, str(split), "--out", str(out), *option]) == 2
    assert not out.exists() or not any(out.iterdir())


def test_train_dst_never_overwrites_nor_writes_into_its_input(
    split: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "model"
    out.mkdir()
    (out / "carry.npz").write_bytes(b"old")
    assert main(["train", "dst", str(split), "--out", str(out)]) == 5
    assert "exists already" in capsys.readouterr().err
    assert (out / "carry.npz").read_bytes() == b"old"
    assert main(["train", "dst", str(split), "--out", str(split / "m")]) == 5
    assert not (split / "m").exists()


def test_a_truncated_model_file_is_a_data_error(tmp_path: Path) -> None:
    from tod_runtime.errors import DataError
    from tod_runtime.nlu.learned.model import load_model

    shipped = ROOT / "tod_runtime" / "nlu" / "learned" / "nlu.npz"
    cut = tmp_path / "nlu.npz"
    cut.write_bytes(shipped.read_bytes()[:5000])
    with pytest.raises(DataError, match="cannot load the NLU model"):
        load_model(cut)


def test_rename_never_writes_into_its_input_nor_over_an_earlier_run(
    split: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (split / "dev" / "dialogues_001.json").read_bytes()
    assert main(["data", "rename", str(split), "--out", str(split)]) == 5
    assert (split / "dev" / "dialogues_001.json").read_bytes() == before
    out = tmp_path / "renamed"
    assert main(["data", "rename", str(split), "--out", str(out)]) == 0
    assert main(["data", "rename", str(split), "--out", str(out)]) == 5
    assert "earlier run" in capsys.readouterr().err
    assert main(["data", "rename", str(split), "--out", str(out), "--force"]) == 0


def test_a_schema_symlink_loop_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    services = tmp_path / "services"
    shutil.copytree(ROOT / "services", services)
    schema = services / "Hotels" / "schema.json"
    schema.unlink()
    os.symlink(schema.name, schema)  # points at itself
    assert main(["chat", "--services", str(services), "--script", os.devnull]) == 3
    assert "symlink" in capsys.readouterr().err


def test_chat_script_whose_turns_fail_exits_non_zero_and_goes_on() -> None:
    done = chat("--script", "-", stdin=b"hello\n\xff\xfe not utf-8\nhello again\n")
    assert done.returncode == 3, done.stderr
    assert done.stdout.count(b"bot> ") == 2  # the line after the bad one ran
    assert b"1 of 3 turn(s) failed" in done.stderr and b"Traceback" not in done.stderr


def test_chat_with_an_unreachable_store_exits_5_and_never_shows_the_password() -> None:
    pytest.importorskip("tod_redis_store")
    done = chat("--script", "-", "--store", "redis://:hunter2@127.0.0.1:1/0", stdin=b"hi\n")
    assert done.returncode == 5, done.stderr
    assert b"hunter2" not in done.stdout + done.stderr
    assert b"error:" in done.stdout


def test_chat_save_over_a_file_is_an_error_line_and_the_chat_goes_on(tmp_path: Path) -> None:
    keep = tmp_path / "keep.json"
    keep.write_text("precious")
    done = chat("--script", "-", "--json", stdin=f"hello\n/save {keep}\nhello\n".encode())
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert "exists already" in lines[1]["error"] and lines[2]["utterance"]
    assert keep.read_text() == "precious"


def test_chat_sessions_are_not_guessable_in_a_shared_store(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 's.db'}"
    done = chat("--script", "-", "--store", store, stdin=b"hello\n")
    assert done.returncode == 0
    assert b"(session chat-" in done.stderr
    import asyncio

    from tod_runtime.stores.sqlite import SQLiteStore

    ids = asyncio.run(SQLiteStore(tmp_path / "s.db").sessions())
    assert len(ids) == 1 and ids[0] != "chat" and len(ids[0]) > 20


def _worker_signals(_: int) -> tuple[bool, bool]:
    import signal

    return (
        signal.getsignal(signal.SIGINT) == signal.SIG_IGN,
        signal.getsignal(signal.SIGTERM) == signal.SIG_DFL,
    )


def test_trainer_workers_leave_signals_to_the_parent() -> None:
    """Ctrl-C or SIGTERM to the process group: the workers print no traceback."""
    from tod_runtime.data.sgd import open_split
    from tod_runtime.training.common import split_pool

    with split_pool(open_split(MINI, "dev"), 1) as pool:
        assert pool.map(_worker_signals, [0]) == [(True, True)]
