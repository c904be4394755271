"""Training examples from SGD dialogues (raw JSON): each user turn in its gold context, and
its featurised rows for the intent and requested-slot scorers."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from tod_runtime.dialogue.models import DONTCARE
from tod_runtime.nlu.learned.features import (
    Described,
    describe_slots,
    hashed,
    intent_features,
    intent_role,
    slot_features,
)
from tod_runtime.nlu.learned.model import SCORERS, Rows
from tod_runtime.nlu.learned.scorer import Candidate, Intent, TurnView, intent_candidates, view
from tod_runtime.nlu.learned.values import (
    SlotView,
    ValueTurn,
    assign_strings,
    candidate_spans,
    mention,
    normalised,
    shape,
    slot_strings,
    slot_views,
    span_strings,
    value_numbers,
    value_strings,
    value_turn,
)
from tod_runtime.schema.models import ServiceSchema

OTHERS_PER_TURN = 6  # sampled "other" intents per turn (weighted up to stand for all of them)
KEEP_PLAIN = 0.3  # share of frames without a question cue or request kept for the slot scorer
KEEP_SPAN = 0.1  # share of the spans that are no value kept for the span scorer
KEEP_PICK = 0.1  # share of unhinted, unmentioned (slot, value) pairs kept for the pick scorer
LOWER_CASE = 0.5  # share of user frames also learned from in lower case, as people type in chat
UNSEEN = 0.3  # share of user frames learned from as if the backend did not know their values
JOINED = 0.25  # share of user turns also learned from said together with the user's next answer
VALUE_REWORDINGS = 2  # rewordings each dialogue's values are also learned in (of train's 5)
ORIGINAL_WORDING = 0.5  # with reworded schemas: share of dialogues learned from as SGD wrote them


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


@dataclass(frozen=True)
class GoldValues:
    """A user frame's values: the turn as the value scorers see it, the token spans of its
    non-categorical values with their slots, and its categorical (or dontcare) values."""

    turn: ValueTurn
    service: str
    spans: dict[tuple[int, int], str]
    picked: dict[str, str]

    def pairs(self) -> set[tuple[str, str]]:
        """Its (slot, normalised value) pairs, the way reads are compared with them."""
        pairs = {(slot, normalised(self.turn.said(i, j))) for (i, j), slot in self.spans.items()}
        return pairs | {(slot, normalised(value)) for slot, value in self.picked.items()}


Known = Mapping[str, Mapping[str, frozenset[str]]]  # service -> normalised value -> slots


def gold_values(
    dialogue: Mapping[str, Any], schemas: Mapping[str, ServiceSchema], known: Known
) -> Iterator[GoldValues]:
    system: dict[str, list[tuple[str, str, list[str]]]] = {}
    for turn in dialogue["turns"]:
        if turn["speaker"] == "SYSTEM":
            system = {
                f["service"]: [
                    (a["act"], a.get("slot", ""), a.get("values", [])) for a in f["actions"]
                ]
                for f in turn["frames"]
            }
            continue
        text = turn["utterance"]
        for frame in turn["frames"]:
            service = frame["service"]
            schema = schemas.get(service)
            if schema is None:
                continue
            vt = value_turn(text, system.get(service, []), known.get(service, {}))
            starts = {t.start: n for n, t in enumerate(vt.tokens)}
            ends = {t.end: n + 1 for n, t in enumerate(vt.tokens)}
            spans = {
                (starts[g["start"]], ends[g["exclusive_end"]]): g["slot"]
                for g in frame.get("slots", ())
                if g["start"] in starts and g["exclusive_end"] in ends
            }
            picked: dict[str, str] = {}
            for a in frame["actions"]:
                spec = schema.slot(a.get("slot", ""))
                if a["act"] != "INFORM" or spec is None or not a.get("values"):
                    continue
                if a["values"][0] == DONTCARE:
                    picked[spec.name] = DONTCARE
                elif spec.is_categorical:
                    said = (a.get("canonical_values") or a["values"])[0].lower()
                    match = [v for v in spec.possible_values if v.lower() == said]
                    if match:
                        picked[spec.name] = match[0]
            yield GoldValues(vt, service, spans, picked)


def joined_turns(dialogue: Mapping[str, Any], rng: random.Random) -> Iterator[dict[str, Any]]:
    """Two user turns said as one, each a dialogue of its own (the system turn before the
    first, then the joined turn), for the value scorers: SGD's users give a task's values
    over several turns, each answering the system's question, while people in a chat often
    type them at once ("book it for 5 people at 6:30 pm"). A turn is joined, at ``JOINED``,
    with the next user turn when both speak to the same single frame and the next one only
    informs slots the first did not (an answer, not a correction or a reply to an offer)."""
    turns = dialogue["turns"]
    for k in range(len(turns) - 2):
        first, second = turns[k], turns[k + 2]
        if first["speaker"] != "USER" or len(first["frames"]) != 1 or len(second["frames"]) != 1:
            continue
        if rng.random() >= JOINED:
            continue
        one, two = first["frames"][0], second["frames"][0]
        informed = {a.get("slot") for a in one["actions"] if a["act"] == "INFORM"}
        answers = two["actions"]
        if (
            one["service"] != two["service"]
            or not answers
            or any(a["act"] != "INFORM" or a.get("slot") in informed for a in answers)
        ):
            continue
        shift = len(first["utterance"]) + 1
        spans = [
            {**g, "start": g["start"] + shift, "exclusive_end": g["exclusive_end"] + shift}
            for g in two.get("slots", ())
        ]
        frame = {
            "service": one["service"],
            "slots": [*one.get("slots", ()), *spans],
            "actions": [*one["actions"], *answers],
        }
        text = f"{first['utterance']} {second['utterance']}"
        before = [turns[k - 1]] if k and turns[k - 1]["speaker"] == "SYSTEM" else []
        yield {"turns": [*before, {"speaker": "USER", "utterance": text, "frames": [frame]}]}


def unseen(gold: GoldValues) -> GoldValues:
    """The same frame with its spans' values unknown to the backend: a city or a name the
    data never held must be read from its context alone."""
    said = frozenset(normalised(gold.turn.said(i, j)) for i, j in gold.spans)
    return replace(gold, turn=replace(gold.turn, known=_Without(gold.turn.known, said)))


class _Without(Mapping[str, frozenset[str]]):
    """``known`` without the keys ``hidden``, without copying it (it holds a backend's
    every value)."""

    def __init__(self, known: Mapping[str, frozenset[str]], hidden: frozenset[str]) -> None:
        self.known, self.hidden = known, hidden

    def __getitem__(self, key: str) -> frozenset[str]:
        if key in self.hidden:
            raise KeyError(key)
        return self.known[key]

    def __iter__(self) -> Iterator[str]:
        return (k for k in self.known if k not in self.hidden)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def lower_cased(gold: GoldValues) -> GoldValues:
    """The same frame typed in lower case (the offsets of its spans do not move)."""
    turn = gold.turn
    tokens = tuple(replace(t, text=t.lower, shape=shape(t.lower)) for t in turn.tokens)
    return replace(gold, turn=replace(turn, text=turn.text.lower(), tokens=tokens))


@dataclass
class Featurised:
    """Rows for every scorer (by name, see ``SCORERS``) and the turns kept aside for scoring."""

    rows: dict[str, Rows] = field(default_factory=lambda: {name: Rows() for name in SCORERS})
    held: list[GoldTurn] = field(default_factory=list)
    held_values: list[GoldValues] = field(default_factory=list)

    def extend(self, other: Featurised) -> None:
        for name, rows in other.rows.items():
            self.rows[name].extend(rows)
        self.held.extend(other.held)
        self.held_values.extend(other.held_values)


@dataclass(frozen=True)
class _Wording:
    """The services' elements as the features see them, in one wording of their schemas."""

    intents: list[Candidate]
    slots: dict[str, dict[str, Described]]
    views: dict[str, list[SlotView]]

    @classmethod
    def of(cls, schemas: Mapping[str, ServiceSchema]) -> _Wording:
        return cls(
            intent_candidates(schemas),
            {name: describe_slots(s) for name, s in schemas.items()},
            {name: slot_views(s) for name, s in schemas.items()},
        )


