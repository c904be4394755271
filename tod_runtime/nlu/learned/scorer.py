"""What a turn looks like to the learned scorers, and the scorers themselves: rank every
intent of every service (plus NONE), and the probability that each slot is requested."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from tod_runtime.nlu.learned.features import (
    NONE_INTENT,
    Described,
    Utterance,
    describe_intent,
    describe_slots,
    intent_context_groups,
    intent_pair_features,
    intent_role,
    schema_marks,
    slot_features,
)
from tod_runtime.nlu.learned.model import NLUModel, Weights, probabilities
from tod_runtime.nlu.learned.text import compound_parts
from tod_runtime.schema.models import ServiceSchema

Intent = tuple[str, str]  # (service, intent name)
MAX_REMEMBERED = 20_000  # words whose compound parts a scorer keeps


@dataclass(frozen=True)
class TurnView:
    """A user turn in context: the utterance, the previous system frame's acts, the frame
    the dialogue is in (``current``: its service and active intent) and the other frames'
    active intents."""

    utterance: Utterance
    sys_acts: tuple[str, ...] = ()
    offered: frozenset[Intent] = frozenset()
    current: tuple[str | None, str] = (None, "NONE")
    active: frozenset[Intent] = frozenset()


def view(
    text: str,
    sys_service: str | None,
    sys_acts: Sequence[tuple[str, str, Sequence[str]]],
    state: Mapping[str, str],
) -> TurnView:
    """``sys_acts``: (act, slot, values) of the previous system frame; ``state``: each
    frame's active intent, oldest frame first."""
    service = sys_service if sys_service else next(reversed(list(state)), None)
    offered = frozenset(
        (sys_service or "", v) for a, _, values in sys_acts if a == "OFFER_INTENT" for v in values
    )
    return TurnView(
        Utterance.of(text),
        tuple(sorted({a for a, _, _ in sys_acts})),
        offered,
        (service, state.get(service, "NONE") if service else "NONE"),
        frozenset((s, i) for s, i in state.items() if i != "NONE"),
    )


class ContextWeights:
    """``intent_context_strings`` weighed where they are built, each string's weight
    remembered by its parts (the feature's kind and context, and the word): a turn's words
    and marks meet the same few roles, flags and system steps again and again, turn after
    turn, so most weights are read from a dict rather than formatted, encoded and hashed.
    ``score`` adds them in the strings' order from 0.0, as ``scores`` sums the row of their
    hashed ids (float32 weights added in float64): the same bits."""

    LIMIT = 50_000  # weights remembered in all (a server's users say any words)

    def __init__(self, weights: Weights) -> None:
        self.weights = weights
        self._by_context: dict[tuple[str, str], dict[str, float]] = {}
        self._count = 0

    def score(
        self, u: Utterance, sys_acts: Sequence[str], role: str, tx: bool, marks: Sequence[str]
    ) -> float:
        """The sum of the weights of ``intent_context_strings(u, sys_acts, role, tx, marks)``."""
        z = 0.0
        for prefix, items, suffix in intent_context_groups(u, sys_acts, role, tx, marks):
            z = self._add(z, prefix, items, suffix)
        return z

    def _add(self, z: float, kind: str, items: Sequence[str], context: str) -> float:
        """``z`` plus the weight of ``f"{kind}{item}{context}"`` for each item, in order."""
        known = self._by_context.get((kind, context))
        if known is None:
            known = self._by_context[kind, context] = {}
        for item in items:
            weight = known.get(item)
            if weight is None:
                if self._count >= self.LIMIT:
                    self._forget()
                    known = self._by_context[kind, context] = {}
                weight = known[item] = self.weights.of(f"{kind}{item}{context}")
                self._count += 1
            z += weight
        return z

    def _forget(self) -> None:
        self._by_context.clear()
        self._count = 0


Candidate = tuple[Intent | None, Described]  # None: the NONE intent


