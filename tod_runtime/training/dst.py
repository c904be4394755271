"""``tod train dst``: the carry-over model from SGD train.

Every user turn of train is tracked from the gold state before it with the user's gold acts
and no carry-over; each frame that opens or changes intent then gives one row per candidate
(``dst.carry.candidates``), labelled by the gold state: positive when the target's gold values
include the candidate's value. Identical rows are merged with their counts, and one full-batch
logistic regression is fitted (deterministic): the main and the fallback models learn from
SGD's wording only. When the dataset has SGD-X's schemas of train (and without
``--sgd-only``), the reworded model (``CarryModel.reworded``), fitted beside them, learns
every dialogue twice: in SGD's wording and in one of the five rewordings (the same names,
other descriptions; ``learning.rewording_of``), so the description words it crosses are not
only SGD's own; it scores the frames of the services the main model does not know in SGD's
wording (a new service, or one reworded). ``--cv K`` first scores K folds
over train's services: each fold's services are left out of training (as source or target)
and the frames of those services are scored by gold-acts joint goal accuracy, the tracker's
own state carried forward as in ``tod replay --nlu gold``; ``--errors FILE`` writes those
frames' errors per service and slot (the report of ``tod replay --errors``), to analyse on
train, never on dev; ``--sgdx`` also scores the held-out frames under each SGD-X rewording of
their schemas (the report's ``cv.sgdx``: per variant, the mean and the drop from SGD's
wording).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tod_runtime.data.sgd import SGDSplit, open_split
from tod_runtime.data.sgdx import VARIANTS
from tod_runtime.dialogue.context import DialogueState
from tod_runtime.dialogue.history import History
from tod_runtime.dialogue.models import Dialogue
from tod_runtime.dst.carry import candidates
from tod_runtime.dst.learned.features import BITS, description_key, slot_view
from tod_runtime.dst.learned.model import CarryModel
from tod_runtime.dst.rules import track
from tod_runtime.errors import DataError
from tod_runtime.files import atomic_open, atomic_write
from tod_runtime.metrics.state import frame_state_metrics
from tod_runtime.metrics.state_errors import StateError, error_report, frame_errors
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.training.common import (
    collect_rows,
    fit,
    reworded_variants,
    rewording_of,
    service_folds,
    split_pool,
    worker_split,
    worker_wordings,
)

SETTINGS: dict[str, Any] = {"bits": BITS, "l2": 10.0, "iterations": 300, "rate": 0.5}
THRESHOLD = 0.4
HELD_FILES = 10  # the dialogue-held-out check (benchmarks/dst_holdout.py)

Key = tuple[str, str, tuple[int, ...]]  # source service, target service, features
Counts = dict[Key, list[int]]  # -> [positive, negative]


def add_train_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="SGD_DIR", help="SGD dataset folder or zip (train split)")
    parser.add_argument("--out", metavar="DIR", required=True, help="write DIR/carry.npz")
    parser.add_argument("--seed", type=int, default=0, help="seed of the --cv folds")
    parser.add_argument("--cv", type=int, default=0, metavar="K", help="K folds over services")
    parser.add_argument(
        "--errors",
        metavar="FILE",
        help="with --cv: write the held-out frames' state errors per service and slot to FILE",
    )
    parser.add_argument(
        "--sgdx", action="store_true", help="with --cv: also score every SGD-X rewording"
    )
    parser.add_argument(
        "--sgd-only",
        action="store_true",
        help="do not learn the reworded model from SGD-X's rewordings of train, even when the"
        " dataset has them (docs/learned.md)",
    )
    parser.add_argument("--split", default="train", help=argparse.SUPPRESS)
    parser.add_argument("--workers", type=int, default=2, help="processes")


# ---------------------------------------------------------------- rows


def _same(values: Iterable[str], gold: Iterable[str]) -> bool:
    return bool({v.strip().lower() for v in values} & {g.strip().lower() for g in gold})


def dialogue_rows(
    dialogue: Dialogue,
    schemas: Mapping[str, ServiceSchema],
    out: Counts,
    reworded: Sequence[Mapping[str, ServiceSchema]] = (),
) -> None:
    """Add the carry-over rows of one dialogue to ``out``: in SGD's wording (``schemas``) for
    the main and the fallback models and, with ``reworded`` (SGD-X's rewordings of them, the
    same names), for the reworded model, in SGD's wording and in one of those
    (``learning.rewording_of``)."""
    _rows(dialogue, schemas, out, main=True, reworded=bool(reworded))
    if reworded:
        wording = reworded[rewording_of(dialogue.dialogue_id, len(reworded))]
        _rows(dialogue, wording, out, main=False, reworded=True)


def reworded_rows(dialogue: Dialogue, schemas: Mapping[str, ServiceSchema], out: Counts) -> None:
    """``dialogue_rows`` with the split's SGD-X rewordings, in a ``split_pool`` worker."""
    dialogue_rows(dialogue, schemas, out, worker_wordings()[1:])


