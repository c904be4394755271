"""System-side replay metrics.

* ``act_f1``: F1 between the multisets of (act, slot, value) items of the gold and predicted
  system acts of one turn. An act gives one item per canonical value (per value when it has
  no canonical values; one item with value "" when it has none); values compare
  case-insensitively. Both empty: 1.0. ``system_act_f1`` is its mean over system turns.
* ``service_call_match``: None when neither side calls a service (the turn does not count);
  otherwise 1.0 when method and parameters are equal (values compared case-insensitively
  after stripping), else 0.0. ``service_call_accuracy`` is its mean over counted turns.
* ``corpus_bleu``: sacrebleu's corpus BLEU (0-100) with one reference per hypothesis.
* ``slot_errors``: how a generated reply fails its acts' values: a value (not a boolean, an
  intent name or "dontcare") missing from the reply, as given or as said (``values.say``),
  case-insensitively, and each number in the reply that is no part of a value (invented).
  ``slot_error_rate`` is the sum of missing and invented over the sum of values.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

from tod_runtime.dialogue.models import DONTCARE, Action, ServiceCall
from tod_runtime.values.say import say_amount, say_date, say_time

_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
_NOT_SAID = frozenset({"OFFER_INTENT", "INFORM_INTENT"})


def act_items(actions: Sequence[Action]) -> Counter[tuple[str, str, str]]:
    items: Counter[tuple[str, str, str]] = Counter()
    for action in actions:
        values = action.canonical_values or action.values or [""]
        for value in values:
            items[(action.act, action.slot, value.strip().lower())] += 1
    return items


def act_f1(gold: Sequence[Action], pred: Sequence[Action]) -> float:
    return items_f1(act_items(gold), act_items(pred))


def items_f1(g: Counter[tuple[str, str, str]], p: Counter[tuple[str, str, str]]) -> float:
    """F1 of the predicted act items ``p`` against the gold ones ``g`` (1.0 when both are
    empty)."""
    if not g and not p:
        return 1.0
    hits = sum((g & p).values())
    if not hits:
        return 0.0
    precision, recall = hits / sum(p.values()), hits / sum(g.values())
    return 2 * precision * recall / (precision + recall)


def _normal(call: ServiceCall) -> tuple[str, dict[str, str]]:
    return call.method, {k: v.strip().lower() for k, v in call.parameters.items()}


def service_call_match(gold: ServiceCall | None, pred: ServiceCall | None) -> float | None:
    if gold is None and pred is None:
        return None
    if gold is None or pred is None:
        return 0.0
    return float(_normal(gold) == _normal(pred))


def corpus_bleu(hypotheses: Sequence[str], references: Sequence[str]) -> float:
    if not hypotheses:
        return 0.0
    import sacrebleu

    return float(sacrebleu.corpus_bleu(list(hypotheses), [list(references)]).score)


def _forms(value: str) -> list[str]:
    forms = {value, say_date(value), say_time(value), say_amount(value)}
    return sorted((f.strip().lower() for f in forms if f.strip()), key=len, reverse=True)


class SlotErrors(NamedTuple):
    """What ``slot_errors`` counted in one reply: the values missing from it, the numbers it
    says that are no part of a value (invented), and how many values its acts have."""

    missing: list[str]
    invented: list[str]
    values: int

    @property
    def errors(self) -> int:
        return len(self.missing) + len(self.invented)


def slot_error_details(actions: Sequence[Action], text: str) -> SlotErrors:
    """The missing and invented values of one reply for its acts (``slot_errors``)."""
    lowered = text.lower()
    missing: list[str] = []
    total = 0
    all_forms: list[str] = []
    for action in actions:
        if not action.slot or action.act in _NOT_SAID:
            continue
        for value in action.values or action.canonical_values:
            if value.strip().lower() in ("true", "false", DONTCARE, ""):
                continue
            total += 1
            forms = _forms(value)
            all_forms += forms
            if not any(f in lowered for f in forms):
                missing.append(value)
    for form in sorted(all_forms, key=len, reverse=True):
        lowered = lowered.replace(form, " ")
    return SlotErrors(missing, _NUMBER.findall(lowered), total)


def slot_errors(actions: Sequence[Action], text: str) -> tuple[int, int]:
    """(missing + invented values, values) of one reply for its acts."""
    found = slot_error_details(actions, text)
    return found.errors, found.values
