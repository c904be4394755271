"""Benchmark: does a turn cost more as a session grows? One long session with the embedded
services, the same everyday conversation said over and over, through the whole pipeline.

    python benchmarks/session_turns.py [--turns 5000] [--store memory://|sqlite:///FILE]

Prints JSON: the median milliseconds per turn around turn 10, 1,000 and 5,000 (21 turns
each), and the ratio of the last to the first. Compare run to run; the target is a flat
profile (a ratio near 1), whatever the store.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

from tod_runtime import Config, Runtime

CONVERSATION = [
    "I want to find a restaurant",
    "in Austin",
    "Italian food please",
    "what is the phone number?",
    "sounds good, book it",
    "at 7 pm",
    "yes",
    "thanks, that's all",
]
WINDOW = 10  # turns each side of a measuring point


async def run(turns: int, store: str) -> dict[str, object]:
    points = [p for p in (10, 1000, 5000, turns) if p <= turns]
    points = sorted(set(points))
    near = {t: p for p in points for t in range(max(1, p - WINDOW), p + WINDOW + 1)}
    seconds: dict[int, list[float]] = {p: [] for p in points}
    async with Runtime(Config(store=store)) as runtime:
        for turn in range(1, turns + WINDOW + 1):
            text = CONVERSATION[(turn - 1) % len(CONVERSATION)]
            start = time.perf_counter()
            await runtime.handle("long", text)
            elapsed = time.perf_counter() - start
            if turn in near:
                seconds[near[turn]].append(elapsed)
    ms = {p: round(statistics.median(v) * 1000, 3) for p, v in seconds.items()}
    first, last = ms[points[0]], ms[points[-1]]
    return {
        "store": store.split("://")[0],
        "turns": turns,
        "ms_per_turn_at": {str(p): ms[p] for p in points},
        "last_over_first": round(last / first, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=5000)
    parser.add_argument("--store", default="memory://", help="memory:// or sqlite:///FILE")
    args = parser.parse_args()
    store = args.store
    with tempfile.TemporaryDirectory() as tmp:
        if store == "sqlite":
            store = f"sqlite:///{Path(tmp) / 'bench.db'}"
        print(json.dumps(asyncio.run(run(args.turns, store)), indent=2))


if __name__ == "__main__":
    main()