def _rows(
    dialogue: Dialogue,
    schemas: Mapping[str, ServiceSchema],
    out: Counts,
    *,
    main: bool,
    reworded: bool,
) -> None:
    """The rows of the main and the fallback models (``main``), of the reworded model
    (``reworded``), or of all three, the dialogue read in ``schemas``' wording."""
    history = History()
    gold: DialogueState = {}
    for turn in dialogue.turns:
        if turn.speaker == "USER":
            acts = {f.service: list(f.actions) for f in turn.frames}
            after = track(gold, acts, history, schemas, carry=False)
            for frame in turn.frames:
                service = frame.service
                opens = service not in gold
                if frame.state is None or service not in schemas:
                    continue
                if not opens and gold[service].active_intent == after[service].active_intent:
                    continue
                found = candidates(
                    after[service],
                    service,
                    after,
                    schemas,
                    history,
                    opening=opens,
                )
                for c in found:
                    positive = _same(c.values, frame.state.slot_values.get(c.target, []))
                    keys = [c.features, c.fallback] if main else []
                    for features in [*keys, c.reworded] if reworded else keys:
                        out.setdefault((c.source, service, features), [0, 0])[not positive] += 1
            for frame in turn.frames:
                if frame.state is not None:
                    gold[frame.service] = frame.state
        history.append(turn)


