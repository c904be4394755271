"""Where the learned policy loses on services it never saw: train-only cross-validation.

Rows come from one set of train's files; each fold over train's services is left out of the
fit, and the system turns of *other* files (disjoint from the rows' files) are scored, for the
held-out services and the in-training ones alike, so the two groups are compared on the same
unseen dialogues. Writes one record per scored turn (a pickle) and prints act F1 per group and
the micro F1 per act type and per slot role (how the active intent takes the slot).

    python scripts/policy_gap.py SGD_ZIP --rows 24 --score 12 --folds 5 --out /tmp/gap.pkl
    python scripts/policy_gap.py SGD_ZIP --summary --out /tmp/new.pkl --against /tmp/gap.pkl

``--score-besides N`` scores the turns a run with ``--rows N`` scores, so runs with other
numbers of rows are paired. ``--floors 0.5,0``, ``--request-floors 0,0.3``, ``--confirm 0,1``
and ``--f1 0,1`` score each fold's model with those offer and request floors and with
``confirm_call`` and ``expected_f1`` off and on (the model's weights do not depend on them).
"""

from __future__ import annotations

import argparse
import pickle
import random
import statistics
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from itertools import product
from typing import Any

from tod_runtime.data.sgd import open_split
from tod_runtime.metrics.acts import act_f1, act_items, items_f1, service_call_match
from tod_runtime.policy.learned.model import PolicyModel
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.training.common import collect_rows, service_folds, split_pool, worker_split
from tod_runtime.training.policy import (
    act_set_rows,
    dialogue_rows,
    fit_rows,
    points,
    spread,
    teacher_forced,
)


def _role(schema: ServiceSchema, intent: str, slot: str) -> str:
    spec = schema.intent(intent)
    if not slot or slot in ("count", "intent"):
        return "-"
    if spec is None:
        return "none"
    if slot in spec.required_slots:
        return "req"
    if slot in spec.optional_slots:
        return "opt"
    if slot in spec.result_slots:
        return "res"
    return "other"


def _score_file(job: tuple[str, PolicyModel, frozenset[str]]) -> list[dict[str, Any]]:
    file, model, held = job
    split = worker_split()
    schemas = split.schemas()
    out = []
    for dialogue in split.read_file(file):
        for point in points(dialogue, schemas):
            frame = point.gold.frames[0]
            schema = schemas[point.service]
            plan, actions = teacher_forced(point, schema, model)
            gold = [a for f in point.gold.frames for a in f.actions]
            before = point.first.context.history.last_system_acts(point.service)
            state = point.first.context.state.get(point.service)
            intent = state.active_intent if state is not None else "NONE"
            user = sorted({a.act for a in point.first.user_acts.get(point.service, [])})
            out.append(
                {
                    "service": frame.service,
                    "held": frame.service in held,
                    "f1": act_f1(gold, actions),
                    "call": service_call_match(frame.service_call, plan.service_call),
                    "gold": [(a.act, a.slot, _role(schema, intent, a.slot)) for a in gold],
                    "gold_items": act_items(gold),
                    "pred_items": act_items(actions),
                    "pred": [(a.act, a.slot, _role(schema, intent, a.slot)) for a in actions],
                    "user": "+".join(user),
                    "prev": "+".join(sorted({a.act for a in before})),
                    "called": frame.service_call is not None,
                }
            )
    return out


def summarise(records: list[dict[str, Any]]) -> None:
    groups: dict[str, list[float]] = defaultdict(list)
    calls: dict[str, list[float]] = defaultdict(list)
    for r in records:
        g = "held" if r["held"] else "in"
        groups[g].append(r["f1"])
        if r["call"] is not None:
            calls[g].append(r["call"])
    for g in ("in", "held"):
        f, c = groups[g], calls[g]
        print(
            f"{g:5} turns {len(f):6}  act F1 {sum(f) / max(len(f), 1):.4f}  "
            f"call {sum(c) / max(len(c), 1):.4f}"
        )
    # micro F1 per act type and per (act, role): items matched by (act, slot, value)
    stats: dict[tuple[str, str, str], Counter[str]] = defaultdict(Counter)
    for r in records:
        g = "held" if r["held"] else "in"
        roles = {(a, s): role for a, s, role in r["gold"] + r["pred"]}
        gi, pi = r["gold_items"], r["pred_items"]
        for item in set(gi) | set(pi):
            key = (g, item[0], roles.get((item[0], item[1]), "-"))
            hit = min(gi[item], pi[item])
            stats[key]["tp"] += hit
            stats[key]["fn"] += gi[item] - hit
            stats[key]["fp"] += pi[item] - hit
    keys = sorted({(k[1], k[2]) for k in stats})
    head = "".join(f"{g + ' F1':>10}{g + ' n':>8}" for g in ("in", "held"))
    print(f"{'act':16}{'role':6}{head}")
    for act, role in keys:
        cells = ""
        for g in ("in", "held"):
            s = stats[(g, act, role)]
            tp, fp, fn = s["tp"], s["fp"], s["fn"]
            f1 = 2 * tp / max(2 * tp + fp + fn, 1)
            cells += f"{f1:10.3f}{tp + fn:8}"
        print(f"{act:16}{role:6}{cells}")


