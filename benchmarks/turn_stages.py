"""Benchmark: where one turn's CPU goes, stage by stage, with the default pipeline on the
embedded services (memory store), over the restaurant conversation of `serve_load.py` said
again and again in many sessions, as the open-loop server benchmark says it.

    python benchmarks/turn_stages.py [--sessions 40]

Prints JSON: turns timed and the mean CPU milliseconds per turn (the thread's time, steady
on a busy machine) of ``Runtime.handle`` and, inside it, of the NLU, the tracker, the
conversation patterns, the policy and the generator; ``rest`` is the turn's other work (the
session's events and store, the service call, the runtime). The first session warms the
caches and is not counted; then what start-up built is frozen (``gc.freeze``), so that a
full collection walking it does not land in one stage or another. No HTTP, no Redis:
`serve_load.py` measures those with the rest.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

from serve_load import CONVERSATION

from tod_runtime import Runtime
from tod_runtime.config import Config

spent: Counter[str] = Counter()


def timed(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` adding its thread's CPU seconds to ``spent[name]`` (awaited if async)."""

    def call(*args: Any, **kwargs: Any) -> Any:
        started = time.thread_time()
        result = method(*args, **kwargs)
        if not isinstance(result, Awaitable):
            spent[name] += time.thread_time() - started
            return result

        async def finish() -> Any:
            try:
                return await result
            finally:
                spent[name] += time.thread_time() - started

        return finish()

    return call


async def measure(sessions: int) -> dict[str, object]:
    turns = 0
    async with Runtime(Config()) as runtime:
        pipeline = runtime.pipeline
        stages = pipeline.stages
        for name, component, method in (
            ("nlu", stages.nlu, "parse"),
            ("tracker", stages.tracker, "update"),
            ("patterns", pipeline.patterns, "apply"),
            ("policy", stages.policy, "decide"),
            ("generator", stages.generator, "generate"),
        ):
            setattr(component, method, timed(name, getattr(component, method)))
        for n in range(sessions + 1):
            if n == 1:  # warm: what start-up built is not walked again, as `tod serve` does
                spent.clear()
                gc.collect()
                gc.freeze()
            for text in CONVERSATION * 2:
                started = time.thread_time()
                await runtime.handle(f"stages-{n}", text)
                if n:
                    spent["handle"] += time.thread_time() - started
                    turns += 1
    ms = {name: round(seconds / turns * 1000, 3) for name, seconds in spent.items()}
    ms["rest"] = round(ms["handle"] - sum(v for k, v in ms.items() if k != "handle"), 3)
    return {"turns": turns, "cpu_ms_per_turn": ms}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=40, help="sessions timed (default 40)")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(measure(args.sessions))))


if __name__ == "__main__":
    main()
