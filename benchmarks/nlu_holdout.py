"""Held-out replay on train for the learned NLU: train on train's files 11-128, replay the
first 10 files (1,280 dialogues) with that model; prints the replay's metrics as JSON.

    python benchmarks/nlu_holdout.py [--data ../shared/sgd/sgd-train-dev.zip] [--noise 0.15]
                                     [--seed 0] [--workers 2] [--thresholds spans=0.4,pick=0.5]...
                                     [--all-services] [--hold-fold F [--folds 5]]
                                     [--reworded [--original-wording 0.5]]
                                     [--chat] [--limit N] [--held-dialogues N]
                                     [--without REPAIR]...
                                     [--nlu NAME] [--nlu-option KEY=VALUE]...

Each ``--thresholds`` (scorer=probability, comma-separated) replays the same fitted model
with those decision thresholds (one line of JSON each); without it, the trained defaults.
``--all-services``: each turn's service is chosen among all of train's, as in a chat (`tod
replay --all-services`), not among the dialogue's own. ``--hold-fold F``: the model is also
fitted without the services of fold F of ``--folds`` (as `tod train nlu --cv`'s folds), and
each line adds `held_out` (those services) and `held_out_jga` (their mean joint goal accuracy
in the replay): how a change does on services the model never saw, in the whole pipeline.
``--reworded``: the model also learns from SGD-X's rewordings of train, as `tod train nlu`
does when the data carries them (``--original-wording``: the share of dialogues learned from
in SGD's own wording). Such a model, saved with ``--model``, can be replayed over the held-out
files in every variant (`tod replay DATA --split train --limit 1280 --sgdx --config ...`).

``--chat``: chat conditions, as `tod replay --all-services --lower-case --nlu-values train
--hold-values HELD`: the NLU knows train's values of the services it was fitted on only.
``--limit N``: replay only the first N held-out dialogues (quicker; say so beside a figure).
``--held-dialogues N`` (with ``--hold-fold``): replay instead N dialogues, evenly spread, of
files 11-128 whose services are all of the held fold, which the model never saw in any
dialogue (the first 10 files hold only six services, so their held-out figure rests on one
to four of the fold's services; this set holds every one of them that train has alone).
``--without REPAIR[,REPAIR...]`` (repeatable; ``all`` for every one): the NLU's named
repairs left out (``[options.nlu] without``, docs/learned.md#repairs): one line each, an
ablation row; ``-`` for the line with every repair on.
``--nlu NAME``: the replay's NLU (default ``learned``), e.g. a plugin's subclass of the learned
NLU (``learned+encoder``, plugins/encoder), given the same fitted model; each ``--nlu-option``
(a TOML value, e.g. ``weight=4.0``) goes into its ``[options.nlu]``.

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
from typing import Any

from tod_runtime.data.sgd import open_split
from tod_runtime.nlu.learned import examples
from tod_runtime.nlu.learned.examples import Featuriser
from tod_runtime.nlu.learned.features import BITS
from tod_runtime.nlu.learned.model import NLUModel, load_model
from tod_runtime.training.common import reworded_variants, service_folds
from tod_runtime.training.nlu import SETTINGS, featurise, fit, known_values_of

HELD_FILES = 10


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(Path("../shared/sgd/sgd-train-dev.zip")))
    parser.add_argument("--noise", type=float, default=float(SETTINGS["context_noise"]))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--thresholds", action="append", default=[], metavar="NAME=P,...")
    parser.add_argument("--model", metavar="NPZ", help="reuse this fitted model, or save it here")
    parser.add_argument(
        "--all-services", action="store_true", help="as `tod replay --all-services`"
    )
    parser.add_argument("--hold-fold", type=int, metavar="F", help="fit without fold F's services")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--chat", action="store_true", help="chat conditions (see above)")
    parser.add_argument("--limit", type=int, help="replay the first N held-out dialogues only")
    parser.add_argument(
        "--held-dialogues", type=int, metavar="N", help="replay N dialogues of the held services"
    )
    parser.add_argument("--without", action="append", default=[], metavar="REPAIR")
    parser.add_argument("--nlu", default="learned", help="the replay's NLU component")
    parser.add_argument(
        "--nlu-option", action="append", default=[], metavar="KEY=VALUE", help="[options.nlu]"
    )
    parser.add_argument(
        "--reworded", action="store_true", help="learn also from SGD-X's rewordings of train"
    )
    parser.add_argument(
        "--original-wording",
        type=float,
        default=examples.ORIGINAL_WORDING,
        help="with --reworded: share of dialogues learned from as SGD wrote them",
    )
    args = parser.parse_args()
    split = open_split(args.data, "train")
    files = split.dialogue_files()
    held = sum(len(split.read_raw(f)) for f in files[:HELD_FILES])
    held = min(held, args.limit) if args.limit else held
    schemas = split.schemas()
    out = (
        service_folds(schemas, args.folds, args.seed)[args.hold_fold]
        if args.hold_fold is not None
        else frozenset()
    )
    if args.held_dialogues and not out:
        parser.error("--held-dialogues needs --hold-fold")
    if args.model and Path(args.model).exists():
        model = load_model(args.model)
    else:
        examples.ORIGINAL_WORDING = args.original_wording
        reworded = reworded_variants(split) if args.reworded else []
        featuriser = Featuriser(
            schemas, BITS, args.noise, known_values_of(split, schemas), reworded
        )
        data = featurise(
            split, featuriser, seed=args.seed, hold=False, limit=None, workers=args.workers,
            files=files[HELD_FILES:],
        )  # fmt: skip
        config = {"bits": BITS, "seed": args.seed, **SETTINGS, "context_noise": args.noise}
        held_out = [featuriser.service_ids[name] for name in out]
        config |= {"split": f"train[{HELD_FILES}:]", "held_out_services": sorted(out)}
        model = fit(data, config, args.seed, held_out)
        if args.model:
            model.save(args.model)
    for setting, without in _lines(args.thresholds, args.without):
        thresholds = dict(model.config["thresholds"])
        thresholds |= {k: float(v) for k, v in (kv.split("=") for kv in setting.split(",") if kv)}
        with tempfile.TemporaryDirectory() as tmp:
            NLUModel(model.weights, model.config | {"thresholds": thresholds}).save(
                f"{tmp}/nlu.npz"
            )
            Path(f"{tmp}/config.toml").write_text(
                f'[options.nlu]\nmodel = "{tmp}/nlu.npz"\nwithout = {json.dumps(without)}\n'
                + "".join(f"{option}\n" for option in args.nlu_option)
            )
            data, limit = args.data, held
            if args.held_dialogues:
                data = held_set(split, files[HELD_FILES:], out, args.held_dialogues, tmp)
                limit = args.held_dialogues
            command = [
                sys.executable, "-m", "tod_runtime.cli", "replay", data, "--split", "train",
                "--limit", str(limit), "--nlu", args.nlu, "--config", f"{tmp}/config.toml",
                "--workers", str(args.workers), "--report", f"{tmp}/report.json",
            ]  # fmt: skip
            command += ["--all-services"] if args.all_services or args.chat else []
            if args.chat:
                command += ["--lower-case", "--nlu-values", "train"]
                command += ["--hold-values", ",".join(sorted(out))] if out else []
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
            report = json.loads(Path(f"{tmp}/report.json").read_text())
        dialogues = report["dialogues"] if args.held_dialogues else held
        line = {"noise": args.noise, "thresholds": thresholds, "dialogues": dialogues}
        line |= {"held_dialogues": bool(args.held_dialogues)}
        line |= {"all_services": args.all_services, "chat": args.chat, "without": without}
        line |= {"nlu": args.nlu, "nlu_options": args.nlu_option}
        if out:
            jga = [
                report["groups"]["services"][name]["joint_goal_accuracy"]
                for name in sorted(out)
                if name in report["groups"]["services"]
            ]
            mean = round(sum(jga) / len(jga), 6) if jga else None
            line |= {"held_out": sorted(out), "held_out_jga": mean}
        print(json.dumps(line | {"metrics": report["metrics"]}), flush=True)
    return 0


def held_set(split: Any, files: list[str], services: frozenset[str], n: int, tmp: str) -> str:
    """An SGD folder (``tmp``/held/train) holding train's schemas and ``n`` dialogues of
    ``files``, evenly spread, whose services are all in ``services``."""
    chosen = [d for f in files for d in split.read_raw(f) if set(d["services"]) <= services]
    step = max(1, len(chosen) // n)
    folder = Path(tmp) / "held" / "train"
    folder.mkdir(parents=True)
    (folder / "schema.json").write_text(json.dumps(split.read_raw("schema.json")))
    (folder / "dialogues_001.json").write_text(json.dumps(chosen[::step][:n]))
    return str(folder.parent)


def _lines(thresholds: list[str], without: list[str]) -> list[tuple[str, list[str]]]:
    """(thresholds, repairs left out) of every line to replay."""
    if not without:
        return [(setting, []) for setting in thresholds or [""]]
    if "all" in without:
        from tod_runtime.nlu.learned.repairs import REPAIRS

        without = ["-", *(r.name for r in REPAIRS)]  # the ones on by default
    return [("", [] if name == "-" else name.split(",")) for name in without]


if __name__ == "__main__":
    sys.exit(main())
