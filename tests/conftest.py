"""Shared fixtures. Tests that need ../shared skip without it, but fail under CI=true."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tod_runtime.plugins import make_plugin_manager

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("TOD_SHARED_DIR", ROOT.parent / "shared"))
SGD_ZIP = SHARED / "sgd" / "sgd-train-dev.zip"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def require_shared(path: Path) -> Path:
    """Return ``path``, or skip (fail under CI=true) when the shared data is not there."""
    if not path.exists():
        reason = f"shared data not found: {path} (set TOD_SHARED_DIR to the shared folder)"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"CI: {reason}")
        pytest.skip(reason)
    return path


@pytest.fixture
def sgd_zip() -> Path:
    return require_shared(SGD_ZIP)


@pytest.fixture
def pm():  # type: ignore[no-untyped-def]
    """A fresh plugin manager per test (built-ins only, no entry points)."""
    return make_plugin_manager(entry_points=False)
