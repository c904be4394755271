"""``tod train nlu``: featurise SGD train, fit both scorers, write DIR/nlu.npz and
DIR/nlu.json; ``--cv K`` first scores K folds over train's services (each fold's services
held out of training, scored on held-aside dialogues)."""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Mapping, Sequence
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from tod_runtime.data.sgd import SGDSplit, open_split
from tod_runtime.files import atomic_open, atomic_write
from tod_runtime.nlu.learned.examples import Featurised, Featuriser, GoldTurn, gold_turns
from tod_runtime.nlu.learned.features import BITS
from tod_runtime.nlu.learned.model import NLUModel, Rows, train_logreg
from tod_runtime.nlu.learned.scorer import Scorer
from tod_runtime.progress import progress
from tod_runtime.replay.state_metrics import requested_slots_f1
from tod_runtime.schema.models import ServiceSchema

HOLD_EVERY = 10  # with --cv: every 10th dialogue is held aside for scoring the folds
SETTINGS: dict[str, Any] = {
    "epochs": 3,
    "rate": 0.1,
    "l2": 1e-6,
    "threshold": 0.5,
    "context_noise": 0.15,  # see Featuriser
}


def add_train_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="SGD_DIR", help="SGD dataset folder or zip (train split)")
    parser.add_argument("--out", metavar="DIR", required=True, help="write DIR/nlu.npz")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cv", type=int, default=0, metavar="K", help="K folds over services")
    parser.add_argument("--limit", type=int, metavar="N", help="train on the first N dialogues")
    parser.add_argument("--workers", type=int, default=2, help="processes for featurising")


# ---------------------------------------------------------------- featurising

_worker: tuple[SGDSplit, Featuriser, int, bool] | None = None


def _init(split: SGDSplit, featuriser: Featuriser, seed: int, hold: bool) -> None:
    global _worker
    _worker = (split, featuriser, seed, hold)


def _file(job: tuple[str, int | None]) -> Featurised:
    assert _worker is not None
    split, featuriser, seed, hold = _worker
    file, limit = job
    out = Featurised()
    for n, dialogue in enumerate(split.read_raw(file)[:limit]):
        rng = random.Random(f"{seed}:{file}:{n}")
        held = hold and n % HOLD_EVERY == 0
        for turn in gold_turns(dialogue):
            if held:
                out.held.append(turn)
            else:
                featuriser.add(out, turn, rng)
    return out


def featurise(
    split: SGDSplit,
    featuriser: Featuriser,
    *,
    seed: int,
    hold: bool,
    limit: int | None,
    workers: int,
    files: list[str] | None = None,
) -> Featurised:
    jobs = split.slices(limit, files)
    data = Featurised()
    with progress("featurise train", len(jobs)) as bar:
        if workers <= 1 or len(jobs) == 1:
            _init(split, featuriser, seed, hold)
            parts = map(_file, jobs)
            for part in parts:
                data.extend(part)
                bar.advance()
        else:
            initargs = (split, featuriser, seed, hold)
            with get_context("spawn").Pool(workers, _init, initargs) as pool:
                for part in pool.imap(_file, jobs):
                    data.extend(part)
                    bar.advance()
    return data


# ---------------------------------------------------------------- fitting and scoring


def fit(
    data: Featurised,
    config: Mapping[str, Any],
    seed: int,
    intent_rows: npt.NDArray[np.int64] | None = None,
    slot_rows: npt.NDArray[np.int64] | None = None,
    label: str = "train",
) -> NLUModel:
    kw = {k: config[k] for k in ("epochs", "rate", "l2")}
    n_int = len(data.intent) if intent_rows is None else len(intent_rows)
    n_slot = len(data.slots) if slot_rows is None else len(slot_rows)
    with progress(label, (n_int + n_slot) * int(kw["epochs"])) as bar:
        intent = _fit(data.intent, kw, seed, intent_rows, bar.advance)
        slots = _fit(data.slots, kw, seed + 1, slot_rows, bar.advance)
    return NLUModel(intent, slots, dict(config))


