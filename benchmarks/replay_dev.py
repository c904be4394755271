"""Benchmark: replay a whole SGD split with the default pipeline; prints JSON.

    python benchmarks/replay_dev.py [--data ../shared/sgd/sgd-train-dev.zip] [--split dev]
                                    [--workers 2] [--nlu rules]

Runs `tod replay` in a subprocess and reports wall seconds, turns per second and the peak
resident memory of the largest process among the replay and its workers, comparable from run
to run.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "sgd" / "sgd-train-dev.zip"))
    parser.add_argument("--split", default="dev")
    parser.add_argument("--workers", default="2")
    parser.add_argument("--nlu", default="rules")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        report_path = Path(tmp) / "report.json"
        start = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "tod_runtime.cli",
                "replay",
                args.data,
                "--split",
                args.split,
                "--workers",
                args.workers,
                "--nlu",
                args.nlu,
                "--report",
                str(report_path),
            ],  # fmt: skip
            check=True,
            stdout=subprocess.DEVNULL,
        )
        wall = time.perf_counter() - start
        report = json.loads(report_path.read_text())
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(
        json.dumps(
            {
                "split": args.split,
                "nlu": args.nlu,
                "workers": int(args.workers),
                "dialogues": report["dialogues"],
                "turns": report["turns"],
                "wall_seconds": round(wall, 2),
                "replay_seconds": report["seconds"],
                "turns_per_second": round(report["turns"] / wall),
                "peak_rss_mb_largest_process": round(peak_kb / 1024),
                "metrics": report["metrics"],
            }
        )
    )


if __name__ == "__main__":
    main()
