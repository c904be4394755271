"""Inputs no reader can take end in a usage or data status with one line, never exit 70:
JSON or TOML nested thousands deep, files that are not UTF-8, serve flags out of range."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tod_runtime.cli import main

ROOT = Path(__file__).resolve().parents[1]
DEEP = "[" * 30000 + "]" * 30000
CHAT = ["chat", "--nlu", "rules", "--script", os.devnull]


def one_line(err: str) -> str:
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize(
    ("file", "content", "message"),
    [
        ("Hotels/schema.json", DEEP.encode(), "nested too deeply"),
        ("Hotels/db.json", b'{"a": ' + DEEP.encode() + b"}", "nested too deeply"),
        ("Hotels/schema.json", '["café"]'.encode("latin-1"), "not UTF-8"),
        ("Hotels/db.json", '{"café": 1}'.encode("latin-1"), "not UTF-8"),
    ],
)
def test_unreadable_service_files_exit_3_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], file: str, content: bytes, message: str
) -> None:
    services = tmp_path / "services"
    shutil.copytree(ROOT / "services", services)
    (services / file).write_bytes(content)
    assert main([*CHAT, "--services", str(services)]) == 3
    err = one_line(capsys.readouterr().err)
    assert message in err and file in err


@pytest.mark.parametrize("content", [f"a = {DEEP}\n".encode(), 'nlu = "café"\n'.encode("latin-1")])
def test_an_unreadable_config_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes
) -> None:
    config = tmp_path / "tod.toml"
    config.write_bytes(content)
    assert main([*CHAT, "--config", str(config)]) in (2, 3)
    one_line(capsys.readouterr().err)


def test_deeply_nested_dialogues_are_a_data_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    split = tmp_path / "sgd"
    shutil.copytree(ROOT / "tests" / "fixtures" / "sgd_mini", split)
    (split / "dev" / "dialogues_001.json").write_text(DEEP)
    assert main(["replay", str(split), "--nlu", "gold"]) == 3
    assert "nested too deeply" in one_line(capsys.readouterr().err)


@pytest.mark.parametrize(
    "flags", [["--port", "70000"], ["--port", "-1"], ["--max-body", "0"], ["--max-body", "-5"]]
)
def test_serve_flags_out_of_range_exit_2(
    capsys: pytest.CaptureFixture[str], flags: list[str]
) -> None:
    assert main(["serve", *flags]) == 2
    assert flags[0] in one_line(capsys.readouterr().err)


def test_a_zip_bomb_is_refused_before_it_is_inflated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import zipfile

    top = "dstc8-schema-guided-dialogue-master"
    bomb = tmp_path / "sgd.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.write(ROOT / "tests/fixtures/sgd_mini/dev/schema.json", f"{top}/dev/schema.json")
        archive.writestr(f"{top}/dev/dialogues_001.json", b" " * (64 * 1024 * 1024))
    assert bomb.stat().st_size < 1024 * 1024
    assert main(["data", "validate", str(bomb)]) in (1, 3)
    assert "unpacks" in capsys.readouterr().err
