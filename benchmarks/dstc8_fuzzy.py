"""Check: tod's fuzzy match is fuzzywuzzy's, on real predictions.

    python benchmarks/dstc8_fuzzy.py [--data ../shared/sgd/sgd-train-dev.zip] [--split dev]
                                     [--nlu gold] [--workers 2] [--limit N]

Runs `tod replay --predictions --report` and scores the predictions twice with the DSTC8
frame metrics (tod_runtime/metrics/state.py): once as tod scores (the standard-library
re-implementation in tod_runtime/metrics/fuzzy.py), once with fuzzywuzzy 0.18's own
`fuzz.token_sort_ratio` (installed without python-Levenshtein, as DSTC8's requirements did;
the `dev` extra installs it). Prints JSON: every non-categorical (gold, predicted) pair
compared and how many ratios differ, the four state metrics both ways, the report's figures,
and the largest difference. Exit 1 when any ratio or metric differs by 1e-6 or more.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

from tod_runtime.data.sgd import open_split
from tod_runtime.dialogue.models import Dialogue
from tod_runtime.metrics import fuzzy
from tod_runtime.metrics import state as state_metrics
from tod_runtime.metrics.state import STATE_METRICS, frame_state_metrics

ROOT = Path(__file__).resolve().parents[1]
TOLERANCE = 1e-6


def score(gold: list[Dialogue], predicted: dict[str, Dialogue], schemas) -> dict[str, float]:  # type: ignore[no-untyped-def]
    sums = {m: 0.0 for m in STATE_METRICS}
    counts = {m: 0 for m in STATE_METRICS}
    for dialogue in gold:
        pred = predicted[dialogue.dialogue_id]
        for turn, pturn in zip(dialogue.turns, pred.turns, strict=True):
            if turn.speaker != "USER":
                continue
            for frame in turn.frames:
                if frame.state is None:
                    continue
                pframe = pturn.frame(frame.service)
                metrics = frame_state_metrics(
                    frame.state, pframe.state if pframe else None, schemas[frame.service]
                )
                for key, value in metrics.items():
                    sums[key] += value
                    counts[key] += 1
    return {m: round(sums[m] / counts[m], 6) if counts[m] else 0.0 for m in STATE_METRICS}


def pairs(gold: list[Dialogue], predicted: dict[str, Dialogue], schemas) -> set[tuple[str, str]]:  # type: ignore[no-untyped-def]
    out = set()
    for dialogue in gold:
        pred = predicted[dialogue.dialogue_id]
        for turn, pturn in zip(dialogue.turns, pred.turns, strict=True):
            for frame in turn.frames:
                pframe = pturn.frame(frame.service)
                if frame.state is None or pframe is None or pframe.state is None:
                    continue
                for slot, values in frame.state.slot_values.items():
                    spec = schemas[frame.service].slot(slot)
                    got = pframe.state.slot_values.get(slot)
                    if spec is not None and not spec.is_categorical and got:
                        out |= {(v, got[0]) for v in values}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "sgd" / "sgd-train-dev.zip"))
    parser.add_argument("--split", default="dev")
    parser.add_argument("--nlu", default="gold")
    parser.add_argument("--workers", default="2")
    parser.add_argument("--limit")
    args = parser.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Using slow pure-python SequenceMatcher": as DSTC8 ran
        from fuzzywuzzy import fuzz
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        command = [sys.executable, "-m", "tod_runtime.cli", "replay", args.data]
        command += ["--split", args.split, "--nlu", args.nlu, "--workers", args.workers]
        command += ["--predictions", str(work / "pred"), "--report", str(work / "report.json")]
        if args.limit:
            command += ["--limit", args.limit]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        report = json.loads((work / "report.json").read_text())["metrics"]
        split = open_split(args.data, args.split)
        schemas = split.schemas()
        predicted = {
            d["dialogue_id"]: Dialogue.model_validate(d)
            for file in sorted((work / "pred").glob("dialogues_*.json"))
            for d in json.loads(file.read_text())
        }
        gold = [d for d in split.dialogues() if d.dialogue_id in predicted]
    compared = pairs(gold, predicted, schemas)
    differing = [
        (g, p) for g, p in compared if fuzzy.token_sort_ratio(g, p) != fuzz.token_sort_ratio(g, p)
    ]
    ours = score(gold, predicted, schemas)

    def theirs_match(gold_values, predicted_value):  # type: ignore[no-untyped-def]
        return max(
            (fuzz.token_sort_ratio(g, predicted_value) / 100.0 for g in gold_values), default=0.0
        )

    original = state_metrics.fuzzy_match
    state_metrics.fuzzy_match = theirs_match
    try:
        theirs = score(gold, predicted, schemas)
    finally:
        state_metrics.fuzzy_match = original
    difference = max(
        max(abs(ours[m] - theirs[m]) for m in STATE_METRICS),
        max(abs(ours[m] - report[m]) for m in STATE_METRICS),
    )
    print(
        json.dumps(
            {
                "split": args.split,
                "nlu": args.nlu,
                "dialogues": len(gold),
                "noncategorical_pairs": len(compared),
                "ratios_differing": len(differing),
                "examples_differing": differing[:5],
                "tod": ours,
                "fuzzywuzzy": theirs,
                "report": {m: report[m] for m in STATE_METRICS},
                "max_difference": difference,
            },
            indent=1,
        )
    )
    sys.exit(0 if difference < TOLERANCE and not differing else 1)


if __name__ == "__main__":
    main()
