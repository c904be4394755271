"""Benchmark: how long the default generator takes to realise one system turn from its
annotated acts (as replay does), in one process on one core.

    python benchmarks/nlg_turn.py [--data ../shared/sgd/sgd-train-dev.zip] [--split dev]
                                  [--turns 20000]

Prints JSON: turns timed, median, 90th and 99th percentile milliseconds per turn, for all
turns and for the turns of services without their own templates (they borrow from the
closest service and the generic set). One pass over the turns warms the caches (the
template files, each schema's slot kinds and neighbours) and is not counted. The target is
a median of at most 0.2 ms.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from tod_runtime.data.sgd import open_split
from tod_runtime.nlg.template import TemplateGenerator
from tod_runtime.plugins import ComponentContext

ROOT = Path(__file__).resolve().parents[1]


def _ms(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)

    def at(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 4)

    return {
        "median_ms": round(statistics.median(ordered) * 1000, 4),
        "p90_ms": at(0.9),
        "p99_ms": at(0.99),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared/sgd/sgd-train-dev.zip"))
    parser.add_argument("--split", default="dev")
    parser.add_argument("--turns", type=int, default=20000)
    args = parser.parse_args()
    split = open_split(args.data, args.split)
    schemas = split.schemas()
    generator = TemplateGenerator(ComponentContext(schemas=schemas, backend=None))
    turns = []
    for dialogue in split.dialogues(schemas=schemas):
        for turn in dialogue.turns:
            if turn.speaker == "SYSTEM" and turn.frames:
                turns.append([(f.service, f.actions) for f in turn.frames])
        if len(turns) >= args.turns:
            break
    turns = turns[: args.turns]
    for frames in turns:  # warm-up
        for service, actions in frames:
            generator.realise(service, actions)
    own = generator.realiser.services
    seconds: list[float] = []
    borrowed: list[float] = []
    for frames in turns:
        started = time.perf_counter()
        for service, actions in frames:
            generator.realise(service, actions)
        took = time.perf_counter() - started
        seconds.append(took)
        if frames[0][0] not in own:
            borrowed.append(took)
    report = {"turns": len(seconds), **_ms(seconds)}
    if borrowed:
        report["without_own_templates"] = {"turns": len(borrowed), **_ms(borrowed)}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
