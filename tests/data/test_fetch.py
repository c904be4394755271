"""`tod data fetch`: local archives work like downloads, and nothing half-written remains."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from tod_runtime.cli import main
from tod_runtime.data import fetch as fetch_module
from tod_runtime.data.fetch import fetch
from tod_runtime.errors import DataError

TOP = "dstc8-schema-guided-dialogue-master"


def make_archive(path: Path, top: str = TOP) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(f"{top}/dev/schema.json", "[]")
        zf.writestr(f"{top}/dev/dialogues_001.json", "[]")
        zf.writestr(f"{top}/README.md", "hi")
    return path


def test_fetch_from_a_local_zip_prints_the_dataset_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive = make_archive(tmp_path / "sgd.zip")
    dest = tmp_path / "data"
    assert main(["data", "fetch", "sgd", "--source", str(archive), "--dest", str(dest)]) == 0
    assert capsys.readouterr().out.strip() == str(dest / TOP)
    assert (dest / TOP / "dev" / "schema.json").is_file()
    assert sorted(p.name for p in dest.iterdir()) == [TOP]


def test_fetch_uses_tod_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOD_DATA_DIR", str(tmp_path / "env"))
    folder = fetch("sgd", source=str(make_archive(tmp_path / "sgd.zip")))
    assert folder == tmp_path / "env" / TOP


def test_file_url_source_works_like_a_download(tmp_path: Path) -> None:
    archive = make_archive(tmp_path / "sgd.zip")
    folder = fetch("sgd", source=archive.as_uri(), dest=tmp_path / "d")
    assert (folder / "README.md").read_text() == "hi"


def test_an_interrupted_fetch_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = make_archive(tmp_path / "sgd.zip")
    real_extract = fetch_module._extract

    def interrupted(*args: object) -> None:
        real_extract(*args)  # type: ignore[arg-type]
        raise KeyboardInterrupt

    monkeypatch.setattr(fetch_module, "_extract", interrupted)
    dest = tmp_path / "data"
    with pytest.raises(KeyboardInterrupt):
        fetch("sgd", source=str(archive), dest=dest)
    assert list(dest.iterdir()) == []


def test_an_archive_with_another_layout_is_refused(tmp_path: Path) -> None:
    archive = make_archive(tmp_path / "other.zip", top="something-else")
    with pytest.raises(DataError, match="expected one top folder"):
        fetch("sgd", source=str(archive), dest=tmp_path / "d")
    assert list((tmp_path / "d").iterdir()) == []


def test_a_bad_source_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["data", "fetch", "sgd", "--source", str(tmp_path / "no.zip")]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such file" in err


def test_shared_archive_fetches(sgd_zip: Path, tmp_path: Path) -> None:
    folder = fetch("sgd", source=str(sgd_zip), dest=tmp_path)
    assert (folder / "dev" / "schema.json").is_file()
    assert (folder / "train" / "schema.json").is_file()
