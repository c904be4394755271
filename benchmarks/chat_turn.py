"""Benchmark: what one chat turn costs through ``Runtime.handle`` (NLU, DST, the conversation
patterns, policy, service call, NLG, the session's store) with the default pipeline on the
embedded services, over the user lines of conversation scripts typed as people type.

    python benchmarks/chat_turn.py [--scripts ../shared/conversations/embedded] [--rounds 3]

Prints JSON: turns timed, and the median, 90th and 99th percentile of the CPU milliseconds
(the thread's time, steady on a busy machine) and of the wall milliseconds per turn. The first
round warms the caches and is not counted. Compare run to run; the target is a median under
5 ms of CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path

from tod_runtime import Runtime
from tod_runtime.config import Config
from tod_runtime.conversations.runner import pinned_today
from tod_runtime.conversations.script import load_script, script_files

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT.parent / "shared" / "conversations" / "embedded"


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def measure(folder: Path, rounds: int) -> dict[str, object]:
    scripts = [load_script(p) for p in script_files([folder])]
    scripts = [s for s in scripts if s.services == "embedded"]
    cpu: list[float] = []
    wall: list[float] = []
    async with Runtime(Config()) as runtime:
        for round_ in range(rounds + 1):
            for script in scripts:
                session = f"bench-{round_}-{script.name}"
                with pinned_today(script.today):
                    for line in script.lines:
                        started, thread = time.perf_counter(), time.thread_time()
                        await runtime.handle(session, line.text)
                        if round_:
                            cpu.append((time.thread_time() - thread) * 1000)
                            wall.append((time.perf_counter() - started) * 1000)
                await runtime.delete(session)
    return {
        "turns": len(cpu),
        "cpu_ms": {
            "median": round(statistics.median(cpu), 3),
            "p90": round(_quantile(cpu, 0.9), 3),
            "p99": round(_quantile(cpu, 0.99), 3),
        },
        "wall_ms": {
            "median": round(statistics.median(wall), 3),
            "p90": round(_quantile(wall, 0.9), 3),
            "p99": round(_quantile(wall, 0.99), 3),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scripts", default=str(DEFAULT), help="a folder of scripts")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds (default: 3)")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(measure(Path(args.scripts), args.rounds)), indent=2))


if __name__ == "__main__":
    main()
