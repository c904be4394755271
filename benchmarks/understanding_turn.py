"""Benchmark: how long the understanding of one user turn takes (NLU plus DST, the pipeline's
user step), in one process on one core, over SGD dialogues replayed with the chosen NLU.

    python benchmarks/understanding_turn.py [--data ../shared/sgd/sgd-train-dev.zip]
                                            [--split dev] [--dialogues 300] [--nlu learned]
                                            [--dump FILE] [--all-services]

Prints JSON: turns timed, median, 90th and 99th percentile milliseconds per user step (wall
clock) and the median CPU time of the step's thread (steadier on a busy machine). The
first dialogue warms the caches (schemas, the model, the backend's values) and is not
counted. Compare run to run; the target is a median of at most 3 ms.

``--dump FILE`` also writes every timed user step (text, acts, state) as one JSON line, so
two versions of the code can be diffed for identical predictions (`diff a.jsonl b.jsonl`).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from tod_runtime.dialogue.steps import UserStep
from tod_runtime.pipeline import Pipeline
from tod_runtime.replay.runner import ReplayOptions, run_replay

ROOT = Path(__file__).resolve().parents[1]


def timed(
    step: Callable[..., Awaitable[UserStep]],
    seconds: list[tuple[float, float]],
    steps: list[UserStep],
) -> Callable[..., Awaitable[UserStep]]:
    """``step`` recording its (wall, CPU) seconds in ``seconds`` and its result in ``steps``."""

    async def user_step(*args: Any, **kwargs: Any) -> UserStep:
        started, cpu = time.perf_counter(), time.thread_time()
        try:
            done = await step(*args, **kwargs)
        finally:
            seconds.append((time.perf_counter() - started, time.thread_time() - cpu))
        steps.append(done)
        return done

    return user_step


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "sgd" / "sgd-train-dev.zip"))
    parser.add_argument("--split", default="dev")
    parser.add_argument("--dialogues", type=int, default=300)
    parser.add_argument("--nlu", default="learned")
    parser.add_argument("--dump", metavar="FILE", help="write each timed user step as JSON")
    parser.add_argument(
        "--all-services",
        action="store_true",
        help="the NLU chooses among every service, as in a chat (default: the dialogue's, as "
        "tod replay does)",
    )
    args = parser.parse_args()
    given = not args.all_services
    seconds: list[tuple[float, float]] = []
    steps: list[UserStep] = []
    Pipeline.user_step = timed(Pipeline.user_step, seconds, steps)  # type: ignore[method-assign]
    warm = ReplayOptions(
        root=args.data, split=args.split, nlu=args.nlu, limit=1, workers=1, dialogue_services=given
    )
    run_replay(warm)
    seconds.clear()
    steps.clear()
    options = ReplayOptions(
        root=args.data,
        split=args.split,
        nlu=args.nlu,
        limit=args.dialogues,
        workers=1,
        dialogue_services=given,
    )
    run_replay(options)
    ms = sorted(wall * 1000 for wall, _ in seconds)
    cpu_ms = [cpu * 1000 for _, cpu in seconds]
    line = {
        "nlu": args.nlu,
        "dialogue_services": given,
        "turns": len(ms),
        "median_ms": round(statistics.median(ms), 3),
        "p90_ms": round(ms[int(0.9 * (len(ms) - 1))], 3),
        "p99_ms": round(ms[int(0.99 * (len(ms) - 1))], 3),
        "cpu_median_ms": round(statistics.median(cpu_ms), 3),
    }
    print(json.dumps(line))
    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as out:
            out.writelines(step.model_dump_json() + "\n" for step in steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