def _by_service(
    records: list[dict[str, Any]], held: bool, value: Callable[[dict[str, Any]], float]
) -> dict[str, list[float]]:
    out: dict[str, list[float]] = defaultdict(list)
    for r in records:
        if r["held"] == held:
            out[r["service"]].append(value(r))
    return out


def _bootstrap(groups: dict[str, list[float]], draws: int = 2000) -> tuple[float, float]:
    """The 95% interval of the turn-weighted mean when the services are drawn again (the
    figure's spread from which services happen to be held out)."""
    rng, names, means = random.Random(0), sorted(groups), []
    for _ in range(draws):
        pick = [rng.choice(names) for _ in names]
        means.append(sum(sum(groups[s]) for s in pick) / sum(len(groups[s]) for s in pick))
    means.sort()
    return means[int(0.025 * draws)], means[int(0.975 * draws) - 1]


def service_spread(records: list[dict[str, Any]]) -> None:
    """Per service: act F1 held out (its fold) and in training (the other folds), on the same
    turns; the spread of the gap over services and its interval over redrawn services."""
    held = _by_service(records, True, lambda r: r["f1"])
    seen = _by_service(records, False, lambda r: r["f1"])
    both = sorted(s for s in held if s in seen)
    gaps = {s: sum(seen[s]) / len(seen[s]) - sum(held[s]) / len(held[s]) for s in both}
    paired = {s: [sum(seen[s]) / len(seen[s]) - f for f in held[s]] for s in both}
    low, high = _bootstrap(paired)
    print(
        f"per service ({len(both)}): gap median {statistics.median(gaps.values()):.3f}, "
        f"sd {statistics.pstdev(gaps.values()):.3f}; held-out F1 sd "
        f"{statistics.pstdev(sum(held[s]) / len(held[s]) for s in both):.3f}; "
        f"gap 95% over services [{low:.4f}, {high:.4f}]"
    )
    for s in sorted(both, key=lambda s: -gaps[s])[:6]:
        print(f"  {s:16} held {sum(held[s]) / len(held[s]):.3f}  gap {gaps[s]:+.3f}")


def _request_oracle(r: dict[str, Any]) -> float:
    """The turn's act F1 with the REQUESTs as recorded (REQUEST moves from fit to fit)."""
    gold = r["gold_items"]
    pred = Counter({k: v for k, v in r["pred_items"].items() if k[0] != "REQUEST"})
    pred.update({k: v for k, v in gold.items() if k[0] == "REQUEST"})
    return items_f1(gold, pred)


