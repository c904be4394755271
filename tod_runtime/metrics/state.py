"""DSTC8 dialogue-state metrics, computed per frame exactly as the official evaluate.py does.

The replay engine averages each metric over frames: every frame of every gold USER turn
(a frame whose metric is undefined, like average goal accuracy with no gold slot, is left
out of that metric's average, as DSTC8 drops NaN).

Per schema slot of the frame's service: both set -> categorical slots score
``gold[0] == pred[0]``; non-categorical slots the best fuzzy token-sort ratio of ``pred[0]``
against the gold variants (fuzzywuzzy's ``token_sort_ratio`` / 100 exactly as the official
script computes it: tod_runtime/metrics/fuzzy.py); set in one only -> 0; set in neither -> 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tod_runtime.dialogue.models import State
from tod_runtime.metrics.fuzzy import fuzzy_match
from tod_runtime.schema.models import ServiceSchema

__all__ = [
    "STATE_METRICS",
    "fuzzy_match",
    "frame_state_metrics",
    "requested_slots_f1",
    "seen_services",
    "slot_scores",
]

STATE_METRICS = (
    "joint_goal_accuracy",
    "average_goal_accuracy",
    "active_intent_accuracy",
    "requested_slots_f1",
)


def slot_scores(
    gold: Mapping[str, list[str]], pred: Mapping[str, list[str]], schema: ServiceSchema
) -> list[tuple[float, bool]]:
    """(score, set in gold) for every slot of the service's schema."""
    scores = []
    for slot in schema.slots:
        in_gold = slot.name in gold
        in_pred = slot.name in pred and bool(pred[slot.name])
        if in_gold and in_pred:
            if slot.is_categorical:
                score = float(gold[slot.name][0] == pred[slot.name][0])
            else:
                score = fuzzy_match(gold[slot.name], pred[slot.name][0])
        else:
            score = float(not in_gold and not in_pred)
        scores.append((score, in_gold))
    return scores


def requested_slots_f1(gold: Iterable[str], pred: Iterable[str]) -> float:
    g, p = set(gold), set(pred)
    if not g and not p:
        return 1.0
    hits = len(g & p)
    if not hits:
        return 0.0
    precision, recall = hits / len(p), hits / len(g)
    return 2 * precision * recall / (precision + recall)


def frame_state_metrics(gold: State, pred: State | None, schema: ServiceSchema) -> dict[str, float]:
    """The DSTC8 metrics of one frame (``pred`` None: the prediction has no such frame)."""
    pred = pred or State()
    scores = slot_scores(gold.slot_values, pred.slot_values, schema)
    joint = 1.0
    for score, _ in scores:
        joint *= score
    metrics = {
        "joint_goal_accuracy": joint,
        "active_intent_accuracy": float(gold.active_intent == pred.active_intent),
        "requested_slots_f1": requested_slots_f1(gold.requested_slots, pred.requested_slots),
    }
    active = [score for score, in_gold in scores if in_gold]
    if active:
        metrics["average_goal_accuracy"] = sum(active) / len(active)
    return metrics


def seen_services(train_schemas: Iterable[str], eval_schemas: Iterable[str]) -> set[str]:
    """Services of the evaluated split that also appear in train (DSTC8's "seen")."""
    return set(train_schemas) & set(eval_schemas)
