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
    rng = random.Random(seed)
    outcome = kill_at(tmp_path, rng.random(), jitter=rng.uniform(0, 0.02))
    assert outcome.ok, outcome