def holdout_files(split: SGDSplit, n: int = HELD_FILES) -> list[str]:
    """The dialogue files of the dialogue-held-out check: ``n`` files spread evenly over the
    split's multi-domain files (single-domain dialogues carry nothing over)."""
    files = split.dialogue_files()
    multi = [f for f in files if any(len(d["services"]) > 1 for d in split.read_raw(f))]
    return multi[:: max(len(multi) // n, 1)][:n]


def known_slots(
    wordings: Iterable[Mapping[str, ServiceSchema]], held_out: frozenset[str] = frozenset()
) -> list[int]:
    """The ``description_key`` of every slot of the services trained on, in every wording
    given (sorted)."""
    return sorted(
        {
            description_key(slot_view(schema, spec.name))
            for schemas in wordings
            for name, schema in schemas.items()
            if name not in held_out
            for spec in schema.slots
        }
    )


def fit_rows(
    counts: Counts,
    held_out: frozenset[str] = frozenset(),
    schemas: Mapping[str, ServiceSchema] | None = None,
    reworded: Iterable[Mapping[str, ServiceSchema]] = (),
) -> CarryModel:
    """The model fitted to ``counts`` without the rows of ``held_out``'s services; it knows
    the slots of ``schemas``' other services (``CarryModel.knows``) and, with ``reworded``
    (the rows hold the reworded model's), also as ``reworded`` words them."""
    rows = [
        (features, float(pos), float(neg))
        for (source, target, features), (pos, neg) in counts.items()
        if source not in held_out and target not in held_out
    ]
    reworded = list(reworded)
    settings = {k: SETTINGS[k] for k in ("l2", "iterations", "rate")}
    # the main model's weights, the fallback model's, then the reworded model's: models
    # fitted side by side (each row holds features of one of them only)
    blocks = 3 if reworded else 2
    bits = SETTINGS["bits"]
    weights = fit(rows, bits=bits, blocks=blocks, **settings)
    known = known_slots([schemas], held_out) if schemas is not None else []
    config = {**SETTINGS, "threshold": THRESHOLD, "known_slots": known, "fallback": True}
    if reworded:
        others = set(known_slots(reworded, held_out)) - set(known)
        config |= {"reworded": True, "reworded_slots": sorted(others)}
    return CarryModel(weights, config)


# ---------------------------------------------------------------- scoring


def gold_acts_scores(
    dialogue: Dialogue,
    schemas: Mapping[str, ServiceSchema],
    model: CarryModel | bool,
    services: frozenset[str] | None = None,
    errors: list[StateError] | None = None,
) -> list[float]:
    """Joint goal accuracy of every gold user frame (of ``services``, default all) when the
    tracker runs on the gold acts with its own state carried forward; the frames' errors are
    added to ``errors`` when given."""
    history = History()
    state: DialogueState = {}
    scores = []
    for index, turn in enumerate(dialogue.turns):
        if turn.speaker == "USER":
            acts = {f.service: list(f.actions) for f in turn.frames}
            state = track(state, acts, history, schemas, carry=model)
            for frame in turn.frames:
                if frame.state is None or (services is not None and frame.service not in services):
                    continue
                schema, pred = schemas[frame.service], state.get(frame.service)
                metrics = frame_state_metrics(frame.state, pred, schema)
                scores.append(metrics["joint_goal_accuracy"])
                if errors is not None:
                    where = (dialogue.dialogue_id, index, turn.utterance)
                    errors += frame_errors(frame.state, pred, schema, where)
        history.append(turn)
    return scores


# ---------------------------------------------------------------- workers


@dataclass
class HeldOutErrors:
    """The state errors of the held-out frames, and how many frames each service had."""

    errors: list[StateError] = field(default_factory=list)
    frames: dict[str, int] = field(default_factory=dict)

    def add(self, other: HeldOutErrors) -> None:
        self.errors += other.errors
        for service, n in other.frames.items():
            self.frames[service] = self.frames.get(service, 0) + n

    def report(self) -> str:
        return error_report(self.errors, self.frames)


Scored = tuple[float, int, HeldOutErrors | None]  # sum of joint goal, frames, errors


def _score_of(job: tuple[str, CarryModel, frozenset[str], bool, int]) -> Scored:
    file, model, services, keep_errors, wording = job
    split = worker_split()
    schemas = worker_wordings()[wording] if wording else split.schemas()
    total, count = 0.0, 0
    errors = HeldOutErrors() if keep_errors else None
    for dialogue in split.read_file(file):
        if not services & set(dialogue.services):
            continue
        found = errors.errors if errors is not None else None
        scores = gold_acts_scores(dialogue, schemas, model, services, found)
        total, count = total + sum(scores), count + len(scores)
        if errors is not None:
            for turn in dialogue.turns:
                for frame in turn.frames:
                    if turn.speaker == "USER" and frame.service in services:
                        errors.frames[frame.service] = errors.frames.get(frame.service, 0) + 1
    return total, count, errors


def score(
    split: SGDSplit,
    pool: Any,
    model: CarryModel,
    services: frozenset[str],
    errors: HeldOutErrors | None = None,
    wording: int = 0,
) -> tuple[float, int]:
    """Gold-acts joint goal summed over the frames of ``services``, and their number (their
    errors added to ``errors`` when given); ``wording``: 0 for SGD's schemas, i for the i-th
    SGD-X rewording of them (``learning.worker_wordings``)."""
    jobs = [(f, model, services, errors is not None, wording) for f in split.dialogue_files()]
    total, count = 0.0, 0
    for t, c, found in pool.imap(_score_of, jobs):
        total, count = total + t, count + c
        if errors is not None and found is not None:
            errors.add(found)
    return total, count


def run_train_dst(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    split = open_split(args.path, args.split)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    variants = reworded_variants(split) if args.sgdx or not args.sgd_only else []
    where = f"the dataset archive's sgd_x/data/v1..v5/{args.split}/schema.json"
    if args.sgdx and not variants:
        raise DataError(
            f"--sgdx needs SGD-X's variant schemas of the {args.split} split",
            file=str(args.path),
            hint=where,
        )
    if not variants and not args.sgd_only:
        print(
            f"tod: no SGD-X schemas of the {args.split} split in {args.path} ({where}): the"
            " model learns SGD's wording only, without the reworded model",
            file=sys.stderr,
        )
    reworded = [] if args.sgd_only else variants
    report: dict[str, Any] = {
        "settings": SETTINGS,
        "threshold": THRESHOLD,
        "seed": args.seed,
        "reworded_variants": len(reworded),
    }
    rows = reworded_rows if reworded else dialogue_rows
    with split_pool(split, args.workers) as pool:
        counts = collect_rows(pool, split.dialogue_files(), rows, "carry rows")
        report["rows"] = len(counts)
        report["rows_seen"] = sum(p + n for p, n in counts.values())
        if args.cv:
            errors = HeldOutErrors() if args.errors else None
            scored = len(variants) if args.sgdx else 0
            report["cv"] = cross_validate(
                split, pool, counts, args.cv, args.seed, errors, reworded, scored
            )
            if errors is not None:
                atomic_write(args.errors, errors.report())
    model = fit_rows(counts, schemas=split.schemas(), reworded=reworded)
    with atomic_open(out / "carry.npz", "wb") as model_file:  # a full disk leaves the old one
        model.save(model_file)  # type: ignore[arg-type]  # numpy writes to a file object too
    report["seconds"] = round(time.perf_counter() - start, 1)
    atomic_write(out / "carry.json", json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))
    return 0


def cross_validate(
    split: SGDSplit,
    pool: Any,
    counts: Counts,
    k: int,
    seed: int,
    errors: HeldOutErrors | None = None,
    reworded: Iterable[Mapping[str, ServiceSchema]] = (),
    variants: int = 0,
) -> dict[str, Any]:
    """Gold-acts joint goal of each fold's held-out services under a model fitted without
    them (their errors added to ``errors`` when given); with ``variants``, also under the
    first ``variants`` SGD-X rewordings of their schemas (``sgdx``)."""
    services = list(split.schemas())
    reworded = list(reworded)
    total = count = 0.0
    per_fold = []
    per_variant = [0.0] * variants
    for held in service_folds(services, k, seed):
        model = fit_rows(counts, held, split.schemas(), reworded)
        t, c = score(split, pool, model, held, errors)
        per_fold.append(
            {"services": sorted(held), "frames": c, "joint_goal_accuracy": round(t / max(c, 1), 4)}
        )
        total, count = total + t, count + c
        for v in range(variants):
            per_variant[v] += score(split, pool, model, held, wording=v + 1)[0]
    out: dict[str, Any] = {
        "folds": per_fold,
        "frames": int(count),
        "joint_goal_accuracy": round(total / max(count, 1), 4),
    }
    if variants:
        jga = {VARIANTS[v]: t / max(count, 1) for v, t in enumerate(per_variant)}
        mean = sum(jga.values()) / variants
        out["sgdx"] = {
            **{name: round(x, 4) for name, x in jga.items()},
            "joint_goal_accuracy_mean": round(mean, 4),
            "joint_goal_accuracy_drop": round(total / max(count, 1) - mean, 4),
        }
    return out
