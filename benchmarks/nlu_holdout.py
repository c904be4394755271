"""Held-out replay on train for the learned NLU: train on train's files 11-128, replay the
first 10 files (1,280 dialogues) with that model; prints the replay's metrics as JSON.

    python benchmarks/nlu_holdout.py [--data ../shared/sgd/sgd-train-dev.zip] [--noise 0.15]
                                     [--seed 0] [--workers 2] [--thresholds spans=0.4,pick=0.5]...

Each ``--thresholds`` (scorer=probability, comma-separated) replays the same fitted model
with those decision thresholds (one line of JSON each); without it, the trained defaults.

The folds of `tod train nlu --cv` score turns in gold context; this scores the NLU in the
whole pipeline, its own guesses carried forward, without touching dev (docs/learned.md).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from tod_runtime.data.sgd import open_split
from tod_runtime.nlu.learned.examples import Featuriser
from tod_runtime.nlu.learned.features import BITS
from tod_runtime.nlu.learned.model import NLUModel, load_model
from tod_runtime.nlu.learned.train import SETTINGS, featurise, fit, known_values_of

HELD_FILES = 10


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(Path("../shared/sgd/sgd-train-dev.zip")))
    parser.add_argument("--noise", type=float, default=float(SETTINGS["context_noise"]))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--thresholds", action="append", default=[], metavar="NAME=P,...")
    parser.add_argument("--model", metavar="NPZ", help="reuse this fitted model, or save it here")
    args = parser.parse_args()
    split = open_split(args.data, "train")
    files = split.dialogue_files()
    held = sum(len(split.read_raw(f)) for f in files[:HELD_FILES])
    if args.model and Path(args.model).exists():
        model = load_model(args.model)
    else:
        schemas = split.schemas()
        featuriser = Featuriser(schemas, BITS, args.noise, known_values_of(split, schemas))
        data = featurise(
            split, featuriser, seed=args.seed, hold=False, limit=None, workers=args.workers,
            files=files[HELD_FILES:],
        )  # fmt: skip
        config = {"bits": BITS, "seed": args.seed, **SETTINGS, "context_noise": args.noise}
        model = fit(data, config | {"split": f"train[{HELD_FILES}:]"}, args.seed)
        if args.model:
            model.save(args.model)
    for setting in args.thresholds or [""]:
        thresholds = dict(model.config["thresholds"])
        thresholds |= {k: float(v) for k, v in (kv.split("=") for kv in setting.split(",") if kv)}
        with tempfile.TemporaryDirectory() as tmp:
            NLUModel(model.weights, model.config | {"thresholds": thresholds}).save(
                f"{tmp}/nlu.npz"
            )
            Path(f"{tmp}/config.toml").write_text(f'[options.nlu]\nmodel = "{tmp}/nlu.npz"\n')
            command = [
                sys.executable, "-m", "tod_runtime.cli", "replay", args.data, "--split", "train",
                "--limit", str(held), "--nlu", "learned", "--config", f"{tmp}/config.toml",
                "--workers", str(args.workers), "--report", f"{tmp}/report.json",
            ]  # fmt: skip
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
            report = json.loads(Path(f"{tmp}/report.json").read_text())
        line = {"noise": args.noise, "thresholds": thresholds, "dialogues": held}
        print(json.dumps(line | {"metrics": report["metrics"]}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
