"""``tod replay --errors FILE``: where the predicted state goes wrong, per service and slot,
in words a user can act on.

Every gold user frame is compared slot by slot with the prediction, as the DSTC8 metrics
score it: a **miss** (the gold state has a value, the prediction none), a **wrong value** (both
have one, and it scores below 1), a **false fill** (the prediction has a value the gold state
does not). Active-intent and requested-slot errors are counted per service too. Each kind
keeps a few example turns (dialogue, turn, what the user said, expected, got).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from pydantic import BaseModel

from tod_runtime.dialogue.models import State
from tod_runtime.metrics.state import slot_scores
from tod_runtime.schema.models import ServiceSchema

KINDS = ("miss", "wrong value", "false fill")
EXAMPLES = 3


class StateError(BaseModel):
    """One slot (or ``intent``, ``requested``) of one frame that the prediction got wrong."""

    service: str
    slot: str
    kind: str
    dialogue_id: str
    turn: int
    utterance: str
    expected: list[str]
    got: list[str]


def frame_errors(
    gold: State, pred: State | None, schema: ServiceSchema, where: tuple[str, int, str]
) -> list[StateError]:
    """The errors of one frame; ``where`` is (dialogue id, turn index, utterance)."""
    pred = pred or State()
    dialogue_id, turn, utterance = where
    service = schema.service_name

    def error(slot: str, kind: str, expected: list[str], got: list[str]) -> StateError:
        return StateError(
            service=service,
            slot=slot,
            kind=kind,
            dialogue_id=dialogue_id,
            turn=turn,
            utterance=utterance,
            expected=expected,
            got=got,
        )

    out = []
    if gold.active_intent != pred.active_intent:
        out.append(error("intent", "wrong value", [gold.active_intent], [pred.active_intent]))
    if set(gold.requested_slots) != set(pred.requested_slots):
        expected, got = sorted(gold.requested_slots), sorted(pred.requested_slots)
        out.append(error("requested", "wrong value", expected, got))
    scores = slot_scores(gold.slot_values, pred.slot_values, schema)
    for spec, (score, in_gold) in zip(schema.slots, scores, strict=True):
        if score >= 1.0:
            continue
        g = gold.slot_values.get(spec.name, [])
        p = pred.slot_values.get(spec.name, [])
        kind = "miss" if in_gold and not p else "false fill" if not in_gold else "wrong value"
        out.append(error(spec.name, kind, g, p))
    return out


def _show(values: list[str]) -> str:
    return " | ".join(values) if values else "(none)"


def error_report(errors: Iterable[StateError], frames: dict[str, int]) -> str:
    """A plain-text report: services by number of errors, their slots, examples."""
    by_service: dict[str, dict[str, dict[str, list[StateError]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list))
    )
    for err in errors:
        by_service[err.service][err.slot][err.kind].append(err)

    def total(slots: dict[str, dict[str, list[StateError]]]) -> int:
        return sum(len(v) for kinds in slots.values() for v in kinds.values())

    lines = [
        "State errors by service and slot (DSTC8 scoring: a wrong value scores below 1).",
        "Kinds: miss = expected a value, got none; wrong value; false fill = got a value, "
        "expected none.",
        "",
    ]
    for service, slots in sorted(by_service.items(), key=lambda kv: -total(kv[1])):
        lines.append(f"== {service}: {total(slots)} errors in {frames.get(service, 0)} frames")
        ranked = sorted(slots.items(), key=lambda kv: -sum(len(v) for v in kv[1].values()))
        for slot, kinds in ranked:
            counts = ", ".join(f"{len(kinds[k])} {k}" for k in KINDS if kinds.get(k))
            lines.append(f"  {slot}: {counts}")
            for kind in KINDS:
                for err in kinds.get(kind, [])[:EXAMPLES]:
                    lines.append(
                        f"    [{kind}] {err.dialogue_id} turn {err.turn}: {err.utterance!r} "
                        f"expected {_show(err.expected)}, got {_show(err.got)}"
                    )
        lines.append("")
    if not by_service:
        lines.append("No state errors.")
    return "\n".join(lines) + "\n"
