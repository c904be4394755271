"""Quick held-out-services check of the learned NLU's intent and requested-slot scorers, on
SGD train only: K folds over train's services, each fold's services left out of training,
scored in gold context on held-aside dialogues (every 10th) of its services ("unseen") and of
the others ("seen"). Prints one line of JSON.

    python benchmarks/nlu_cv.py [--data ../shared/sgd/sgd-train-dev.zip] [--k 5] [--limit N]
                                [--scorers intent,slots] [--workers 2] [--reworded]

`tod train nlu --cv K` does the same for all five scorers before fitting the shipped model;
this fits only the scorers named, so a feature of the intent scorer is checked in minutes.
Intents are ranked among every service's, as in a chat. ``--reworded``: the held-aside turns
are also scored with the schemas in each of SGD-X's five rewordings of train (groups
``seen_reworded`` and ``unseen_reworded``, the mean over the five): how the scorers do when
the descriptions are worded otherwise, on services never seen as well.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np

from tod_runtime.data.sgd import open_split
from tod_runtime.metrics.state import requested_slots_f1
from tod_runtime.nlu.learned.examples import Featuriser
from tod_runtime.nlu.learned.features import BITS
from tod_runtime.nlu.learned.model import SCORERS, NLUModel, train_logreg
from tod_runtime.nlu.learned.scorer import Scorer
from tod_runtime.training.common import reworded_variants
from tod_runtime.training.nlu import SETTINGS, featurise, known_values_of


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(Path("../shared/sgd/sgd-train-dev.zip")))
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--limit", type=int, help="the first N dialogues of train only")
    parser.add_argument("--scorers", default="intent,slots")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--reworded", action="store_true", help="also score in SGD-X's wordings")
    args = parser.parse_args()
    started = time.perf_counter()
    split = open_split(args.data, "train")
    schemas = split.schemas()
    reworded = reworded_variants(split)
    featuriser = Featuriser(
        schemas, BITS, float(SETTINGS["context_noise"]), known_values_of(split, schemas), reworded
    )
    data = featurise(
        split, featuriser, seed=args.seed, hold=True, limit=args.limit, workers=args.workers
    )
    services = sorted(schemas)
    random.Random(args.seed).shuffle(services)
    ids = {name: n for n, name in enumerate(sorted(schemas))}
    fitted = args.scorers.split(",")
    totals: dict[str, dict[str, float]] = {}
    for fold in range(args.k):
        out = set(services[fold :: args.k])
        weights = {name: np.zeros(1 << BITS, dtype=np.float32) for name in SCORERS}
        for name in fitted:
            weights[name] = train_logreg(
                data.rows[name],
                epochs=int(SETTINGS["epochs"]),
                rate=float(SETTINGS["rate"]),
                l2=float(SETTINGS["l2"]),
                seed=args.seed + SCORERS.index(name),
                subset=data.rows[name].without([ids[s] for s in out]),
            )
        model = NLUModel(weights, {"bits": BITS, **SETTINGS})
        wordings = [("", schemas), *(("_reworded", w) for w in (reworded if args.reworded else []))]
        for suffix, wording in wordings:
            scorer = Scorer(model, wording)
            for turn in data.held:
                name = ("unseen" if turn.service in out else "seen") + suffix
                group = totals.setdefault(name, {})
                group["turns"] = group.get("turns", 0) + 1
                if "intent" in fitted:
                    right = scorer.intent(turn.view) == turn.target
                    group["intent"] = group.get("intent", 0) + right
                if "slots" in fitted:
                    got = scorer.requested(turn.view, turn.service, turn.slot_acts)
                    f1 = requested_slots_f1(turn.requested, got)
                    group["slots_f1"] = group.get("slots_f1", 0) + f1
    report: dict[str, object] = {"k": args.k, "limit": args.limit}
    for group, sums in totals.items():
        n = sums["turns"]
        report[group] = {"turns": int(n)} | {
            key: round(value / n, 4) for key, value in sums.items() if key != "turns"
        }
    report["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
