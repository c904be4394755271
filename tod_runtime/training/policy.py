"""``tod train policy``: the learned policy by imitation of SGD train's system turns.

Every system turn is seen as replay sees it (teacher-forced): the recorded history before the
user turn, the gold state after it and the user's gold acts. A turn with a recorded service
call gives one first-pass row (``CALL`` positive) and a second-pass situation (the recorded
call and results) whose candidates are labelled by the recorded acts; a turn without a call
gives a first-pass situation labelled the same way, ``CALL`` negative. Identical rows are
merged with their counts and one full-batch logistic regression is fitted (deterministic).
``--cv K`` first scores K folds over train's services: each fold's services are left out of
training and their system turns are scored as replay scores them (act F1, call accuracy).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tod_runtime.backends.sgd_tables import SGD_REFERENCE_DATE
from tod_runtime.data.sgd import SGDSplit, open_split
from tod_runtime.dialogue.context import DialogueState, PolicyInput, SystemPlan, TurnContext
from tod_runtime.dialogue.history import History
from tod_runtime.dialogue.models import Action, Dialogue, Turn
from tod_runtime.files import atomic_open, atomic_write
from tod_runtime.metrics.acts import act_f1, service_call_match
from tod_runtime.policy.history import addressed_service
from tod_runtime.policy.learned.features import (
    BITS,
    CALL,
    GLOBAL_ACTS,
    Situation,
    candidates,
    hashed,
    strings,
    views,
)
from tod_runtime.policy.learned.model import Decisions, PolicyModel
from tod_runtime.policy.learned.policy import decide
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.training.common import collect_rows, fit, service_folds, split_pool, worker_split

SETTINGS: dict[str, Any] = {"bits": BITS, "l2": 1.0, "iterations": 150, "rate": 0.5}
# each service's rows weighed by (mean rows per service / its rows) ** BALANCE (0: as seen);
# 0.5 raised held-out services' act F1 in policy_gap's quick setting but not in its larger one
# (docs/policy.md), so the shipped model is fitted with 0
BALANCE = 0.0
THRESHOLDS = {CALL: 0.5, "acts": 0.5}
# The decision settings saved with the model (``model.Decisions``; why each value, in
# docs/CHANGELOG-experiments.md): offer_floor, confirm_call and offer_repeat chosen on train's
# held-out-services folds (scripts/policy_gap.py); confirm_complete because SGD's systems
# confirm a transaction once its required slots are filled (train: 25 of 15,148 confirming
# turns otherwise, none asking in the same turn); request_floor chosen on train files the
# shipped model did not see; expected_f1 (the set of acts with the highest expected F1, not
# each act over 0.5) chosen on train's held-out-services folds.
DECISIONS = Decisions(
    offer_floor=0.5,
    confirm_call=True,
    offer_repeat=True,
    confirm_complete=True,
    request_floor=0.3,
    expected_f1=True,
)

Counts = dict[tuple[str, tuple[int, ...]], list[int]]  # (service, features) -> [pos, neg]
# (service, the act types a system turn says together) -> [turns, 0]
ActSets = dict[tuple[str, tuple[str, ...]], list[int]]


def add_train_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="SGD_DIR", help="SGD dataset folder or zip (train split)")
    parser.add_argument("--out", metavar="DIR", required=True, help="write DIR/policy.npz")
    parser.add_argument("--seed", type=int, default=0, help="seed of the --cv folds")
    parser.add_argument("--cv", type=int, default=0, metavar="K", help="K folds over services")
    parser.add_argument("--split", default="train", help=argparse.SUPPRESS)
    parser.add_argument("--workers", type=int, default=2, help="processes")
    parser.add_argument(
        "--limit", type=int, default=0, metavar="N", help="use N dialogue files spread over train"
    )
    parser.add_argument("--force", action="store_true", help="replace a model in --out")


# ---------------------------------------------------------------- decision points


@dataclass
class Point:
    """A recorded system turn as the policy meets it in replay."""

    first: PolicyInput
    gold: Turn
    service: str


def points(dialogue: Dialogue, schemas: Mapping[str, ServiceSchema]) -> Iterator[Point]:
    """Every system turn of ``dialogue`` with the policy's first-pass input, as replay builds
    it: history before the user turn, gold state after it, the user's gold acts."""
    recorded = History()
    state: DialogueState = {}
    pending: Turn | None = None
    for turn in dialogue.turns:
        if turn.speaker == "USER":
            if pending is not None:
                recorded.append(pending)
            for frame in turn.frames:
                if frame.state is not None:
                    state[frame.service] = frame.state
            pending = turn
            continue
        if pending is not None and turn.frames:
            acts = {f.service: list(f.actions) for f in pending.frames if f.actions}
            context = TurnContext(schemas, recorded, dict(state))
            active = next(reversed(list(acts)), None) if acts else None
            service = addressed_service(acts, active, state)
            if service is not None and service in schemas:
                yield Point(PolicyInput(context, acts, service), turn, service)
        if pending is not None:
            recorded.append(pending)
            pending = None
        recorded.append(turn)


