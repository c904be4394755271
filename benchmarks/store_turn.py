"""Benchmark a turn's store work alone on Redis: the client side's CPU time per turn.

    python benchmarks/store_turn.py [--turns 6400] [--rounds 5] [--sessions 64]

A private redis-server; N sessions take turns concurrently, and a turn is what the runtime
asks of the store: take the session's lock and read the log from the last folded event on
(``locked_read``; on a commit before it, ``session_lock`` then ``load``), append six events
with ``expected``, leave the lock. No pipeline, no HTTP. Prints JSON: this process's CPU
microseconds per turn for each round (redis-server's own not counted), their median and
minimum. The figure the store's round trips and redis-py's work decide; compare commits in
interleaved runs (the machine's neighbours move it by +-20 %).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from typing import Any

from serve_load import redis_server, stop

import tod_runtime.stores.base as stores
from tod_redis_store import RedisStore
from tod_runtime.session import Event, SystemUttered, UserUttered

EVENTS: list[Event] = [
    UserUttered(text="I want to find a restaurant in Austin"),
    SystemUttered(text="What kind of food would you like?"),
] * 3


async def run(url: str, args: argparse.Namespace) -> dict[str, Any]:
    store = RedisStore.from_url(url)
    counts: dict[str, int] = {}

    async def turn(session_id: str) -> None:
        count = counts.get(session_id, 0)
        start = count - 1 if count else 0
        if hasattr(stores, "locked_read"):
            async with stores.locked_read(store, session_id, start):
                await store.append(session_id, EVENTS, expected=count)
        else:
            async with store.session_lock(session_id):
                await store.load(session_id, start)
                await store.append(session_id, EVENTS, expected=count)
        counts[session_id] = count + len(EVENTS)

    async def session(n: int) -> None:
        for _ in range(args.turns // args.sessions):
            await turn(f"s{n}")

    rounds = []
    for _ in range(args.rounds):
        cpu = time.process_time()
        await asyncio.gather(*[session(n) for n in range(args.sessions)])
        turns = args.turns // args.sessions * args.sessions
        rounds.append(round(1e6 * (time.process_time() - cpu) / turns, 1))
    await store.close()
    return {
        "turns_a_round": args.turns // args.sessions * args.sessions,
        "cpu_us_per_turn": rounds,
        "median": round(statistics.median(rounds), 1),
        "min": min(rounds),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=6400)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sessions", type=int, default=64)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        redis, url = redis_server(tmp)
        try:
            print(json.dumps(asyncio.run(run(url, args))), flush=True)
        finally:
            stop(redis)


if __name__ == "__main__":
    main()
