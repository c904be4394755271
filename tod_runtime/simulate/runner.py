"""Simulated dialogues through the runtime: one process, or a pool of workers like replay's.

Dialogue ``i`` of a run draws all its randomness from ``Random(f"{seed}:{i}")``, so a run
gives the same dialogues whatever the number of workers. At the act level the user's acts go
in through ``Runtime.handle_acts`` (the NLU is skipped, as replay's ``--nlu gold``), realised
as text only for the transcript; at the text level the text goes through ``Runtime.handle``,
the NLU included.
"""

from __future__ import annotations

import asyncio
import random
import signal
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any, Literal

from tod_runtime.components import ComponentContext
from tod_runtime.config import Config, load_config
from tod_runtime.dialogue.models import Dialogue
from tod_runtime.errors import TodError
from tod_runtime.plugins import collect_components, make_plugin_manager
from tod_runtime.progress import progress
from tod_runtime.runtime import Runtime
from tod_runtime.simulate.base import Goal, SimulatedUser, Simulator, SystemTurnView, UserRealiser
from tod_runtime.simulate.judge import Verdict, judge
from tod_runtime.simulate.realise import MinedRealiser, SchemaRealiser
from tod_runtime.simulate.repairs import Repairing, RepairRates, casual, detour
from tod_runtime.simulate.simulator import ValueMatcher
from tod_runtime.simulate.understood import misreadings

Level = Literal["acts", "text"]
CHUNK = 25  # dialogues per task handed to a worker


@dataclass(frozen=True)
class SimulateOptions:
    services: str | None = None
    dialogues: int = 100
    seed: int = 0
    level: Level = "acts"
    simulator: str = "schema"
    nlu: str | None = None
    policy: str | None = None
    tracker: str | None = None
    generator: str | None = None
    backend: str | None = None
    config: str | None = None
    plugins_dir: str | None = None
    workers: int = 1
    max_turns: int = 25  # user turns
    transcripts: bool = False
    wording: str = (
        "mined"  # text level: "mined" (SGD train's user turns) or "schema" (descriptions)
    )
    # the system is given the goal's services only, as SGD's dialogues and replay give each
    # dialogue's services; True: every service, as in a chat
    all_services: bool = False
    # text level: the rate of each repair move (tod_runtime.simulate.repairs); 0: none
    repairs: float = 0.0

    def runtime_config(self) -> Config:
        return load_config(
            self.config,
            services=self.services,
            nlu=self.nlu,
            policy=self.policy,
            tracker=self.tracker,
            generator=self.generator,
            backend=self.backend,
            plugins_dir=self.plugins_dir,
        )


@dataclass
class Outcome:
    index: int
    goal: Goal
    verdict: Verdict
    turns: int
    user_acts: dict[str, int]
    system_acts: dict[str, int]
    ended: str = ""
    transcript: dict[str, Any] | None = None
    misread: list[str] = field(default_factory=list)  # text level: what the NLU got wrong


@dataclass
class SimulationRun:
    options: SimulateOptions
    outcomes: list[Outcome] = field(default_factory=list)
    seconds: float = 0.0