def labels(turn: Turn) -> set[tuple[str, str]]:
    frame = turn.frames[0]
    return {(a.act, "" if a.act in GLOBAL_ACTS else a.slot) for a in frame.actions}


def situation_rows(situation: Situation, gold: set[tuple[str, str]], out: Counts) -> None:
    v = views(situation)
    for candidate in candidates(v):
        if candidate[0] == CALL:
            continue
        key = (situation.service, hashed(strings(v, candidate)))
        out.setdefault(key, [0, 0])[candidate not in gold] += 1


def dialogue_rows(dialogue: Dialogue, schemas: Mapping[str, ServiceSchema], out: Counts) -> None:
    for point in points(dialogue, schemas):
        frame = point.gold.frames[0]
        if frame.service != point.service:
            continue
        schema = schemas[point.service]
        first = Situation.of(point.first, point.service, schema)
        v = views(first)
        called = frame.service_call is not None
        key = (point.service, hashed(strings(v, (CALL, ""))))
        out.setdefault(key, [0, 0])[not called] += 1
        gold = labels(point.gold)
        if not called:
            situation_rows(first, gold, out)
            continue
        second = PolicyInput(
            point.first.context,
            point.first.user_acts,
            point.service,
            frame.service_call,
            list(frame.service_results or []),
        )
        situation_rows(Situation.of(second, point.service, schema), gold, out)


def act_set_rows(dialogue: Dialogue, schemas: Mapping[str, ServiceSchema], out: ActSets) -> None:
    """The act types each recorded system turn says together: SGD train's systems say 13 sets
    (an offer with the count, a failure with an offer or "anything else?", never a success
    beside a failure nor a request beside an offer)."""
    for point in points(dialogue, schemas):
        kinds = tuple(sorted({a.act for a in point.gold.frames[0].actions}))
        out.setdefault((point.service, kinds), [0, 0])[0] += 1


def service_weights(counts: Counts, held_out: frozenset[str], power: float) -> dict[str, float]:
    """Each training service's row weight: (mean rows per service / its rows) ** ``power``
    (1 for every service when ``power`` is 0)."""
    seen: dict[str, int] = {}
    for (service, _), (pos, neg) in counts.items():
        if service not in held_out:
            seen[service] = seen.get(service, 0) + pos + neg
    mean = sum(seen.values()) / max(len(seen), 1)
    return {service: (mean / n) ** power for service, n in seen.items()}


def fit_rows(
    counts: Counts,
    held_out: frozenset[str] = frozenset(),
    balance: float = BALANCE,
    l2: float | None = None,
    act_sets: ActSets | None = None,
) -> PolicyModel:
    weight = service_weights(counts, held_out, balance)
    rows = [
        (features, pos * weight[service], neg * weight[service])
        for (service, features), (pos, neg) in counts.items()
        if service not in held_out
    ]
    settings = {k: SETTINGS[k] for k in ("bits", "l2", "iterations", "rate")}
    if l2 is not None:
        settings["l2"] = l2
    weights = fit(rows, **settings)
    config = {
        **SETTINGS,
        **settings,
        "balance": balance,
        "thresholds": THRESHOLDS,
        **DECISIONS.model_dump(),
    }
    if act_sets is not None:  # the sets the training services' systems say
        kinds = {k for (service, k) in act_sets if service not in held_out}
        config["act_sets"] = [list(k) for k in sorted(kinds)]
    return PolicyModel(weights, config)


# ---------------------------------------------------------------- scoring


def teacher_forced(
    point: Point, schema: ServiceSchema, model: PolicyModel
) -> tuple[SystemPlan, list[Action]]:
    """The policy's first plan for a recorded system turn and the acts it ends with: after a
    call, a second pass with the recorded results (or none), as replay gives them."""
    plan = decide(point.first, point.service, schema, model, SGD_REFERENCE_DATE)
    if plan.service_call is None:
        return plan, plan.actions
    results = list(point.gold.frames[0].service_results or [])
    second = PolicyInput(
        point.first.context, point.first.user_acts, plan.service, plan.service_call, results
    )
    return plan, decide(second, point.service, schema, model, SGD_REFERENCE_DATE).actions


