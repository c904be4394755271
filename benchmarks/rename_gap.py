"""Benchmark: does any stage read a name? Joint goal accuracy of SGD dev as it is and with
every service, intent and slot renamed to an opaque name (``tod data rename``); prints JSON.

    python benchmarks/rename_gap.py [--data ../shared/sgd/sgd-train-dev.zip] [--split dev]
                                    [--nlu gold,learned,rules] [--workers 2] [--all]

By default a subset (the test's: 64 dialogues of dev files 3, 8, 12, 16 and 20); ``--all``
replays the whole split. For each NLU: the original and renamed joint goal accuracy, active
intent accuracy and requested-slots F1, and the gaps. Issue 9 asks for a joint-goal gap under
0.005.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from tod_runtime.data.rename import Renaming, rename_split
from tod_runtime.data.sgd import open_split
from tod_runtime.replay.report import build_report
from tod_runtime.replay.runner import ReplayOptions, run_replay

ROOT = Path(__file__).resolve().parents[1]
FILES = [f"dialogues_{n:03d}.json" for n in (3, 8, 12, 16, 20)]
KEYS = ("joint_goal_accuracy", "active_intent_accuracy", "requested_slots_f1")


def scores(root: Path, split: str, nlu: str, workers: int) -> dict[str, float | None]:
    options = ReplayOptions(root=str(root), split=split, nlu=nlu, workers=workers)
    report = build_report(options, run_replay(options))
    return {key: report.metrics.get(key) for key in KEYS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "sgd" / "sgd-train-dev.zip"))
    parser.add_argument("--split", default="dev")
    parser.add_argument("--nlu", default="gold,learned", help="comma-separated NLU names")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--all", action="store_true", help="the whole split, not the subset")
    args = parser.parse_args()
    split = open_split(args.data, args.split)
    files, limit = (None, None) if args.all else (FILES, 64)
    out: dict[str, object] = {"split": args.split, "subset": not args.all}
    with tempfile.TemporaryDirectory() as tmp:
        original, renamed = Path(tmp) / "original", Path(tmp) / "renamed"
        rename_split(split, original, files=files, limit=limit, renaming=Renaming())
        rename_split(split, renamed, files=files, limit=limit)
        for nlu in args.nlu.split(","):
            before = scores(original, args.split, nlu, args.workers)
            after = scores(renamed, args.split, nlu, args.workers)
            gaps = {
                k: round(after[k] - before[k], 4)  # type: ignore[operator]
                for k in KEYS
                if before[k] is not None and after[k] is not None
            }
            out[nlu] = {"original": before, "renamed": after, "gap": gaps}
            print(json.dumps({nlu: out[nlu]}), flush=True)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
