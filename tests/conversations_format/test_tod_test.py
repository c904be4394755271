"""``tod test``: the command, its outputs and exit statuses, on the embedded services."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from stage_helpers import fragile_nlu

from tod_runtime.cli import main

PASSING = """# cheap chinese food in san francisco, then its address
# services: embedded
cheap chinese food in san francisco please
# expect: FindRestaurants(city=San Francisco, cuisine=Chinese, price_range=cheap)
whats the address
# reply-has: street_address
"""
FAILING = """# a booking that never happens
# expect: ReserveRestaurant(restaurant_name=*, city=Boston, number_of_seats=40)
hello
"""


def _write(folder: Path, **scripts: str) -> Path:
    folder.mkdir(exist_ok=True)
    for name, text in scripts.items():
        (folder / f"{name}.txt").write_text(text)
    return folder


def test_passing_scripts_exit_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _write(tmp_path / "ok", a=PASSING)
    assert main(["test", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "PASS  a" in out and "1 of 1 passed" in out


def test_a_failure_exits_1_with_reasons_report_and_junit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _write(tmp_path / "mixed", a=PASSING, b=FAILING)
    report, junit = tmp_path / "r.json", tmp_path / "j.xml"
    assert main(["test", str(folder), "--report", str(report), "--junit", str(junit)]) == 1
    out = capsys.readouterr().out
    assert "FAIL  b" in out and "ReserveRestaurant" in out and "1 of 2 passed" in out
    data = json.loads(report.read_text())
    assert (data["conversations"], data["passed"], data["failed"]) == (2, 1, 1)
    assert data["results"][1]["transcript"][0]["user"] == "hello"
    suite = ET.parse(junit).getroot()
    assert suite.get("tests") == "2" and suite.get("failures") == "1"


def test_a_malformed_script_exits_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _write(tmp_path / "bad", a="# goal\n# expect: nonsense\nhi\n")
    assert main(["test", str(folder)]) == 3
    assert "ERROR a" in capsys.readouterr().out


def test_sgd_services_without_the_data_are_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TOD_SGD", "")
    monkeypatch.setenv("TOD_DATA_DIR", str(tmp_path / "nothing"))
    folder = _write(tmp_path / "sgd", a="# goal\n# services: sgd:train\nhi\n")
    assert main(["test", str(folder)]) == 3
    assert "--sgd" in capsys.readouterr().out


def test_an_existing_report_is_kept_without_force(tmp_path: Path) -> None:
    folder = _write(tmp_path / "ok", a=PASSING)
    report = tmp_path / "r.json"
    report.write_text("keep")
    assert main(["test", str(folder), "--report", str(report)]) != 0
    assert report.read_text() == "keep"


def test_a_failing_component_is_its_conversations_error_and_the_run_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plugins = fragile_nlu(tmp_path / "plugins", "hello")
    crashing = "# says hello\n# services: embedded\n# expect: FindRestaurants(city=Boston)\nhello\n"
    folder = _write(tmp_path / "mixed", b=crashing, c=PASSING)
    code = main(["test", str(folder), "--nlu", "fragile", "--plugins-dir", str(plugins)])
    out = capsys.readouterr().out
    assert code == 3  # a conversation could not run
    assert "ERROR b: turn 1 ('hello')" in out and "cannot cope" in out
    assert "  c:" in out and "of 2 passed, 1 could not run" in out  # the run went on
