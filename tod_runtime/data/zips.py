"""Reading zip archives safely: a member whose uncompressed size, or whose ratio of
uncompressed to compressed size, is absurd (a zip bomb: 1 MB holding 1 GiB) is refused
before a byte of it is inflated. SGD's largest file is about 4 MB at a ratio near 20."""

from __future__ import annotations

import zipfile
from collections.abc import Iterable

from tod_runtime.errors import DataError

MAX_MEMBER = 512 * 1024 * 1024  # bytes, uncompressed, of one member
MAX_TOTAL = 4 * 1024 * 1024 * 1024  # bytes, uncompressed, of all members unpacked at once
MAX_RATIO = 200  # uncompressed / compressed, for members over RATIO_FROM bytes
RATIO_FROM = 1024 * 1024


def check_member(info: zipfile.ZipInfo, label: str) -> None:
    """Raise DataError when ``info`` is too large, or compressed too well to be data."""
    size, packed = info.file_size, max(info.compress_size, 1)
    if size > MAX_MEMBER:
        raise DataError(
            f"archive member {info.filename} unpacks to {size:,} bytes (at most {MAX_MEMBER:,})",
            file=label,
            hint="a zip bomb, or not a dataset archive",
        )
    if size > RATIO_FROM and size / packed > MAX_RATIO:
        raise DataError(
            f"archive member {info.filename} unpacks {size / packed:,.0f} times its size",
            file=label,
            hint="a zip bomb, or not a dataset archive",
        )


def check_members(members: Iterable[zipfile.ZipInfo], label: str) -> None:
    """Every member checked, and all of them together no larger than ``MAX_TOTAL``."""
    total = 0
    for info in members:
        check_member(info, label)
        total += info.file_size
    if total > MAX_TOTAL:
        raise DataError(f"the archive unpacks to {total:,} bytes", file=label)


def read_member(archive: zipfile.ZipFile, name: str, label: str) -> bytes:
    """``archive.read(name)`` once the member is checked (KeyError when it is absent). The
    read is bounded too, as a member's header may lie about its size."""
    info = archive.getinfo(name)
    check_member(info, label)
    with archive.open(info) as member:
        data = member.read(MAX_MEMBER + 1)
    if len(data) > MAX_MEMBER:
        raise DataError(f"archive member {name} unpacks to more than {MAX_MEMBER:,} bytes")
    return data
