"""``tod data fetch``: download (or copy) a dataset archive and unpack it atomically.

The archive is first written to a temporary file inside the destination folder, then unpacked
into a temporary folder there, and only then renamed to its final name: an interrupted fetch
leaves no half-written dataset behind; what a killed one left (a ``.part`` file, an
``.unpack-*`` folder) the next fetch removes. A download has a total time limit and a stall
limit (``Limits``).
"""

from __future__ import annotations

import http.client
import os
import shutil
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from tod_runtime.data.zips import check_members
from tod_runtime.errors import DataError, IOFailure
from tod_runtime.progress import progress


@dataclass(frozen=True)
class DatasetSource:
    name: str
    url: str
    top_folder: str


DATASETS: dict[str, DatasetSource] = {
    "sgd": DatasetSource(
        "sgd",
        "https://github.com/google-research-datasets/dstc8-schema-guided-dialogue/"
        "archive/refs/heads/master.zip",
        "dstc8-schema-guided-dialogue-master",
    ),
}
CHUNK = 1 << 20


def default_data_dir() -> Path:
    """``$TOD_DATA_DIR``, else ``~/.local/share/tod-runtime``."""
    env = os.environ.get("TOD_DATA_DIR")
    return Path(env) if env else Path.home() / ".local" / "share" / "tod-runtime"


def _is_url(source: str) -> bool:
    return source.startswith(("http://", "https://", "file://"))


def check_source(source: str) -> None:
    """Refuse a source that cannot work before anything else (a cached copy included): a URL
    needs a host (``file://`` an existing file), a path must be a zip file."""
    if _is_url(source):
        parsed = urllib.parse.urlsplit(source)
        if parsed.scheme == "file":
            check_source(urllib.request.url2pathname(parsed.path))
        elif not parsed.hostname:
            raise DataError("not a valid URL: it has no host", file=source)
        return
    path = Path(source).expanduser()
    if not path.is_file():
        raise DataError("no such file", file=source, hint="--source takes a URL or a zip")
    if not zipfile.is_zipfile(path):
        raise DataError("not a zip archive", file=source, hint="--source takes a URL or a zip")


@dataclass(frozen=True)
class Limits:
    """How long a download may take in all (``total``, None: no limit) and how long it may
    go without receiving a byte (``stall``)."""

    total: float | None = None
    stall: float = 60.0


def _download(url: str, target: Path, limits: Limits) -> None:
    deadline = None if limits.total is None else time.monotonic() + limits.total
    try:
        with (
            urllib.request.urlopen(url, timeout=limits.stall) as response,
            target.open("wb") as out,
        ):
            size = response.headers.get("Content-Length")
            with progress("download", int(size) if size else None, unit="bytes") as bar:
                while chunk := response.read1(CHUNK):
                    out.write(chunk)
                    bar.advance(len(chunk))
                    if deadline is not None and time.monotonic() > deadline:
                        raise IOFailure(
                            f"the download took longer than {limits.total:g} s",
                            file=url,
                            hint="raise --timeout, or pass --source with a local copy",
                        )
    except TimeoutError:
        raise IOFailure(
            f"the download stalled: nothing received for {limits.stall:g} s",
            file=url,
            hint="check the network, raise --stall-timeout, or pass --source with a local copy",
        ) from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
        reason = getattr(exc, "reason", None) or exc
        if isinstance(exc, urllib.error.HTTPError):
            reason = f"HTTP {exc.code} {exc.reason}"
        if isinstance(reason, TimeoutError):
            raise IOFailure(
                f"no answer within {limits.stall:g} s",
                file=url,
                hint="check the network, raise --stall-timeout, or pass --source with a local copy",
            ) from None
        raise IOFailure(
            f"download failed: {reason}",
            file=url,
            hint="check the network, or pass --source with a local copy of the zip",
        ) from None


def _copy(source: Path, target: Path) -> None:
    if not source.is_file():
        raise DataError("no such file", file=str(source), hint="--source takes a URL or a zip")
    size = source.stat().st_size
    with (
        source.open("rb") as src,
        target.open("wb") as out,
        progress("copy", size, unit="bytes") as bar,
    ):
        while chunk := src.read(CHUNK):
            out.write(chunk)
            bar.advance(len(chunk))


def _extract(archive_path: Path, into: Path, top_folder: str, label: str) -> None:
    try:
        with zipfile.ZipFile(archive_path) as archive:
            members = archive.infolist()
            check_members(members, label)  # before a byte is unpacked
            tops = {PurePosixPath(m.filename).parts[0] for m in members if m.filename.strip("/")}
            if tops != {top_folder}:
                raise DataError(
                    f"expected one top folder {top_folder!r} in the archive, found "
                    f"{sorted(tops)[:5]}",
                    file=label,
                )
            with progress("unpack", len(members)) as bar:
                for member in members:
                    parts = PurePosixPath(member.filename).parts
                    if member.filename.startswith("/") or ".." in parts:
                        raise DataError(f"unsafe path in archive: {member.filename}", file=label)
                    archive.extract(member, into)
                    bar.advance()
    except zipfile.BadZipFile as exc:
        raise DataError(f"not a zip archive: {exc}", file=label) from None


def _remove_leftovers(dest_dir: Path, top_folder: str) -> None:
    """What a killed fetch left: its partial download and its unpack folder."""
    (dest_dir / f".{top_folder}.zip.part").unlink(missing_ok=True)
    for stale in dest_dir.glob(".unpack-*"):
        shutil.rmtree(stale, ignore_errors=True)


def fetch(
    dataset: str = "sgd",
    *,
    source: str | None = None,
    dest: str | Path | None = None,
    force: bool = False,
    limits: Limits | None = None,
) -> Path:
    """Fetch ``dataset`` into ``dest`` and return the dataset folder (the archive's top
    folder). An existing complete folder is reused unless ``force``; a ``source`` given is
    checked even then. ``limits``: the download's time limits."""
    if dataset not in DATASETS:
        raise DataError(f"unknown dataset {dataset!r}", hint=f"known: {', '.join(DATASETS)}")
    info = DATASETS[dataset]
    if source is not None:
        check_source(source)
    dest_dir = Path(dest) if dest is not None else default_data_dir()
    final = dest_dir / info.top_folder
    if dest_dir.is_dir():
        _remove_leftovers(dest_dir, info.top_folder)
    if final.is_dir() and not force:
        return final
    dest_dir.mkdir(parents=True, exist_ok=True)
    src = source or info.url
    part = dest_dir / f".{info.top_folder}.zip.part"
    try:
        if _is_url(src):
            _download(src, part, limits or Limits())
        else:
            _copy(Path(src).expanduser(), part)
        with tempfile.TemporaryDirectory(dir=dest_dir, prefix=".unpack-") as tmp:
            _extract(part, Path(tmp), info.top_folder, src)
            if final.exists():  # --force: the old copy leaves with the temporary folder
                final.rename(Path(tmp) / ".old")
            (Path(tmp) / info.top_folder).rename(final)
    finally:
        part.unlink(missing_ok=True)
    return final