class Featuriser:
    """Rows from gold turns. With ``noise`` > 0, that share of the turns made in a frame with an
    active intent also gives a second set of intent rows in which the frame's intent is NONE
    and the target unchanged: the context a missed intent leaves behind, so the scorer learns
    to recover from it. (Putting another intent of the service there instead taught it that
    "yes" to an offer means the search intent, even when the offer served a booking.)

    ``reworded``: the same schemas (same names) with other descriptions, such as SGD-X's
    crowd-written variants, so the description words the scorers cross with the user's words
    are not only SGD's own. The intent and request scorers learn a dialogue in one wording
    (``wording()``: the original at ``ORIGINAL_WORDING``, else one of these); the value
    scorers learn it in the original and in ``VALUE_REWORDINGS`` of these
    (``value_wordings()``)."""

    def __init__(
        self,
        schemas: Mapping[str, ServiceSchema],
        bits: int,
        noise: float = 0.0,
        known: Known | None = None,
        reworded: Sequence[Mapping[str, ServiceSchema]] = (),
    ) -> None:
        self.schemas = schemas
        self.bits = bits
        self.noise = noise
        self.known: Known = known or {}
        self.service_ids = {name: n for n, name in enumerate(sorted(schemas))}
        self.wordings = [_Wording.of(schemas), *(_Wording.of(w) for w in reworded)]

    def wording(self, rng: random.Random) -> int:
        if len(self.wordings) == 1 or rng.random() < ORIGINAL_WORDING:
            return 0
        return rng.randrange(1, len(self.wordings))

    def value_wordings(self, rng: random.Random) -> tuple[int, ...]:
        """The wordings a dialogue's values are learned in: the original, and
        ``VALUE_REWORDINGS`` distinct rewordings when there are any (learning every value in
        more wordings lifted joint goal on train's held-out files both as SGD wrote the
        schemas and as SGD-X rewords them: docs/learned.md, ninth and tenth stops)."""
        if len(self.wordings) == 1:
            return (0,)
        others = rng.sample(
            range(1, len(self.wordings)), min(VALUE_REWORDINGS, len(self.wordings) - 1)
        )
        return (0, *others)

    def add(self, out: Featurised, turn: GoldTurn, rng: random.Random, wording: int = 0) -> None:
        sid = self.service_ids.get(turn.service, -1)
        words = self.wordings[wording]
        self._add_intent(out, turn, turn.view, sid, rng, words)
        service, intent = turn.view.current
        if self.noise and service and intent != "NONE" and rng.random() < self.noise:
            active = turn.view.active - {(service, intent)}
            misled = replace(turn.view, current=(service, "NONE"), active=active)
            self._add_intent(out, turn, misled, sid, rng, words)
        self._add_slots(out, turn, sid, rng, words)

    def _add_intent(
        self,
        out: Featurised,
        turn: GoldTurn,
        view: TurnView,
        sid: int,
        rng: random.Random,
        words: _Wording,
    ) -> None:
        u, acts = view.utterance, view.sys_acts
        picked, others = [], []
        for candidate, described in words.intents:
            role = intent_role(candidate, view.current, view.offered, view.active)
            if candidate == turn.target or role != "other":
                picked.append((candidate, described, role, 1.0))
            else:
                others.append((candidate, described, role))
        k = min(OTHERS_PER_TURN, len(others))
        picked += [(*o, len(others) / k) for o in rng.sample(others, k)] if k else []
        for candidate, described, role, weight in picked:
            out.rows["intent"].add(
                intent_features(u, acts, described, role, self.bits),
                candidate == turn.target,
                weight,
                sid,
                self.service_ids.get(candidate[0], -1) if candidate else -1,
            )

    def _add_slots(
        self, out: Featurised, turn: GoldTurn, sid: int, rng: random.Random, words: _Wording
    ) -> None:
        u, acts = turn.view.utterance, turn.view.sys_acts
        if not (u.cues or turn.requested):
            if rng.random() >= KEEP_PLAIN:
                return
            weight = 1 / KEEP_PLAIN
        else:
            weight = 1.0
        for slot, described in words.slots.get(turn.service, {}).items():
            features = slot_features(u, acts, turn.slot_acts.get(slot, ()), described, self.bits)
            out.rows["slots"].add(features, slot in turn.requested, weight, sid)

    def add_values(
        self, out: Featurised, gold: GoldValues, rng: random.Random, wording: int = 0
    ) -> None:
        views = self.wordings[wording].views[gold.service]
        if rng.random() < UNSEEN:
            gold = unseen(gold)
        self._add_values(out, gold, rng, views)
        if rng.random() < LOWER_CASE:
            self._add_values(out, lower_cased(gold), rng, views)

    def _add_values(
        self, out: Featurised, gold: GoldValues, rng: random.Random, views: list[SlotView]
    ) -> None:
        sid = self.service_ids.get(gold.service, -1)
        turn = gold.turn
        open_slots = [v for v in views if not v.categorical]
        if open_slots:
            types = [v.value_type for v in open_slots if v.name in turn.asked]
            negatives = []
            for i, j in candidate_spans(turn.tokens):
                is_value = (i, j) in gold.spans
                if not is_value:
                    negatives.append((i, j))
                    if rng.random() >= KEEP_SPAN:
                        continue
                weight = 1.0 if is_value else 1 / KEEP_SPAN
                strings = span_strings(turn, i, j, types)
                out.rows["spans"].add(hashed(strings, self.bits), is_value, weight, sid)
            counts = Counter(v.value_type for v in open_slots)
            loose = [n for n in negatives if not any(n[0] < e and s < n[1] for s, e in gold.spans)]
            shown = [(span, gold.spans[span]) for span in gold.spans]
            shown += [(span, "") for span in rng.sample(loose, min(1, len(loose)))]
            for (i, j), slot in shown:
                for view in open_slots:
                    strings = assign_strings(turn, i, j, view, counts[view.value_type])
                    out.rows["assign"].add(hashed(strings, self.bits), view.name == slot, 1.0, sid)
        numbers, lowered = value_numbers(turn), normalised(turn.text)
        for view in views:
            shared = slot_strings(turn, view)
            hinted = view.name in turn.asked or view.name in turn.slot_acts
            for value in [*view.values, DONTCARE] if view.categorical else [DONTCARE]:
                right = gold.picked.get(view.name) == value
                strings = value_strings(turn, view, value, numbers, lowered)
                weight = 1.0
                said = value == DONTCARE or mention(value, turn, numbers, lowered)[0] != "none"
                if not (right or hinted or said):
                    if rng.random() >= KEEP_PICK:
                        continue
                    weight = 1 / KEEP_PICK
                out.rows["pick"].add(hashed(shared + strings, self.bits), right, weight, sid)