class Session:
    """A runtime, its simulator and realiser, built once per process."""

    def __init__(self, options: SimulateOptions) -> None:
        self.options = options
        config = options.runtime_config()
        pm = make_plugin_manager(config.plugins_dir)
        components = collect_components(pm)
        self.runtime = Runtime(config, plugin_manager=pm, components=components)
        self.config = config
        self.components = components
        self.simulator: Simulator | None = None
        self.realiser: UserRealiser = (
            SchemaRealiser() if options.wording == "schema" else MinedRealiser()
        )
        self.same: ValueMatcher | None = None

    async def start(self) -> None:
        rt = await self.runtime.start()
        ctx = ComponentContext.of(rt.schemas, rt.backend, self.config.options.get("simulator", {}))
        self.simulator = self.components.simulator.build(self.options.simulator, ctx)
        self.same = ValueMatcher(rt.schemas, rt.backend)

    async def close(self) -> None:
        await self.runtime.close()

    async def run(self, index: int) -> Outcome:
        assert self.simulator is not None and self.same is not None
        rng = random.Random(f"{self.options.seed}:{index}")
        user = await self.simulator.new_user(rng)
        session = f"sim_{index:05d}"
        words = random.Random(f"{self.options.seed}:{index}:text")  # wording apart from goals
        misread: list[str] = []
        detours = random.Random(f"{self.options.seed}:{index}:repairs")
        ended = await self.play(user, session, words, misread, detours)
        rt = self.runtime
        dialogue = await rt.dialogue(session)
        await rt.delete(session)
        verdict = judge(dialogue, user.goal, self.same, ended)
        user_acts: dict[str, int] = {}
        system_acts: dict[str, int] = {}
        for turn in dialogue.turns:
            counts = user_acts if turn.speaker == "USER" else system_acts
            for frame in turn.frames:
                for a in frame.actions:
                    counts[a.act] = counts.get(a.act, 0) + 1
        transcript = dialogue.to_json() if self.options.transcripts else None
        return Outcome(
            index,
            user.goal,
            verdict,
            len(dialogue.turns),
            user_acts,
            system_acts,
            ended,
            transcript,
            misread,
        )

    async def play(
        self,
        user: SimulatedUser,
        session: str,
        words: random.Random,
        misread: list[str],
        detours: random.Random | None = None,
    ) -> str:
        """Run the dialogue; returns why it stopped early ("" when the user closed it). At the
        act level the acts are worded only for transcripts; at the text level what the NLU
        got wrong is added to ``misread``, and with ``repairs`` the user makes detours
        (``detours`` draws them) before its own turns and types casually."""
        assert self.same is not None
        rt, view = self.runtime, None
        services = None if self.options.all_services else user.goal.services
        wording = self.options.level == "text" or self.options.transcripts
        if isinstance(self.realiser, MinedRealiser):
            self.realiser.new_dialogue()
        rates = self.options.repairs if self.options.level == "text" and detours else 0.0
        made: set[str] = set()
        for _ in range(self.options.max_turns):
            if rates and detours is not None:
                try:
                    view = await self.detour(user, session, view, services, detours, made)
                except TodError as exc:
                    return f"stage error ({type(exc).__name__})"
            acts = user.respond(view)
            if not acts:
                return user.ended
            service = next(iter(acts))
            schema = rt.schemas[service]
            if isinstance(self.realiser, MinedRealiser):  # a later task: a place was said
                self.realiser.place_said = getattr(user, "index", 0) > 0
            text = self.realiser.realise(acts[service], schema, words) if wording else ""
            if rates and detours is not None:
                text = casual(text, detours, rates)
            try:
                if self.options.level == "text":
                    result = await rt.handle(session, text, services)
                    misread += misreadings(acts, result.user_acts, self.same)
                else:
                    result = await rt.handle_acts(session, acts, text, services)
            except TodError as exc:
                return f"stage error ({type(exc).__name__})"
            view = SystemTurnView(
                service=result.service, actions=result.actions, utterance=result.utterance
            )
        return "turn limit"

    async def detour(
        self,
        user: SimulatedUser,
        session: str,
        view: SystemTurnView | None,
        services: list[str] | None,
        rng: random.Random,
        made: set[str],
    ) -> SystemTurnView | None:
        """Make a repair move, if one is drawn; the view the user answers next (the reply
        to the move when the system moved on, else the one before)."""
        rt = self.runtime
        schema = rt.schemas.get(view.service) if view is not None and view.service else None
        rates = RepairRates.every(self.options.repairs)
        move = detour(view, schema, rng, rates, made, user)
        if move is None:
            return view
        text = move.text
        if move.say is not None and schema is not None:
            text = text.format(self.realiser.realise([move.say], schema, rng))
        result = await rt.handle(session, casual(text, rng, self.options.repairs), services)
        if isinstance(user, Repairing) and move.name == "cancel":
            user.restart_task()
        elif isinstance(user, Repairing) and move.name == "change_mind":
            user.change_of_mind(take=True)
        if not move.resumes:
            return view
        return SystemTurnView(
            service=result.service, actions=result.actions, utterance=result.utterance
        )


def chunks(total: int) -> list[tuple[int, int]]:
    return [(start, min(start + CHUNK, total)) for start in range(0, total, CHUNK)]


class _Worker:
    def __init__(self, options: SimulateOptions) -> None:
        self.loop = asyncio.new_event_loop()
        self.session = Session(options)
        self.loop.run_until_complete(self.session.start())

    def run(self, span: tuple[int, int]) -> list[Outcome]:
        return [self.loop.run_until_complete(self.session.run(i)) for i in range(*span)]

    def close(self) -> None:
        self.loop.run_until_complete(self.session.close())
        self.loop.close()


_WORKER: _Worker | None = None


def _init_worker(options: SimulateOptions) -> None:
    global _WORKER
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _WORKER = _Worker(options)


def _run_span(span: tuple[int, int]) -> list[Outcome]:
    assert _WORKER is not None
    return _WORKER.run(span)


def _execute(options: SimulateOptions, spans: list[tuple[int, int]]) -> Iterator[list[Outcome]]:
    if options.workers <= 1 or len(spans) == 1:
        worker = _Worker(options)
        try:
            for span in spans:
                yield worker.run(span)
        finally:
            worker.close()
        return
    pool = ProcessPoolExecutor(options.workers, initializer=_init_worker, initargs=(options,))
    try:
        futures = [pool.submit(_run_span, span) for span in spans]
        for future in as_completed(futures):
            yield future.result()
    except BaseException:
        for process in list(getattr(pool, "_processes", {}).values()):
            process.terminate()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def run_simulation(options: SimulateOptions) -> SimulationRun:
    start = time.perf_counter()
    spans = chunks(options.dialogues)
    run = SimulationRun(options)
    with progress(f"simulate ({options.level})", options.dialogues) as bar:
        for outcomes in _execute(options, spans):
            run.outcomes += outcomes
            bar.advance(len(outcomes))
    run.outcomes.sort(key=lambda o: o.index)
    run.seconds = round(time.perf_counter() - start, 3)
    return run


def transcripts(run: SimulationRun) -> list[Dialogue]:
    return [Dialogue.model_validate(o.transcript) for o in run.outcomes if o.transcript]
