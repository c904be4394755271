"""Held-out replay on train for the carry-over model, seen services: fit the model on train
without 10 of its multi-domain dialogue files, replay those 10 files (1,280 dialogues) with
the gold user acts and that model; prints the replay's joint goal accuracy, overall and per
service, as JSON.

    python benchmarks/dst_holdout.py [--data ../shared/sgd/sgd-train-dev.zip] [--model NPZ]
                                     [--workers 1] [--errors FILE] [--report FILE]
                                     [--sgdx] [--sgd-only]

``tod train dst --cv K`` holds out *services*: it measures a service the model never saw.
SGD dev with gold acts scores lower on the services train has (0.9599) than on new ones
(0.9805): a seen service in a dialogue the model never saw, which this measures on train,
without touching dev (docs/learned.md). The held-out files are 10 files spread evenly over
train's multi-domain files (``training.dst.holdout_files``; in
../shared/sgd/sgd-train-dev.zip dialogues_044, 049, 061, 067, 089, 096, 101, 107, 112 and
119: 25 services, all of them in train's other files). The first 10 files, which
``benchmarks/nlu_holdout.py`` holds out, are single-domain: nothing is carried there (joint
goal 1.0), so they cannot measure the carry-over.

``--model NPZ``: reuse that fitted model when the file exists, else save the fit there (the
rows depend on the rules tracker and the features, so refit after changing them; changes to
``dst/carry.py``'s decisions alone can reuse it). ``--errors``: the replay's error analysis
(``tod replay --errors``); ``--report``: its JSON report. ``python scripts/dst_cv_errors.py
SGD_ZIP --holdout NPZ`` counts the same errors by class (the same joint goal). ``--sgdx``:
also replay the held-out files under each SGD-X rewording of train's schemas (``tod replay
--sgdx``; the ``sgdx`` key: per variant, mean, drop, sensitivity), as dev's seen services are
reworded in SGD-X's dev variants. As ``tod train dst``, the fit also learns the reworded model
from SGD-X's rewordings of train when the dataset has them; ``--sgd-only``: not (``tod train
dst --sgd-only``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from tod_runtime.data.sgd import open_split
from tod_runtime.data.sgdx import VARIANTS, variant_split
from tod_runtime.dst.learned.model import load_model
from tod_runtime.training.common import collect_rows, reworded_variants, split_pool
from tod_runtime.training.dst import (
    dialogue_rows,
    fit_rows,
    holdout_files,
    reworded_rows,
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(Path("../shared/sgd/sgd-train-dev.zip")))
    parser.add_argument("--model", metavar="NPZ", help="reuse this fitted model, or save it here")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--errors", metavar="FILE", help="write the replay's error analysis")
    parser.add_argument("--report", metavar="FILE", help="write the replay's full JSON report")
    parser.add_argument("--sgdx", action="store_true", help="also replay every SGD-X rewording")
    parser.add_argument("--sgd-only", action="store_true", help="no reworded model")
    args = parser.parse_args()
    split = open_split(args.data, "train")
    files = split.dialogue_files()
    held = holdout_files(split)
    raw = {f: split.read_raw(f) for f in held}
    dialogues = sum(len(raw[f]) for f in held)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(args.model) if args.model else Path(tmp) / "carry.npz"
        if not path.exists():
            rest = [f for f in files if f not in held]
            reworded = [] if args.sgd_only else reworded_variants(split)
            rows = reworded_rows if reworded else dialogue_rows
            with split_pool(split, args.workers) as pool:
                counts = collect_rows(pool, rest, rows, "carry rows")
            fit_rows(counts, schemas=split.schemas(), reworded=reworded).save(path)
        load_model(str(path))  # fails early, with a hint, on a bad file
        Path(f"{tmp}/config.toml").write_text(
            f"[options.tracker]\ncarry_model = {json.dumps(str(path.resolve()))}\n"
        )
        data = Path(tmp) / "data"  # the held-out files as a dataset of their own
        folder = data / "train"
        folder.mkdir(parents=True)
        (folder / "schema.json").write_text(json.dumps(split.read_raw("schema.json")))
        for f in held:
            (folder / f).write_text(json.dumps(raw[f]))
        for variant in VARIANTS if args.sgdx else ():
            inner = data / "sgd_x" / "data" / variant / "train"
            inner.mkdir(parents=True)
            raw_schema = variant_split(args.data, "train", variant).read_raw("schema.json")
            (inner / "schema.json").write_text(json.dumps(raw_schema))
        report_path = args.report or f"{tmp}/report.json"
        command = [
            sys.executable, "-m", "tod_runtime.cli", "replay", str(data), "--split", "train",
            "--nlu", "gold", "--config", f"{tmp}/config.toml",
            "--workers", str(args.workers), "--report", report_path, "--force",
        ]  # fmt: skip
        command += ["--errors", args.errors] if args.errors else []
        command += ["--sgdx"] if args.sgdx else []
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        report = json.loads(Path(report_path).read_text())
    services = {
        name: round(m["joint_goal_accuracy"], 4)
        for name, m in sorted(report["groups"]["services"].items())
    }
    line = {
        "dialogues": dialogues,
        "files": held,
        "joint_goal_accuracy": round(report["metrics"]["joint_goal_accuracy"], 6),
        "average_goal_accuracy": round(report["metrics"]["average_goal_accuracy"], 6),
        "services": services,
    }
    if args.sgdx:
        sgdx = report["sgdx"]
        line["sgdx"] = {
            **{v: round(m["joint_goal_accuracy"], 6) for v, m in sgdx["variants"].items()},
            **{k: sgdx[k] for k in ("joint_goal_accuracy_drop", "schema_sensitivity")},
        }
    print(json.dumps(line), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
