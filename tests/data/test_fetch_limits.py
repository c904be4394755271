"""`tod data fetch` against a loopback server: time limits, stalls, leftovers, bad sources."""

from __future__ import annotations

import time
import zipfile
from io import BytesIO
from pathlib import Path

import pytest
from local_http import serve

from tod_runtime.cli import main
from tod_runtime.data.fetch import Limits, fetch
from tod_runtime.errors import IOFailure

TOP = "dstc8-schema-guided-dialogue-master"


def archive_bytes() -> bytes:
    buffer = BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr(f"{TOP}/dev/schema.json", "[]")
        zf.writestr(f"{TOP}/README.md", "hi")
    return buffer.getvalue()


def test_a_download_from_the_local_server(tmp_path: Path) -> None:
    with serve(archive_bytes()) as url:
        folder = fetch("sgd", source=f"{url}/archive.zip", dest=tmp_path)
    assert (folder / "README.md").read_text() == "hi"
    assert sorted(p.name for p in tmp_path.iterdir()) == [TOP]


def test_a_stalled_download_stops_and_leaves_nothing(tmp_path: Path) -> None:
    with serve() as url:
        started = time.monotonic()
        with pytest.raises(IOFailure, match="stalled"):
            fetch("sgd", source=f"{url}/stall.zip", dest=tmp_path, limits=Limits(stall=0.5))
    assert time.monotonic() - started < 10
    assert list(tmp_path.iterdir()) == []


def test_a_download_over_its_total_time_stops_with_exit_5(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with serve() as url:
        args = ["data", "fetch", "sgd", "--source", f"{url}/trickle.zip", "--dest", str(tmp_path)]
        assert main([*args, "--timeout", "0.5", "--stall-timeout", "5"]) == 5
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "longer than 0.5 s" in err
    assert list(tmp_path.iterdir()) == []


def test_a_missing_url_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with serve() as url:
        args = ["data", "fetch", "sgd", "--source", f"{url}/nothing.zip", "--dest", str(tmp_path)]
        assert main(args) == 5
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "404" in err


def test_a_bad_source_fails_even_when_the_data_is_cached(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / TOP).mkdir()  # cached
    dest = ["--dest", str(tmp_path)]
    assert main(["data", "fetch", "sgd", *dest]) == 0
    for bad in (str(tmp_path / "missing.zip"), "https://", "file:///no/such.zip", str(tmp_path)):
        capsys.readouterr()
        assert main(["data", "fetch", "sgd", "--source", bad, *dest]) == 3, bad
        assert capsys.readouterr().err.count("\n") == 1
    not_zip = tmp_path / "notes.txt"
    not_zip.write_text("hello")
    assert main(["data", "fetch", "sgd", "--source", str(not_zip), *dest]) == 3


def test_a_killed_runs_leftovers_are_removed_next_time(tmp_path: Path) -> None:
    (tmp_path / ".unpack-abc123" / TOP).mkdir(parents=True)
    (tmp_path / f".{TOP}.zip.part").write_bytes(b"PK half")
    archive = tmp_path.parent / "sgd.zip"
    archive.write_bytes(archive_bytes())
    fetch("sgd", source=str(archive), dest=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [TOP]


def test_force_replaces_the_copy(tmp_path: Path) -> None:
    (tmp_path / TOP).mkdir()
    (tmp_path / TOP / "old.txt").write_text("old")
    archive = tmp_path.parent / "sgd2.zip"
    archive.write_bytes(archive_bytes())
    folder = fetch("sgd", source=str(archive), dest=tmp_path, force=True)
    assert sorted(p.name for p in folder.iterdir()) == ["README.md", "dev"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [TOP]


def test_limits_must_be_positive(tmp_path: Path) -> None:
    assert main(["data", "fetch", "sgd", "--dest", str(tmp_path), "--timeout", "0"]) == 2
