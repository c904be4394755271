"""Training examples from SGD dialogues (raw JSON): each user turn in its gold context, and
its featurised rows for the intent and requested-slot scorers."""

from __future__ import annotations

import random
from array import array
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from tod_runtime.nlu.learned.features import (
    describe_slots,
    intent_features,
    intent_role,
    slot_features,
)
from tod_runtime.nlu.learned.model import Rows
from tod_runtime.nlu.learned.scorer import Intent, TurnView, intent_candidates, view
from tod_runtime.schema.models import ServiceSchema

OTHERS_PER_TURN = 6  # sampled "other" intents per turn (weighted up to stand for all of them)
KEEP_PLAIN = 0.3  # share of frames without a question cue or request kept for the slot scorer


@dataclass(frozen=True)
class GoldTurn:
    view: TurnView
    service: str  # the frame the turn is about
    target: Intent | None  # the active intent it leads to (None: NONE)
    requested: frozenset[str]
    slot_acts: dict[str, list[str]]


def gold_turns(dialogue: Mapping[str, Any]) -> Iterator[GoldTurn]:
    state: dict[str, str] = {}
    sys_frame: Mapping[str, Any] | None = None
    for turn in dialogue["turns"]:
        if turn["speaker"] == "SYSTEM":
            sys_frame = turn["frames"][0] if turn["frames"] else None
            continue
        if not turn["frames"]:
            continue
        sys_service = sys_frame["service"] if sys_frame else None
        sys_acts = (
            [(a["act"], a.get("slot", ""), a.get("values", [])) for a in sys_frame["actions"]]
            if sys_frame
            else []
        )
        v = view(turn["utterance"], sys_service, sys_acts, state)
        frames = turn["frames"]
        changed = [
            f for f in frames if state.get(f["service"], "NONE") != f["state"]["active_intent"]
        ]
        current = [f for f in frames if f["service"] == v.current[0]]
        frame = (changed or current or frames)[-1 if changed else 0]
        intent = frame["state"]["active_intent"]
        slot_acts: dict[str, list[str]] = {}
        if sys_frame and sys_service == frame["service"]:
            for a, slot, _ in sys_acts:
                if slot:
                    slot_acts.setdefault(slot, []).append(a)
        yield GoldTurn(
            v,
            frame["service"],
            None if intent == "NONE" else (frame["service"], intent),
            frozenset(frame["state"].get("requested_slots", [])),
            slot_acts,
        )
        for f in frames:
            state[f["service"]] = f["state"]["active_intent"]


@dataclass
class Featurised:
    """Rows for both scorers, with the services each row belongs to (for folds over
    services): the turn's frame service, and for intent rows the candidate's (-1: NONE)."""

    intent: Rows = field(default_factory=Rows)
    intent_turn: array[int] = field(default_factory=lambda: array("h"))
    intent_candidate: array[int] = field(default_factory=lambda: array("h"))
    slots: Rows = field(default_factory=Rows)
    slots_turn: array[int] = field(default_factory=lambda: array("h"))
    held: list[GoldTurn] = field(default_factory=list)  # turns kept aside for evaluation

    def extend(self, other: Featurised) -> None:
        self.intent.extend(other.intent)
        self.intent_turn.extend(other.intent_turn)
        self.intent_candidate.extend(other.intent_candidate)
        self.slots.extend(other.slots)
        self.slots_turn.extend(other.slots_turn)
        self.held.extend(other.held)


class Featuriser:
    """Rows from gold turns. With ``noise`` > 0, that share of the turns made in a frame with an
    active intent also gives a second set of intent rows in which the frame's intent is NONE
    and the target unchanged: the context a missed intent leaves behind, so the scorer learns
    to recover from it. (Putting another intent of the service there instead taught it that
    "yes" to an offer means the search intent, even when the offer served a booking.)"""

    def __init__(self, schemas: Mapping[str, ServiceSchema], bits: int, noise: float = 0.0) -> None:
        self.bits = bits
        self.noise = noise
        self.service_ids = {name: n for n, name in enumerate(sorted(schemas))}
        self.intents = intent_candidates(schemas)
        self.slots = {name: describe_slots(s) for name, s in schemas.items()}

    def add(self, out: Featurised, turn: GoldTurn, rng: random.Random) -> None:
        sid = self.service_ids.get(turn.service, -1)
        self._add_intent(out, turn, turn.view, sid, rng)
        service, intent = turn.view.current
        if self.noise and service and intent != "NONE" and rng.random() < self.noise:
            active = turn.view.active - {(service, intent)}
            misled = replace(turn.view, current=(service, "NONE"), active=active)
            self._add_intent(out, turn, misled, sid, rng)
        self._add_slots(out, turn, sid, rng)

    def _add_intent(
        self, out: Featurised, turn: GoldTurn, view: TurnView, sid: int, rng: random.Random
    ) -> None:
        u, acts = view.utterance, view.sys_acts
        picked, others = [], []
        for candidate, described in self.intents:
            role = intent_role(candidate, view.current, view.offered, view.active)
            if candidate == turn.target or role != "other":
                picked.append((candidate, described, role, 1.0))
            else:
                others.append((candidate, described, role))
        k = min(OTHERS_PER_TURN, len(others))
        picked += [(*o, len(others) / k) for o in rng.sample(others, k)] if k else []
        for candidate, described, role, weight in picked:
            out.intent.add(
                intent_features(u, acts, described, role, self.bits),
                candidate == turn.target,
                weight,
            )
            out.intent_turn.append(sid)
            out.intent_candidate.append(self.service_ids.get(candidate[0], -1) if candidate else -1)

    def _add_slots(self, out: Featurised, turn: GoldTurn, sid: int, rng: random.Random) -> None:
        u, acts = turn.view.utterance, turn.view.sys_acts
        if not (u.cues or turn.requested):
            if rng.random() >= KEEP_PLAIN:
                return
            weight = 1 / KEEP_PLAIN
        else:
            weight = 1.0
        for slot, described in self.slots.get(turn.service, {}).items():
            features = slot_features(u, acts, turn.slot_acts.get(slot, ()), described, self.bits)
            out.slots.add(features, slot in turn.requested, weight)
            out.slots_turn.append(sid)