def _fit(rows: Rows, kw: Mapping[str, Any], seed: int, subset: Any, advance: Any) -> Any:
    return train_logreg(
        rows,
        bits=BITS,
        epochs=int(kw["epochs"]),
        rate=float(kw["rate"]),
        l2=float(kw["l2"]),
        seed=seed,
        subset=subset,
        advance=advance,
    )


def evaluate(scorer: Scorer, turns: Sequence[GoldTurn]) -> dict[str, float]:
    right = f1 = 0.0
    for t in turns:
        right += scorer.intent(t.view) == t.target
        f1 += requested_slots_f1(t.requested, scorer.requested(t.view, t.service, t.slot_acts))
    n = max(len(turns), 1)
    return {
        "turns": len(turns),
        "intent_accuracy": round(right / n, 4),
        "requested_slots_f1": round(f1 / n, 4),
    }


def cross_validate(
    data: Featurised,
    schemas: Mapping[str, ServiceSchema],
    k: int,
    config: Mapping[str, Any],
    seed: int,
    seen_sample: int = 1500,
) -> dict[str, Any]:
    services = sorted(schemas)
    random.Random(seed).shuffle(services)
    ids = {name: n for n, name in enumerate(sorted(schemas))}
    intent_turn = np.frombuffer(data.intent_turn, dtype=np.int16)
    intent_cand = np.frombuffer(data.intent_candidate, dtype=np.int16)
    slot_turn = np.frombuffer(data.slots_turn, dtype=np.int16)
    folds: list[dict[str, Any]] = []
    for fold in range(k):
        out = set(services[fold::k])
        out_ids = np.array([ids[s] for s in out], dtype=np.int16)
        keep_i = ~np.isin(intent_turn, out_ids) & ~np.isin(intent_cand, out_ids)
        keep_s = ~np.isin(slot_turn, out_ids)
        model = fit(
            data,
            config,
            seed,
            np.flatnonzero(keep_i).astype(np.int64),
            np.flatnonzero(keep_s).astype(np.int64),
            label=f"fold {fold + 1}/{k}",
        )
        scorer = Scorer(model, schemas)
        unseen = [t for t in data.held if t.service in out]
        seen = [t for t in data.held if t.service not in out][:seen_sample]
        folds.append(
            {
                "held_out_services": sorted(out),
                "unseen": evaluate(scorer, unseen),
                "seen": evaluate(scorer, seen),
            }
        )
    summary: dict[str, Any] = {"k": k, "folds": folds}
    for group in ("unseen", "seen"):
        turns = sum(f[group]["turns"] for f in folds)
        summary[group] = {"turns": turns} | {
            key: round(sum(f[group][key] * f[group]["turns"] for f in folds) / max(turns, 1), 4)
            for key in ("intent_accuracy", "requested_slots_f1")
        }
    return summary


def run_train_nlu(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    split = open_split(args.path, "train")
    schemas = split.schemas()
    config: dict[str, Any] = {"bits": BITS, "seed": args.seed, **SETTINGS}
    config |= {"split": "train", "limit": args.limit, "cv": args.cv or None}
    featuriser = Featuriser(schemas, BITS, float(config["context_noise"]))
    data = featurise(
        split,
        featuriser,
        seed=args.seed,
        hold=bool(args.cv),
        limit=args.limit,
        workers=args.workers,
    )
    summary: dict[str, Any] = {}
    if args.cv:
        summary["cv"] = cross_validate(data, schemas, args.cv, config, args.seed)
    # The shipped model learns from every turn, the ones held aside for the folds included.
    if data.held:
        rng = random.Random(f"{args.seed}:held")
        for turn in data.held:
            featuriser.add(data, turn, rng)
    model = fit(data, config, args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    config["rows"] = {"intent": len(data.intent), "slots": len(data.slots)}
    config["seconds"] = round(time.perf_counter() - started, 1)
    model = NLUModel(model.intent, model.slots, config)
    with atomic_open(out / "nlu.npz", "wb") as model_file:
        model.save(model_file)  # type: ignore[arg-type]  # numpy writes to a file object too
    atomic_write(out / "nlu.json", json.dumps(config | summary, indent=2) + "\n")
    print(json.dumps({"model": str(out / "nlu.npz"), **summary, "seconds": config["seconds"]}))
    return 0
