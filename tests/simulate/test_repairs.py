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


class _Repairing:
    """A user that can call its task off and take a value back (simulate.repairs.Repairing)."""

    def __init__(self, taken_back: object) -> None:
        self.taken_back = taken_back

    def restart_task(self) -> None: ...

    def change_of_mind(self, take: bool = False) -> object:
        return self.taken_back


def test_calling_off_and_taking_back_need_a_repairing_user() -> None:
    ask = SystemTurnView(service="S", actions=[act("REQUEST", "city")])
    rates = RepairRates({"cancel": 1.0, "change_mind": 1.0})
    assert detour(ask, None, random.Random(0), rates, set()) is None  # a plain user
    user = _Repairing(act("INFORM", "city", ["Austin"]))
    made: set[str] = set()
    moves = [detour(ask, None, random.Random(0), rates, made, user) for _ in range(3)]
    by_name = {m.name: m for m in moves if m is not None}
    assert sorted(by_name) == ["cancel", "change_mind"]
    assert by_name["cancel"].resumes and not by_name["change_mind"].resumes
    assert by_name["change_mind"].say is not None and "{}" in by_name["change_mind"].text
    assert detour(ask, None, random.Random(0), rates, set(), _Repairing(None)).name == "cancel"  # type: ignore[union-attr]


def test_refine_only_where_a_search_result_can_be_compared() -> None:
    from tod_runtime.backends.mock import MockBackend
    from tod_runtime.config import embedded_services_dir

    schemas = MockBackend(embedded_services_dir()).schemas()
    offer = SystemTurnView(service="Hotels", actions=[act("OFFER", "hotel_name", ["A"])])
    rates = RepairRates({"refine": 1.0})
    move = detour(offer, schemas["Hotels"], random.Random(0), rates, set())
    assert move is not None and move.name == "refine" and move.resumes
    assert "cheap" in move.text or "expensive" in move.text  # price_per_night is a result
    assert detour(offer, None, random.Random(0), rates, set()) is None
