"""Ctrl-C (SIGINT) and SIGTERM stop chat, replay and fetch promptly: what was done is kept,
temporary files are removed, and the exit status is 130 or 143. Real processes, real
signals."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from local_http import serve

from tod_runtime.data import open_split

ROOT = Path(__file__).resolve().parents[1]
MINI = ROOT / "tests" / "fixtures" / "sgd_mini"
CODES = {signal.SIGINT: 130, signal.SIGTERM: 143}
SLOW_NLU = (
    "import asyncio\n"
    "from tod_runtime import hookimpl\n"
    "from tod_runtime.nlu.rules import RulesNLU\n"
    "class Slow(RulesNLU):\n"
    "    async def parse(self, text, context):\n"
    "        await asyncio.sleep(0.03)\n"
    "        return await super().parse(text, context)\n"
    "@hookimpl\n"
    "def register_nlu(register):\n"
    "    register('slow', Slow)\n"
)

# `tod` as a terminal starts it: Ctrl-C not ignored, even when these tests run in a shell's
# background job, whose children inherit SIGINT ignored (and `tod` keeps an ignored signal
# ignored, as nohup expects).
AS_FROM_A_TERMINAL = (
    "import runpy, signal, sys\n"
    "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
    "sys.argv[0] = 'tod'\n"
    "runpy.run_module('tod_runtime.cli', run_name='__main__')\n"
)


def start(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    env = os.environ | {
        "HOME": str(tmp_path / "home"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "TOD_DATA_DIR": str(tmp_path / "data"),
    }
    env.pop("TOD_DEBUG", None)
    return subprocess.Popen(
        [sys.executable, "-c", AS_FROM_A_TERMINAL, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def wait_for(condition: Callable[[], bool], process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "timed out waiting for the process"
        time.sleep(0.05)


def stop(process: subprocess.Popen[str], signum: int) -> tuple[int, str]:
    process.send_signal(signum)
    sent = time.monotonic()
    _, err = process.communicate(timeout=30)
    assert time.monotonic() - sent < 10, "did not stop promptly"
    assert "Traceback" not in err, err
    return process.returncode, err


def no_temporaries(folder: Path) -> bool:
    return not [p for p in folder.rglob("*") if p.name.endswith((".tmp", ".part"))]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_chat_waiting_for_input_stops_and_keeps_the_record(tmp_path: Path, signum: int) -> None:
    rec = tmp_path / "rec"
    chat = start(tmp_path, "chat", "--nlu", "rules", "--record", str(rec))
    assert chat.stdin is not None and chat.stdout is not None
    chat.stdin.write("I want to find a restaurant\n")
    chat.stdin.flush()
    assert chat.stdout.readline().startswith("bot> ")
    code, err = stop(chat, signum)
    assert code == CODES[signum], err
    split = open_split(rec, "rec")
    [dialogue] = list(split.dialogues(schemas=split.schemas()))
    assert dialogue.turns[0].utterance == "I want to find a restaurant"
    assert no_temporaries(rec)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_scripted_chat_stops(tmp_path: Path, signum: int) -> None:
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "slow.py").write_text(SLOW_NLU)
    script = tmp_path / "turns.txt"
    script.write_text("I want to find a restaurant\nin Austin\n" * 500)
    rec = tmp_path / "rec"
    chat = start(tmp_path, "--plugins-dir", str(tmp_path / "plugins"), "chat", "--nlu", "slow",
                 "--script", str(script), "--record", str(rec))  # fmt: skip
    assert chat.stdout is not None
    for _ in range(3):
        assert chat.stdout.readline().startswith("bot> ")
    code, err = stop(chat, signum)
    assert code == CODES[signum], err
    split = open_split(rec, "rec")
    [dialogue] = list(split.dialogues(schemas=split.schemas()))
    assert len(dialogue.turns) >= 6
    assert no_temporaries(rec)


def long_split(tmp_path: Path, files: int = 20) -> Path:
    root = tmp_path / "sgd"
    shutil.copytree(MINI, root)
    dialogues = json.loads((root / "dev" / "dialogues_001.json").read_text())
    for n in range(2, files + 1):
        (root / "dev" / f"dialogues_{n:03d}.json").write_text(json.dumps(dialogues))
    return root


@pytest.mark.parametrize(
    ("signum", "workers"), [(signal.SIGINT, "1"), (signal.SIGTERM, "1"), (signal.SIGTERM, "2")]
)
def test_replay_stops_and_keeps_the_finished_predictions(
    tmp_path: Path, signum: int, workers: str
) -> None:
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "slow.py").write_text(SLOW_NLU)
    pred = tmp_path / "pred"
    replay = start(tmp_path, "replay", str(long_split(tmp_path)), "--nlu", "slow",
                   "--plugins-dir", str(tmp_path / "plugins"), "--workers", workers,
                   "--predictions", str(pred), "--report", str(tmp_path / "r.json"))  # fmt: skip
    wait_for(lambda: any(pred.glob("dialogues_*.json")), replay)
    code, err = stop(replay, signum)
    assert code == CODES[signum], err
    written = sorted(pred.glob("dialogues_*.json"))
    assert 1 <= len(written) < 20
    for path in written:
        assert len(json.loads(path.read_text())) == 2  # whole files only
    assert no_temporaries(pred) and not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_fetch_stops_and_leaves_nothing(tmp_path: Path, signum: int) -> None:
    dest = tmp_path / "dest"
    with serve() as url:
        fetch = start(tmp_path, "data", "fetch", "sgd", "--source", f"{url}/trickle.zip",
                      "--dest", str(dest))  # fmt: skip
        wait_for(lambda: any(dest.glob(".*.part")), fetch)
        code, err = stop(fetch, signum)
    assert code == CODES[signum], err
    assert list(dest.iterdir()) == []


def test_a_signal_inside_the_event_loops_own_code_is_raised_between_its_steps() -> None:
    """Raised in the middle of asyncio's bookkeeping, the exception could leave a task waiting
    on nothing and the shutdown hanging; the handler defers it to the loop's next callback."""
    from tod_runtime.cli import Terminated, _interrupt

    steps: list[str] = []

    async def main() -> None:
        fake = type("Frame", (), {"f_globals": {"__name__": "asyncio.base_events"}})()
        _interrupt(Terminated, fake)  # type: ignore[arg-type]
        steps.append("not raised at once")
        await asyncio.sleep(3600)
        steps.append("never")

    with pytest.raises(Terminated):
        asyncio.run(main())
    assert steps == ["not raised at once"]
    with pytest.raises(KeyboardInterrupt):  # in the command's own code: at once
        _interrupt(KeyboardInterrupt, sys._getframe())
