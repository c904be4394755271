"""``tod simulate`` end to end on the embedded services, and the register_simulators hook."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from tod_runtime import hookimpl
from tod_runtime.cli import main
from tod_runtime.config import embedded_services_dir
from tod_runtime.dialogue.models import act
from tod_runtime.errors import PluginError
from tod_runtime.plugins import ComponentContext, collect_components, make_plugin_manager
from tod_runtime.simulate.base import Goal, SystemTurnView, Task
from tod_runtime.simulate.runner import SimulateOptions, run_simulation

KEYS = {"dialogues", "success_rate", "average_turns", "inform_recall", "book_rate", "groups"}


def test_simulate_reports_and_writes_replayable_transcripts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report, folder = tmp_path / "r.json", tmp_path / "transcripts"
    argv = ["simulate", "--dialogues", "30", "--seed", "3", "--report", str(report)]
    assert main([*argv, "--transcripts", str(folder)]) == 0
    data = json.loads(report.read_text())
    assert set(data) >= KEYS and data["dialogues"] == 30
    assert set(data["groups"]["services"]) <= {"Restaurants", "Hotels", "Movies"}
    assert data["success_rate"] >= 0.9, data["failures"]  # the rules policy at the act level
    goals = json.loads((folder / "goals.json").read_text())
    assert len(goals) == 30 and sum(g["success"] for g in goals) / 30 == data["success_rate"]
    assert main([*argv, "--transcripts", str(folder)]) == 5  # outputs exist: --force
    capsys.readouterr()
    replay = ["replay", str(folder), "--services", str(embedded_services_dir()), "--nlu", "gold"]
    assert main([*replay, "--expect-exact"]) == 0, capsys.readouterr().err


def test_workers_give_the_same_dialogues() -> None:
    one = run_simulation(SimulateOptions(dialogues=30, seed=5))
    two = run_simulation(SimulateOptions(dialogues=30, seed=5, workers=2))
    assert [o.goal for o in one.outcomes] == [o.goal for o in two.outcomes]
    assert [o.turns for o in one.outcomes] == [o.turns for o in two.outcomes]


def test_the_text_level_runs_the_nlu() -> None:
    run = run_simulation(SimulateOptions(dialogues=4, level="text", transcripts=True))
    texts = [
        t["utterance"]
        for o in run.outcomes
        for t in o.transcript["turns"]
        if t["speaker"] == "USER"
    ]  # type: ignore[index]
    assert all(texts) and len(run.outcomes) == 4


def test_the_system_is_given_the_goal_services_unless_all_are_asked_for() -> None:
    from tod_runtime.simulate.report import build_report

    goal = run_simulation(SimulateOptions(dialogues=3, level="text"))
    every = run_simulation(SimulateOptions(dialogues=3, level="text", all_services=True))
    assert build_report(goal, None)["services_given"] == "goal"
    assert build_report(every, None)["services_given"] == "all"
    assert [o.goal for o in goal.outcomes] == [o.goal for o in every.outcomes]


def test_bad_numbers_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--dialogues", "0"]) == 2
    assert "positive" in capsys.readouterr().err


class OneShotUser:
    """Asks for one search and leaves."""

    def __init__(self) -> None:
        self.goal = Goal(
            tasks=[Task(service="Hotels", intent="SearchHotel", constraints={"city": "Austin"})]
        )
        self.ended = ""
        self.turn = 0

    def respond(self, system: SystemTurnView | None) -> dict[str, Any]:
        self.turn += 1
        if self.turn == 1:
            return {
                "Hotels": [
                    act("INFORM_INTENT", "intent", ["SearchHotel"]),
                    act("INFORM", "city", ["Austin"]),
                ]
            }
        return {"Hotels": [act("GOODBYE")]} if self.turn == 2 else {}


class OneShot:
    def __init__(self, ctx: ComponentContext) -> None:
        self.ctx = ctx

    async def new_user(self, rng: random.Random) -> OneShotUser:
        return OneShotUser()


class OneShotPlugin:
    @hookimpl
    def register_simulators(self, register: Any) -> None:
        register("oneshot", OneShot)


def test_hook_register_simulators(tmp_path: Path) -> None:
    components = collect_components(
        make_plugin_manager(entry_points=False, extra=(OneShotPlugin(),))
    )
    assert (
        components.simulator.entries["oneshot"].plugin
        != components.simulator.entries["schema"].plugin
    )
    (tmp_path / "oneshot.py").write_text(
        "from tod_runtime import hookimpl\n"
        "from tod_runtime.dialogue.models import act\n"
        "from tod_runtime.simulate.base import Goal, Task\n"
        "class User:\n"
        "    def __init__(self):\n"
        "        self.goal = Goal(tasks=[Task(service='Hotels', intent='SearchHotel', constraints={'city': 'Austin'})])\n"
        "        self.ended, self.turn = '', 0\n"
        "    def respond(self, system):\n"
        "        self.turn += 1\n"
        "        if self.turn == 1:\n"
        "            return {'Hotels': [act('INFORM_INTENT', 'intent', ['SearchHotel']), act('INFORM', 'city', ['Austin'])]}\n"
        "        return {}\n"
        "class Sim:\n"
        "    def __init__(self, ctx): pass\n"
        "    async def new_user(self, rng): return User()\n"
        "@hookimpl\n"
        "def register_simulators(register):\n"
        "    register('oneshot', Sim)\n"
    )
    run = run_simulation(
        SimulateOptions(dialogues=3, simulator="oneshot", plugins_dir=str(tmp_path))
    )
    assert [o.turns for o in run.outcomes] == [2, 2, 2]
    assert all(o.verdict.success for o in run.outcomes)  # found Austin's hotels, offered one


def test_a_simulator_with_a_sync_new_user_is_a_plugin_error() -> None:
    class Sync:
        def __init__(self, ctx: Any) -> None:
            pass

        def new_user(self, rng: random.Random) -> None:
            return None

    class Bad:
        @hookimpl
        def register_simulators(self, register: Any) -> None:
            register("sync", Sync)

    components = collect_components(make_plugin_manager(entry_points=False, extra=(Bad(),)))
    with pytest.raises(PluginError, match="new_user\\(\\) must be 'async def'"):
        components.simulator.build("sync", None)  # type: ignore[arg-type]