def compare(base: list[dict[str, Any]], records: list[dict[str, Any]]) -> None:
    """Paired differences, per group, of ``records`` against ``base`` (the same turns)."""
    if len(base) != len(records) or any(
        a["service"] != b["service"] or a["gold_items"] != b["gold_items"]
        for a, b in zip(base, records, strict=True)
    ):
        print("--against: not the same turns", file=sys.stderr)
        return
    for label, value in (("act F1", lambda r: r["f1"]), ("REQUEST as recorded", _request_oracle)):
        for held in (False, True):
            diff: dict[str, list[float]] = defaultdict(list)
            for a, b in zip(base, records, strict=True):
                if a["held"] == held:
                    diff[a["service"]].append(value(b) - value(a))
            n = sum(len(v) for v in diff.values())
            low, high = _bootstrap(diff)
            print(
                f"against base, {label}, {'held' if held else 'in'}: "
                f"{sum(sum(v) for v in diff.values()) / n:+.4f} [{low:+.4f}, {high:+.4f}]"
            )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("path")
    parser.add_argument("--rows", type=int, default=24)
    parser.add_argument("--score", type=int, default=12)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--only", type=int, default=-1, help="run one fold only")
    parser.add_argument(
        "--score-besides",
        type=int,
        default=0,
        metavar="N",
        help="score files that are not among --rows N's either (paired runs of other --rows)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--floors", default="0", help="offer_floor values to score")
    parser.add_argument("--confirm", default="0", help="confirm_call values to score (0,1)")
    parser.add_argument("--repeat", default="0", help="offer_repeat values to score (0,1)")
    parser.add_argument("--f1", default="0", help="expected_f1 values to score (0,1)")
    parser.add_argument("--request-floors", default="0.3", help="request_floor values to score")
    parser.add_argument("--act-sets", default="1", help="act_sets on or off to score (0,1)")
    parser.add_argument("--balance", default="0", help="balance powers to fit with (0: none)")
    parser.add_argument("--l2", default="", help="l2 strengths to fit with (default: train's)")
    parser.add_argument(
        "--offer-threshold", default="0.5", help="OFFER thresholds to score (0.5: the acts')"
    )
    parser.add_argument("--out", default="/tmp/gap.pkl")
    parser.add_argument("--summary", action="store_true", help="summarise --out only")
    parser.add_argument(
        "--against", metavar="PKL", help="compare with another run's --out (one setting each)"
    )
    args = parser.parse_args()
    if args.summary:
        with open(args.out, "rb") as f:
            records = pickle.load(f)
        report(records)
        if args.against:
            with open(args.against, "rb") as f:
                compare(pickle.load(f), records)
        return 0
    split = open_split(args.path, "train")
    files = split.dialogue_files()
    rows_files = spread(files, args.rows)
    # --score-besides N: the scored files are also none of the rows files of --rows N, so a
    # run with fewer rows scores the same turns as one with N
    taken = set(rows_files) | set(spread(files, args.score_besides) if args.score_besides else [])
    rest = [f for f in files if f not in taken]
    score_files = spread(rest, args.score)
    records: list[dict[str, Any]] = []
    with split_pool(split, args.workers) as pool:
        counts = collect_rows(pool, rows_files, dialogue_rows, "rows")
        sets = collect_rows(pool, rows_files, act_set_rows, "act sets")
        print(f"{len(counts)} rows", file=sys.stderr)
        for i, held in enumerate(service_folds(split.schemas(), args.folds, args.seed)):
            if args.only >= 0 and i != args.only:
                continue
            for balance, l2 in product(
                [float(x) for x in args.balance.split(",")],
                [float(x) for x in args.l2.split(",")] if args.l2 else [None],
            ):
                fitted = fit_rows(counts, held, balance, l2, sets)
                for floor, confirm, repeat, offer, f1, ask, sets_on in product(
                    [float(x) for x in args.floors.split(",")],
                    [bool(int(x)) for x in args.confirm.split(",")],
                    [bool(int(x)) for x in args.repeat.split(",")],
                    [float(x) for x in args.offer_threshold.split(",")],
                    [bool(int(x)) for x in args.f1.split(",")],
                    [float(x) for x in args.request_floors.split(",")],
                    [bool(int(x)) for x in args.act_sets.split(",")],
                ):
                    thresholds = {**fitted.config["thresholds"], "OFFER": offer}
                    config = {
                        **fitted.config,
                        "offer_floor": floor,
                        "confirm_call": confirm,
                        "offer_repeat": repeat,
                        "thresholds": thresholds,
                        "expected_f1": f1,
                        "request_floor": ask,
                        "act_sets": fitted.config["act_sets"] if sets_on else [],
                    }
                    model = PolicyModel(fitted.weights, config)
                    jobs = [(f, model, held) for f in score_files]
                    for part in pool.imap(_score_file, jobs):
                        for r in part:
                            r["fold"], r["floor"] = i, floor
                            r["confirm"], r["repeat"] = confirm, repeat
                            r["offer"], r["balance"] = offer, balance
                            r["expected_f1"], r["request_floor"] = f1, ask
                            r["act_sets"] = sets_on
                            r["l2"] = fitted.config["l2"]
                        records.extend(part)
            print(f"fold {i} done: {sorted(held)}", file=sys.stderr)
    with open(args.out, "wb") as f:
        pickle.dump(records, f)
    report(records)
    return 0


def report(records: list[dict[str, Any]]) -> None:
    def key(r: dict[str, Any]) -> tuple[float, bool, bool, float, float, float, bool, float, bool]:
        return (
            r.get("floor", 0.0),
            r.get("confirm", False),
            r.get("repeat", False),
            r.get("offer", 0.5),
            r.get("balance", 0.0),
            r.get("l2", 1.0),
            r.get("expected_f1", False),
            r.get("request_floor", 0.3),
            r.get("act_sets", False),
        )

    for k in sorted({key(r) for r in records}):
        print(
            f"== offer_floor {k[0]} confirm_call {k[1]} offer_repeat {k[2]} "
            f"offer_threshold {k[3]} balance {k[4]} l2 {k[5]} "
            f"expected_f1 {k[6]} request_floor {k[7]} act_sets {k[8]}"
        )
        summarise([r for r in records if key(r) == k])
        service_spread([r for r in records if key(r) == k])


if __name__ == "__main__":
    sys.exit(main())
