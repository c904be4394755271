"""Benchmark the garbage collector's pauses as sessions grow, in one process (no HTTP).

    python benchmarks/serve_gc.py [--turns 32000] [--sessions 64] [--gc default|serve]

The echo pipeline and the memory store; N sessions take turns concurrently, as a server's
clients do, and every collection is recorded with ``gc.callbacks`` (CPU time of this thread).
``--gc default`` leaves Python's settings; ``--gc serve`` applies what ``tod serve`` does
(``freeze_long_lived_objects``: start-up and each full collection's survivors frozen, a full
collection allowed after every other young one). Prints JSON: CPU ms per turn (collections
included), full collections (count, total and longest, ms), young collections (total and
longest, ms), objects the collector found unreachable, and the objects it tracks at the end
(frozen ones included).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import time
from collections.abc import AsyncIterator
from typing import Any

from aiohttp import web

import tod_echo
from tod_runtime import Config, Runtime
from tod_runtime.plugins import make_plugin_manager

ECHO = Config(
    services="echo", backend="echo", nlu="echo", tracker="echo", policy="echo", generator="echo"
)


@contextlib.asynccontextmanager
async def gc_policy(name: str) -> AsyncIterator[None]:
    if name == "default":
        yield
        return
    from tod_runtime.server.command import freeze_long_lived_objects

    frozen = freeze_long_lived_objects(web.Application())
    await anext(frozen)
    try:
        yield
    finally:
        await anext(frozen, None)
        gc.unfreeze()


async def run(args: argparse.Namespace) -> dict[str, Any]:
    collections: list[tuple[int, float, int]] = []  # generation, CPU seconds, unreachable
    started = [0.0]

    def record(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.thread_time()
        else:
            collections.append(
                (info["generation"], time.thread_time() - started[0], info["collected"])
            )

    pm = make_plugin_manager(entry_points=False, extra=(tod_echo,))
    async with Runtime(ECHO, plugin_manager=pm) as runtime, gc_policy(args.gc):
        texts = ["city=Austin size=small", "call"]

        async def session(n: int) -> None:
            for i in range(args.turns // args.sessions):
                result = await runtime.handle(f"s{n}", texts[i % 2])
                result.model_dump_json()

        gc.callbacks.append(record)
        try:
            cpu = time.process_time()
            await asyncio.gather(*[session(n) for n in range(args.sessions)])
            cpu = time.process_time() - cpu
        finally:
            gc.callbacks.remove(record)
        tracked = len(gc.get_objects()) + gc.get_freeze_count()
    turns = args.turns // args.sessions * args.sessions
    full = [seconds for generation, seconds, _ in collections if generation == 2]
    young = [seconds for generation, seconds, _ in collections if generation < 2]
    return {
        "gc": args.gc,
        "sessions": args.sessions,
        "turns": turns,
        "cpu_ms_per_turn": round(1000 * cpu / turns, 3),
        "full_collections": len(full),
        "full_collections_ms": round(1000 * sum(full)),
        "longest_full_collection_ms": round(1000 * max(full, default=0.0), 1),
        "young_collections_ms": round(1000 * sum(young)),
        "longest_young_collection_ms": round(1000 * max(young, default=0.0), 1),
        "unreachable_found": sum(found for _, _, found in collections),
        "tracked_objects_at_end": tracked,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=32_000)
    parser.add_argument("--sessions", type=int, default=64)
    parser.add_argument("--gc", choices=["default", "serve"], default="default")
    print(json.dumps(asyncio.run(run(parser.parse_args()))), flush=True)


if __name__ == "__main__":
    main()
