"""Benchmark: how often a user gets their task done; runs the conversation suite
(tests/conversations/*.toml) through the default pipeline and prints a JSON summary.

    python benchmarks/conversations.py [--sgd-zip ../shared/sgd/sgd-train-dev.zip]
                                       [--only embedded|sgd:dev|sgd:train] [--transcripts]
                                       [--config FILE]

``--config``: a TOML config for the pipeline (as ``tod chat --config``), e.g. an NLU model
trained with ``tod train nlu`` (``[options.nlu] model = "DIR/nlu.npz"``).

Keys: `conversations`, `passed`, `success_rate`, `skipped` (SGD conversations without the
data), `groups` {services source: the same counts}, and `failures` [{`name`, `goal`,
`failures` (reasons), `transcript` (with --transcripts)}], comparable from run to run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from conversations.suite import default_sgd_zip, load_all, run_suite, summary  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sgd-zip", default=str(default_sgd_zip()))
    parser.add_argument("--only", help="run only the conversations over this services source")
    parser.add_argument("--transcripts", action="store_true", help="include failed transcripts")
    parser.add_argument("--config", metavar="FILE", help="TOML config for the pipeline")
    args = parser.parse_args()
    conversations = [c for c in load_all() if args.only in (None, c.services)]
    outcomes = asyncio.run(run_suite(conversations, sgd_zip=Path(args.sgd_zip), config=args.config))
    report = summary(outcomes)
    if not args.transcripts:
        for failure in report["failures"]:
            failure.pop("transcript")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
