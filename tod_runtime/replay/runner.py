"""Runs a replay over a split: file by file, in one process or a pool of workers, with the
results merged in file order so every run gives the same numbers."""

from __future__ import annotations

import asyncio
import gc
import signal
import time
from collections.abc import Generator
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from tod_runtime.backends.recorded import RecordedBackend
from tod_runtime.backends.sgd_tables import SGDTablesBackend, read_recordings
from tod_runtime.config import Config, load_config
from tod_runtime.data.sgd import SGDSplit, open_split
from tod_runtime.errors import DataError, TodError
from tod_runtime.files import remove_temporaries, write_json
from tod_runtime.plugins import collect_components, make_plugin_manager
from tod_runtime.progress import progress
from tod_runtime.replay.engine import DialogueReplayer, DialogueResult
from tod_runtime.replay.known_values import NLUValues, nlu_backend
from tod_runtime.runtime import Runtime

GOLD = "gold"
GC_YOUNG = 10_000  # allocations between young collections while replaying (Python's: 700)


@dataclass(frozen=True)
class ReplayOptions:
    root: str
    split: str
    nlu: str | None = None  # "gold", an NLU name, or None: the configured NLU
    policy: str | None = None
    config: str | None = None
    plugins_dir: str | None = None
    limit: int | None = None
    workers: int = 1
    predictions: str | None = None
    strict: bool = False  # an invalid file fails the run; the first failed dialogue stops it
    exact: bool = False
    errors: bool = False  # keep the state errors of every frame (for --errors)
    services: str | None = None  # what the pipeline runs on; default: the split's own
    # DSTC8's protocol: each dialogue's services are given, the NLU chooses among them only;
    # False: among every service of the pipeline (as in a chat)
    dialogue_services: bool = True
    lower_case: bool = False  # the user's turns typed in lower case (as in a chat)
    nlu_values: NLUValues = "backend"  # where the NLU's known values come from (known_values.py)
    hold_values: frozenset[str] = frozenset()  # services whose values the NLU is not given
    variant: tuple[str, str, str] | None = None  # SGD-X: (original root, split, variant)
    label: str | None = None  # the progress bar's text; default "replay <split>"

    def runtime_config(self) -> Config:
        """The configured runtime on the split's services. Replaying SGD's own recordings
        (no ``services`` given), the rules policy does not say what a booking did unless the
        config asks (``say_booked``): SGD's system never does, and replay scores the system's
        acts against SGD's; nor does the runtime ask which task is meant (the ``clarify``
        pattern), which SGD's users could not answer. A recorded chat (``--services``)
        replays as it was chatted."""
        config = load_config(
            self.config,
            services=self.services or f"{self.root}:{self.split}",
            nlu=None if self.nlu == GOLD else self.nlu,
            policy=self.policy,
            plugins_dir=self.plugins_dir,
        )
        if config.policy == "rules" and self.services is None:
            config.options.setdefault("policy", {}).setdefault("say_booked", False)
        if self.services is None and "clarify" not in config.patterns_off:
            # SGD's recorded users answer no question they were not asked: the NLU's guess
            # stands where it would ask which task is meant
            config.patterns_off.append("clarify")
        return config


def replay_runtime(options: ReplayOptions, split: SGDSplit) -> Runtime:
    """A runtime on the configured services whose service calls get the split's recorded
    results when they match the recording."""
    config = options.runtime_config()
    pm = make_plugin_manager(config.plugins_dir)
    components = collect_components(pm)
    inner = components.open_backend(config.backend, config.services)
    recordings = inner.recordings if isinstance(inner, SGDTablesBackend) else read_recordings(split)
    backend = RecordedBackend(recordings, inner)
    known = nlu_backend(
        backend, options.nlu_values, options.root, options.hold_values, options.variant
    )
    return Runtime(
        config, plugin_manager=pm, backend=backend, components=components, nlu_backend=known
    )


@dataclass
class ReplayRun:
    services: list[str]  # the split's services, from its schema.json
    results: list[DialogueResult] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    stopped_at: DialogueResult | None = None  # --strict: the first failed dialogue met


Task = tuple[str, int | None]  # file, how many dialogues of it (None: all)