def intent_candidates(schemas: Mapping[str, ServiceSchema]) -> list[Candidate]:
    """Every intent of every service, described by its words, and NONE (None) first."""
    candidates: list[Candidate] = [(None, NONE_INTENT)]
    candidates += [
        ((s.service_name, i.name), describe_intent(i, s))
        for s in schemas.values()
        for i in s.intents
    ]
    return candidates


class Scorer:
    """``counts``: how often SGD's users say each word; given, the intent ranking also sees
    the description words a compound is made of ("haircut": "hair", ``compound_parts``)."""

    def __init__(
        self,
        model: NLUModel,
        schemas: Mapping[str, ServiceSchema],
        counts: Mapping[str, int] | None = None,
    ) -> None:
        self.model = model
        self.intents = intent_candidates(schemas)
        self.slots = {name: describe_slots(s) for name, s in schemas.items()}
        self.counts = counts
        self.described = frozenset(
            w for _, d in self.intents for w in (*d.head, *d.description, *d.service, *d.slots)
        )
        self._parts: dict[str, frozenset[str]] = {}  # a word's compound parts, once each
        self._weights = Weights(model.intent, model.bits)
        self._context = ContextWeights(self._weights)

    def _compounded(self, u: Utterance) -> Utterance:
        if self.counts is None:
            return u
        added: set[str] = set()
        for w in u.content:
            if w not in self._parts:
                if len(self._parts) >= MAX_REMEMBERED:  # a server's users say any words
                    self._parts.clear()
                self._parts[w] = compound_parts(w, self.described, self.counts)
            added |= self._parts[w]
        added -= u.content
        return replace(u, content=u.content | added) if added else u

    def rank(
        self, turn: TurnView, among: Collection[str] | None = None
    ) -> list[tuple[float, Intent | None]]:
        """Every candidate with its score, best first (None is NONE); with ``among``, only
        the intents of those services (and NONE)."""
        # the turn's part of a pair's score, by role, flag and the candidate's marks, and
        # each pair's own part: each row's weights added in its features' order, as
        # ``grouped_scores`` sums them (the two parts are summed apart, then added)
        shared: dict[tuple[str, bool, tuple[str, ...]], float] = {}
        scored = []
        u, bits, values = self._compounded(turn.utterance), self.model.bits, self._weights.values
        for candidate, described in self.intents:
            if among is not None and candidate is not None and candidate[0] not in among:
                continue
            role = intent_role(candidate, turn.current, turn.offered, turn.active)
            marks = schema_marks(u, described)
            key = (role, described.flag, marks)
            context = shared.get(key)
            if context is None:
                context = shared[key] = self._context.score(
                    u, turn.sys_acts, role, described.flag, marks
                )
            pair = 0.0
            for k in intent_pair_features(u, described, role, bits):
                pair += values[k]
            scored.append((context + pair, candidate))
        scored.sort(key=lambda pair: -pair[0])
        return scored

    def intent(self, turn: TurnView, among: Collection[str] | None = None) -> Intent | None:
        return self.rank(turn, among)[0][1]

    def requested(
        self, turn: TurnView, service: str, slot_acts: Mapping[str, Sequence[str]]
    ) -> list[str]:
        """The slots of ``service`` the user asks about."""
        return self.asked(self.request_probabilities(turn, service, slot_acts))

    def asked(self, probabilities: Mapping[str, float]) -> list[str]:
        """The slots of ``request_probabilities`` at or over the model's threshold."""
        threshold = self.model.thresholds.slots
        return [slot for slot, p in probabilities.items() if p >= threshold]

    def request_probabilities(
        self, turn: TurnView, service: str, slot_acts: Mapping[str, Sequence[str]]
    ) -> dict[str, float]:
        """The probability that the user asks about each slot of ``service`` (``slot_acts``:
        the previous system frame's acts on each slot of this service)."""
        slots = self.slots.get(service, {})
        rows = [
            slot_features(
                turn.utterance, turn.sys_acts, slot_acts.get(slot, ()), described, self.model.bits
            )
            for slot, described in slots.items()
        ]
        return dict(zip(slots, probabilities(self.model.slots, rows), strict=True))