def dialogue_scores(
    dialogue: Dialogue,
    schemas: Mapping[str, ServiceSchema],
    model: PolicyModel,
    services: frozenset[str] | None = None,
) -> tuple[list[float], list[float]]:
    """(act F1 of every system turn, call match of every turn that calls) of ``services``,
    teacher-forced as replay scores them; a call that matches the recording gets its
    results, any other the recorded results (or none)."""
    f1s: list[float] = []
    calls: list[float] = []
    for point in points(dialogue, schemas):
        frame = point.gold.frames[0]
        if services is not None and frame.service not in services:
            continue
        plan, actions = teacher_forced(point, schemas[point.service], model)
        gold = [a for f in point.gold.frames for a in f.actions]
        f1s.append(act_f1(gold, actions))
        match = service_call_match(frame.service_call, plan.service_call)
        if match is not None:
            calls.append(match)
    return f1s, calls


# ---------------------------------------------------------------- workers

Totals = tuple[float, int, float, int]


def _score_of(job: tuple[str, PolicyModel, frozenset[str]]) -> Totals:
    file, model, services = job
    split = worker_split()
    schemas = split.schemas()
    f1 = calls = 0.0
    nf = nc = 0
    for dialogue in split.read_file(file):
        if not services & set(dialogue.services):
            continue
        f, c = dialogue_scores(dialogue, schemas, model, services)
        f1, nf, calls, nc = f1 + sum(f), nf + len(f), calls + sum(c), nc + len(c)
    return f1, nf, calls, nc


def spread(files: list[str], limit: int) -> list[str]:
    """``limit`` of ``files`` spread evenly over them (all when ``limit`` is 0): SGD's files
    are grouped by service, so the first N would see few services."""
    if not limit or limit >= len(files):
        return files
    return [files[i * len(files) // limit] for i in range(limit)]


def score(files: list[str], pool: Any, model: PolicyModel, services: frozenset[str]) -> Totals:
    jobs = [(f, model, services) for f in files]
    f1 = calls = 0.0
    nf = nc = 0
    for a, b, c, d in pool.imap(_score_of, jobs):
        f1, nf, calls, nc = f1 + a, nf + b, calls + c, nc + d
    return f1, nf, calls, nc


def cross_validate(
    split: SGDSplit,
    pool: Any,
    counts: Counts,
    sets: ActSets,
    k: int,
    seed: int,
    files: list[str],
) -> dict[str, Any]:
    per_fold = []
    f1 = calls = 0.0
    nf = nc = 0
    for held in service_folds(split.schemas(), k, seed):
        model = fit_rows(counts, held, act_sets=sets)
        a, b, c, d = score(files, pool, model, held)
        per_fold.append(
            {
                "services": sorted(held),
                "system_turns": b,
                "system_act_f1": round(a / max(b, 1), 4),
                "service_call_accuracy": round(c / max(d, 1), 4),
            }
        )
        f1, nf, calls, nc = f1 + a, nf + b, calls + c, nc + d
    return {
        "folds": per_fold,
        "system_turns": nf,
        "system_act_f1": round(f1 / max(nf, 1), 4),
        "service_call_accuracy": round(calls / max(nc, 1), 4),
    }


def run_train_policy(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    split = open_split(args.path, args.split)
    out = Path(args.out)
    report: dict[str, Any] = {
        "settings": SETTINGS,
        "thresholds": THRESHOLDS,
        **DECISIONS.model_dump(),
        "balance": BALANCE,
        "seed": args.seed,
    }
    with split_pool(split, args.workers) as pool:
        files = spread(split.dialogue_files(), args.limit)
        report["files"] = len(files)
        counts = collect_rows(pool, files, dialogue_rows, "policy rows")
        sets: ActSets = collect_rows(pool, files, act_set_rows, "act sets")
        report["rows"] = len(counts)
        report["rows_seen"] = sum(p + n for p, n in counts.values())
        if args.cv:
            report["cv"] = cross_validate(split, pool, counts, sets, args.cv, args.seed, files)
    model = fit_rows(counts, act_sets=sets)
    with atomic_open(out / "policy.npz", "wb") as model_file:
        model.save(model_file)  # type: ignore[arg-type]  # numpy writes to a file object too
    report["seconds"] = round(time.perf_counter() - start, 1)
    atomic_write(out / "policy.json", json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))
    return 0
