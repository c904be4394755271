"""`tod chat` from the command line: scripted turns, JSON lines, clear errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tod_runtime.cli import main


def tod(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tod_runtime.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_an_unknown_services_folder_is_one_clear_line(tmp_path: Path) -> None:
    done = tod("chat", "--services", str(tmp_path / "nowhere"), "--script", "-")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "nowhere" in done.stderr and "no such folder" in done.stderr


def test_a_broken_schema_is_one_clear_line_naming_the_file(tmp_path: Path) -> None:
    service = tmp_path / "services" / "Broken"
    service.mkdir(parents=True)
    (service / "schema.json").write_text('[{"service_name": "Broken", "slots": []}]')
    (service / "db.json").write_text("{}")
    done = tod("chat", "--services", str(tmp_path / "services"), "--script", "-")
    assert done.returncode == 3, done.stderr  # bad data
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "schema.json" in done.stderr


def test_an_unknown_component_is_one_clear_line() -> None:
    done = tod("chat", "--nlu", "nope", "--script", "-")
    assert done.returncode == 2
    assert "unknown nlu 'nope'" in done.stderr and done.stderr.count("\n") == 1


def test_scripted_json_turns_and_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "turns.txt"
    script.write_text("# a comment\nhello\n\n/state\n/services\n" + "x" * 3000 + "\n")
    assert main(["chat", "--script", str(script), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(lines) == 4
    assert lines[0]["utterance"]
    assert lines[1]["command"] == "state" and lines[2]["command"] == "services"
    assert "too long" in lines[3]["notice"]


def test_record_writes_a_replayable_sgd_split(tmp_path: Path) -> None:
    from tod_runtime.data import open_split

    script = tmp_path / "turns.txt"
    script.write_text("I want to find a restaurant\n")
    assert main(["chat", "--script", str(script), "--record", str(tmp_path / "rec")]) == 0
    split = open_split(tmp_path / "rec", "rec")
    [dialogue] = list(split.dialogues(schemas=split.schemas()))
    assert [t.speaker for t in dialogue.turns] == ["USER", "SYSTEM"]


def test_record_is_written_after_every_turn_so_kill_9_loses_nothing(tmp_path: Path) -> None:
    from tod_runtime.data import open_split

    chat = subprocess.Popen(
        [sys.executable, "-m", "tod_runtime.cli", "chat", "--record", str(tmp_path / "rec")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert chat.stdin is not None and chat.stdout is not None
    for line in ["I want to find a restaurant", "in Austin"]:
        chat.stdin.write(line + "\n")
        chat.stdin.flush()
        assert chat.stdout.readline().startswith("bot> ")  # the turn is done
    chat.kill()  # SIGKILL: no clean-up runs
    chat.wait(timeout=30)
    chat.stdin.close()
    chat.stdout.close()
    split = open_split(tmp_path / "rec", "rec")
    [dialogue] = list(split.dialogues(schemas=split.schemas()))
    assert [t.utterance for t in dialogue.turns if t.speaker == "USER"] == [
        "I want to find a restaurant",
        "in Austin",
    ]


def test_a_failing_plugin_fails_its_turn_and_chat_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "turns.txt"
    script.write_text("city=Paris\nboom\nsize=large\n")  # the echo NLU raises on "boom"
    echo = ["--services", "echo", "--backend", "echo", "--nlu", "echo", "--tracker", "echo",
            "--policy", "echo", "--generator", "echo"]  # fmt: skip
    assert main(["chat", "--script", str(script), *echo]) == 4  # a script's turn failed
    captured = capsys.readouterr()
    assert "1 of 3 turn(s) failed" in captured.err
    out = captured.out.splitlines()
    assert out[0] == "bot> REQ_MORE()" and out[2] == "bot> REQ_MORE()"
    assert out[1].startswith("error: nlu 'echo' (plugin echo) failed: RuntimeError('boom')")


def test_a_reset_starts_a_new_recorded_dialogue(tmp_path: Path) -> None:
    script = tmp_path / "turns.txt"
    script.write_text("I want to find a restaurant\n/reset\nI need a hotel\n")
    assert main(["chat", "--script", str(script), "--record", str(tmp_path / "rec")]) == 0
    assert sorted(p.name for p in (tmp_path / "rec").glob("dialogues_*.json")) == [
        "dialogues_001.json",
        "dialogues_002.json",
    ]


def test_a_script_with_crlf_line_ends_and_a_non_utf8_script(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "turns.txt"
    script.write_bytes(b"I want to find a restaurant\r\nin Austin\r\n")
    assert main(["chat", "--script", str(script), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[-1]["state"]["Restaurants"]["slot_values"]["city"] == ["Austin"]
    script.write_bytes("café à Paris\n".encode("latin-1"))
    assert main(["chat", "--script", str(script)]) == 3
    err = capsys.readouterr().err
    assert "not UTF-8" in err and err.count("\n") == 1


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    script = tmp_path / "turns.txt"
    script.write_text("I want to find a restaurant\n" * 1500)  # far more than a pipe holds
    done = subprocess.run(
        f"{sys.executable} -m tod_runtime.cli chat --json --script {script} | head -c 10",
        shell=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr
