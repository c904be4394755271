"""Benchmark: how often a user gets their task done; runs the project's conversation scripts
(tests/conversations/*.txt) through the default pipeline with ``tod test``'s runner and judge
(``tod_runtime.conversations.run_all``) and prints a JSON summary.

    python benchmarks/conversations.py [--sgd-zip ../shared/sgd/sgd-train-dev.zip]
                                       [--only embedded|sgd:dev] [--transcripts]
                                       [--config FILE] [--workers N]

``--config``: a TOML config for the pipeline (as ``tod chat --config``), e.g. an NLU model
trained with ``tod train nlu`` (``[options.nlu] model = "DIR/nlu.npz"``).

Keys: `conversations`, `passed`, `success_rate`, `skipped` (SGD scripts without the data),
`groups` {services source: the same counts}, and `failures` [{`name`, `services`, `goal`,
`failures` (reasons), `transcript` (with --transcripts)}], comparable from run to run.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tod_runtime import load_config
from tod_runtime.conversations import Outcome, Script, load_script, run_all
from tod_runtime.conversations.script import script_files

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "tests" / "conversations"


def default_sgd_zip() -> Path:
    """The shared SGD zip, found the way tests/conftest.py finds it (``$TOD_SHARED_DIR``)."""
    shared = Path(os.environ.get("TOD_SHARED_DIR", ROOT.parent / "shared"))
    return shared / "sgd" / "sgd-train-dev.zip"


def summary(scripts: Sequence[Script], outcomes: Sequence[Outcome], skipped: list[str]) -> Any:
    services = {s.name: s.services for s in scripts}

    def rate(group: Sequence[Outcome]) -> dict[str, Any]:
        passed = sum(o.passed for o in group)
        return {
            "conversations": len(group),
            "passed": passed,
            "success_rate": round(passed / len(group), 4) if group else 0.0,
        }

    groups = sorted({services[o.name] for o in outcomes})
    return {
        **rate(outcomes),
        "skipped": skipped,
        "groups": {g: rate([o for o in outcomes if services[o.name] == g]) for g in groups},
        "failures": [
            {
                "name": o.name,
                "services": services[o.name],
                "goal": o.goal,
                "failures": o.failures or [o.error or ""],
                "transcript": o.transcript,
            }
            for o in outcomes
            if not o.passed
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sgd-zip", default=str(default_sgd_zip()))
    parser.add_argument("--only", help="run only the scripts over this services source")
    parser.add_argument("--transcripts", action="store_true", help="include failed transcripts")
    parser.add_argument("--config", metavar="FILE", help="TOML config for the pipeline")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    sgd = Path(args.sgd_zip)
    scripts = [load_script(p) for p in script_files([SCRIPTS])]
    scripts = [s for s in scripts if args.only in (None, s.services)]
    skipped = [] if sgd.exists() else [s.name for s in scripts if s.services.startswith("sgd:")]
    ran = [s for s in scripts if s.name not in skipped]
    outcomes = run_all([s.path for s in ran], load_config(args.config), sgd, args.workers)
    report = summary(ran, outcomes, skipped)
    if not args.transcripts:
        for failure in report["failures"]:
            failure.pop("transcript")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
