"""Benchmark: does replay slow down as a dialogue grows? One synthetic dialogue over the
embedded services (an everyday conversation said over and over, recorded through the
runtime as `tod chat --record` would), replayed through a replay worker (the runtime and
engine `tod replay` runs) at 50, 500 and 5,000 turns (prefixes of the same recording).

    python benchmarks/replay_long.py [--turns 50,500,5000] [--nlu rules] [--repeat 5]

Each length replays the same number of turns (the short dialogue several times), after one
warm-up replay. Prints JSON: turns per second at each length (the best of --repeat runs) and
the ratio of the fastest to the slowest. The target is a flat profile: within 20 %.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

from tod_runtime import Config, Runtime
from tod_runtime.config import embedded_services_dir
from tod_runtime.data.record import save_dialogues
from tod_runtime.dialogue.models import Dialogue
from tod_runtime.replay.runner import ReplayOptions, _Worker
from tod_runtime.schema.loader import Schemas

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


async def record(turns: int, nlu: str) -> tuple[Dialogue, Schemas]:
    """One chat of ``turns`` turns (user and system) over the embedded services."""
    async with Runtime(Config(nlu=nlu)) as runtime:
        for turn in range(turns // 2):
            await runtime.handle("long", CONVERSATION[turn % len(CONVERSATION)])
        return await runtime.dialogue("long"), runtime.schemas


def measure(folder: Path, lengths: list[int], nlu: str, repeat: int) -> dict[str, float]:
    """Turns per second through a replay worker (the runtime and engine `tod replay` uses)."""
    services = str(embedded_services_dir())  # what the recording was made with
    options = ReplayOptions(root=str(folder), split="long", nlu=nlu, services=services)
    worker = _Worker(options)
    [full] = worker.split.read_file("dialogues_001.json")
    rates: dict[str, float] = {}
    try:
        warm_up = full.model_copy(update={"turns": full.turns[: lengths[0]]})
        worker.loop.run_until_complete(worker.replayer.replay(warm_up, "dialogues_001.json"))
        best = dict.fromkeys(lengths, float("inf"))
        for _ in range(repeat):  # round-robin: a busy moment of the machine hits every length
            for length in lengths:
                dialogue = full.model_copy(update={"turns": full.turns[:length]})
                batch = max(1, max(lengths) // length)  # the same turns at every length
                start = time.perf_counter()
                for _ in range(batch):
                    replay = worker.replayer.replay(dialogue, "dialogues_001.json")
                    result = worker.loop.run_until_complete(replay)
                best[length] = min(best[length], time.perf_counter() - start)
                assert len(result.system) == length // 2, result.diffs[:3]  # every turn ran
        for length in lengths:
            rates[str(length)] = round(length * max(1, max(lengths) // length) / best[length], 1)
    finally:
        worker.close()
    return rates


def run(lengths: list[int], nlu: str, repeat: int) -> dict[str, object]:
    dialogue, schemas = asyncio.run(record(max(lengths), nlu))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "long"
        save_dialogues(folder, [dialogue], schemas)
        rates = measure(folder, lengths, nlu, repeat)
    slowest, fastest = min(rates.values()), max(rates.values())
    return {
        "nlu": nlu,
        "turns_per_second": rates,
        "fastest_over_slowest": round(fastest / slowest, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", default="50,500,5000", help="comma-separated lengths")
    parser.add_argument("--nlu", default="rules")
    parser.add_argument("--repeat", type=int, default=5, help="runs per length (best is kept)")
    args = parser.parse_args()
    lengths = sorted(int(n) for n in args.turns.split(","))
    print(json.dumps(run(lengths, args.nlu, args.repeat), indent=2))


if __name__ == "__main__":
    main()
