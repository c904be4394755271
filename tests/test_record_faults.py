"""Fault injection: a recording chat killed (SIGKILL) at random moments leaves a record that
holds every completed turn and replays to the letter. scripts/record_faults.py does 100."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from record_faults import kill_at  # noqa: E402


@pytest.mark.parametrize("seed", range(4))
def test_a_recording_chat_killed_at_a_random_moment(tmp_path: Path, seed: int) -> None:
    delay = random.Random(seed).uniform(0.5, 4.0)
    outcome = kill_at(tmp_path, delay)
    assert outcome.ok, outcome
