"""The simulated user's repair moves (tod_runtime.simulate.repairs) and --repairs."""

from __future__ import annotations

import random

import pytest

from tod_runtime.cli import main
from tod_runtime.dialogue.models import act
from tod_runtime.simulate.base import SystemTurnView
from tod_runtime.simulate.repairs import RepairRates, casual, detour
from tod_runtime.simulate.runner import SimulateOptions, run_simulation


def test_a_greeting_only_at_the_start_and_each_move_once() -> None:
    rng, made = random.Random(0), set[str]()
    assert detour(None, None, rng, RepairRates.every(1.0), made).name == "greeting"  # type: ignore[union-attr]
    offer = SystemTurnView(service="S", actions=[act("OFFER", "name", ["A"])])
    moves = {detour(offer, None, rng, RepairRates.every(1.0), made) for _ in range(5)}
    names = sorted(m.name for m in moves if m is not None)
    assert names == ["another", "repeat"]  # each once, then nothing more fits
    assert detour(offer, None, rng, RepairRates.every(0.0), set()) is None


def test_another_resumes_from_the_new_reply() -> None:
    offer = SystemTurnView(service="S", actions=[act("OFFER", "name", ["A"])])
    rates = RepairRates({"another": 1.0})
    move = detour(offer, None, random.Random(1), rates, set())
    assert move is not None and move.resumes and move.name == "another"


def test_casual_typing_is_lower_case() -> None:
    assert casual("Book It For Me", random.Random(0), 1.0).islower()
    assert casual("Book It", random.Random(0), 0.0) == "Book It"


def test_repairs_need_the_text_level(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--repairs", "--dialogues", "2"]) == 2
    assert "--level text" in capsys.readouterr().err


def test_a_repairing_user_still_finishes_on_the_embedded_services() -> None:
    run = run_simulation(SimulateOptions(dialogues=20, seed=0, level="text", repairs=0.5))
    wins = sum(o.verdict.success for o in run.outcomes)
    assert wins >= 16  # the detours are taken and come back (0.99 over 200 at 0.25)
