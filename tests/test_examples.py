"""The examples run as they are documented."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_embed_async_example_runs() -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "embed_async.py")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("bot> ") == 7
    assert "state of alice" in done.stdout and "state of bob" in done.stdout
    assert "Traceback" not in done.stderr