class _Worker:
    """One process's runtime and replayer, built once."""

    def __init__(self, options: ReplayOptions) -> None:
        self.options = options
        self.split = open_split(options.root, options.split)
        self.runtime = replay_runtime(options, self.split)
        self.loop = asyncio.new_event_loop()
        self.loop.run_until_complete(self.runtime.start())
        # A long dialogue keeps many objects alive while it replays, and the garbage
        # collector's full passes walked them all, and the ~300k objects start-up loaded, over
        # and over: a 5,000-turn dialogue replayed ~30 % slower per turn than a 50-turn one
        # (benchmarks/replay_long.py). Start-up's objects live as long as the worker: frozen,
        # they are not walked; a larger young generation lets a turn's garbage die young.
        self._gc_threshold = gc.get_threshold()
        gc.collect()
        gc.freeze()
        gc.set_threshold(GC_YOUNG, *self._gc_threshold[1:])
        self.replayer = DialogueReplayer(
            self.runtime,
            gold_nlu=options.nlu == GOLD,
            keep_predictions=options.predictions is not None,
            keep_errors=options.errors,
            exact=options.exact,
            dialogue_services=options.dialogue_services,
            lower_case=options.lower_case,
        )

    def run(self, task: Task) -> tuple[list[DialogueResult], dict[str, str] | None]:
        file, count = task
        try:
            dialogues = self.split.read_file(file, schemas=self.runtime.schemas)
        except TodError as exc:
            return [], {"file": file, "error": str(exc)}
        results = []
        for dialogue in dialogues[:count]:
            result = self.loop.run_until_complete(self.replayer.replay(dialogue, file))
            results.append(result)
            if self.options.strict and not result.passed:
                break
        if self.options.predictions is not None:
            predicted = [r.predicted.to_json() for r in results if r.predicted is not None]
            write_json(Path(self.options.predictions) / file, predicted, indent=1)
            for r in results:
                r.predicted = None
        return results, None

    def close(self) -> None:
        """Close the runtime, after cancelling what an interruption left running."""
        pending = asyncio.all_tasks(self.loop)
        for task in pending:
            task.cancel()
        if pending:
            gather = asyncio.gather(*pending, return_exceptions=True)
            self.loop.run_until_complete(gather)
        self.loop.run_until_complete(self.runtime.close())
        self.loop.close()
        gc.set_threshold(*self._gc_threshold)
        gc.unfreeze()


_WORKER: _Worker | None = None


_START_ERROR: TodError | None = None


def _init_worker(options: ReplayOptions) -> None:
    """Build the process's worker. A user's error in doing so (a model file that cannot be
    read, values asked for that are not there) is kept and raised by the first task, so the
    parent gets it as that error (one line, its exit status), not as a broken pool."""
    global _WORKER, _START_ERROR
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the parent, which ends us
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent's terminate() ends us at once
    try:
        _WORKER = _Worker(options)
    except TodError as exc:
        _START_ERROR = exc


def _run_task(task: Task) -> tuple[list[DialogueResult], dict[str, str] | None]:
    if _START_ERROR is not None:
        raise _START_ERROR
    assert _WORKER is not None
    return _WORKER.run(task)


def _check(options: ReplayOptions, skipped: dict[str, str] | None) -> None:
    if skipped is not None and options.strict:
        raise DataError(skipped["error"], hint="run without --strict to skip invalid files")


def run_replay(options: ReplayOptions) -> ReplayRun:
    start = time.perf_counter()
    split = open_split(options.root, options.split)
    services = list(split.schemas())
    tasks = split.slices(options.limit)
    if options.predictions is not None:
        Path(options.predictions).mkdir(parents=True, exist_ok=True)
    run = ReplayRun(services)
    outcomes: dict[int, tuple[list[DialogueResult], dict[str, str] | None]] = {}
    try:
        with (
            progress(options.label or f"replay {options.split}", len(tasks)) as bar,
            closing(_execute(options, tasks)) as done,
        ):
            for index, outcome in done:
                _check(options, outcome[1])
                outcomes[index] = outcome
                bar.advance()
                if options.strict and not all(r.passed for r in outcome[0]):
                    break  # --strict: stop at the first failed dialogue
    except BaseException:
        if options.predictions is not None:  # a worker ended mid-write leaves its temp file
            remove_temporaries(options.predictions)
        raise
    for index in sorted(outcomes):
        results, skipped = outcomes[index]
        run.results += results
        if skipped is not None:
            run.skipped.append(skipped)
    run.stopped_at = (
        next((r for r in run.results if not r.passed), None) if options.strict else None
    )
    run.seconds = round(time.perf_counter() - start, 3)
    return run


def _execute(
    options: ReplayOptions, tasks: list[Task]
) -> Generator[tuple[int, tuple[list[DialogueResult], dict[str, str] | None]], None, None]:
    if options.workers <= 1 or len(tasks) == 1:
        worker = _Worker(options)
        try:
            for index, task in enumerate(tasks):
                yield index, worker.run(task)
        finally:
            worker.close()
        return
    pool = ProcessPoolExecutor(options.workers, initializer=_init_worker, initargs=(options,))
    try:
        futures = {pool.submit(_run_task, task): i for i, task in enumerate(tasks)}
        for future in as_completed(futures):
            yield futures[future], future.result()
    except BaseException:  # interrupted, an error, or the caller stopped (--strict): now
        for process in list(getattr(pool, "_processes", {}).values()):
            process.terminate()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
