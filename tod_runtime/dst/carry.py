"""Values carried between frames when the user moves to another service.

SGD users often say "a hotel there", "a cab for the three of us" or "book it for that day":
the new frame starts from what the user settled in the frames before, or from what the system
told them there (the address of the restaurant they just booked). When a frame opens, or its
intent changes, every input slot it does not hold yet is a *target*; every value of another
frame's state and every value the system last told of a slot in another service is a
*source*. A learned model (``dst/learned``, trained on SGD train with ``tod train dst``)
scores each (source, target) pair from what the schemas say of both slots (description words,
value types, categorical or not, how the intents take them), whether a successful booking of
the source's service took or returned the value, and the moment (opening or a new intent,
transactional or not); each target the active intent takes gets its best source when that
scores over the model's threshold (0.3 at most for a required slot as the frame opens). A
place, date or time fills one slot of the frame: the target where it scores highest (none
when two score exactly the same: the model cannot tell them apart), and none when another
slot of the frame already holds it. No service, intent or slot name enters a decision.

A source slot of a service the model never saw has description words that carry no weight, and
the crosses of its known words were fitted beside them (a bus's destination from an unseen
event's city scored under its origin). When the frame's service is one the model was trained
on (every slot described as a slot of its training services) and the source slot is not, the
pair also gets the score of a fallback model fitted on the same rows without the source's own
words nor their crosses (``features.unknown_source``; its weights follow the main model's), and
takes the larger: what the model knows of the target, the words both share, the value types.
Every pair of a frame whose service the model was not trained on in SGD's wording (a new
service, or one SGD-X rewords: then no slot is known) is scored by the reworded model when the
model has one (``CarryModel.reworded``: the main model's features, fitted on SGD's wording and
on SGD-X's rewordings of train), so the main model and the fallback stay SGD's wording's.

Later turns of a frame show what the state holds through the system's acts there: when the
system searched, offered, asked to confirm or reported an outcome without asking for anything,
every required slot of the active intent was known; when it asked for some required slots,
the others most likely were. A required slot the frame still lacks then takes its best source
over a low threshold (``held_slots``); when the system called the service on that turn, only a
source whose value (or its canonical form) the call took for the slot (every 4th file of SGD
train: a required slot's gold value matched the last call's parameter 16,449 times, not 125).
Such a late carry is scored as the frame's opening is (it takes what the opening missed), and
the low threshold of the slots the system did not ask for is for slots the model never saw
described (a service it was not trained on): a slot described as one of its training services'
slots (``CarryModel.knows``) needs 0.1. A value the system just proposed for one slot ("would
you leave on March 2nd?") is not carried into another ("no, on the 1st" leaves the return
date empty).

A categorical target only takes one of its possible values, spelled as its schema spells it,
and a target only takes a value of a slot of its own value type (``schema.roles``: on SGD
train no value ever moved between a date, a time, a number, a bool and text; a count of
time, "Number of nights of the stay", is a type of its own: a party of 2 is no stay of 2
nights); the model still scores every pair, so it is trained on the rows it was trained on
before.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from tod_runtime.dialogue.context import DialogueState
from tod_runtime.dialogue.history import History
from tod_runtime.dialogue.models import DONTCARE, State
from tod_runtime.dst.learned.features import (
    BITS,
    Context,
    SlotView,
    features,
    hashed,
    slot_view,
    unknown_source,
)
from tod_runtime.dst.learned.model import CarryModel
from tod_runtime.learning import content_words
from tod_runtime.schema.models import IntentSchema, ServiceSchema
from tod_runtime.schema.roles import counts_time, names_entity

SOURCE_FRAMES = 3  # the newest other frames a value may come from
# System acts made only once the active intent's required slots are known.
WENT_AHEAD = frozenset({"OFFER", "INFORM_COUNT", "CONFIRM", "NOTIFY_SUCCESS", "NOTIFY_FAILURE"})
WENT_AHEAD_THRESHOLD = 0.0  # a required slot then takes its best source
NOT_ASKED_THRESHOLD = 0.05  # a required slot the system did not ask for with others
KNOWN_NOT_ASKED_THRESHOLD = 0.1  # the same, a slot described as the model's training slots
OPENING_REQUIRED_THRESHOLD = 0.3  # a required slot the user did not give as the frame opens
Held = tuple[list[str], float]  # slots the state holds, the probability a source needs

ADDING = re.compile(r"\b(?:add|put|save|note|write|mark) (?:that|it|this)\b")
# Words that point back at a value the dialogue holds, by the value type they point at: "a
# ride there", "a hotel that night", "for those same dates" (not "is there", "there are",
# "in the evening"). Plain English.
POINTERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "date",
        re.compile(
            r"\b(?:(?:that|those|these)(?: same)?|(?:the )?same) "
            r"(?:day|night|date|evening|morning|afternoon)s?\b"
        ),
    ),
    # "for those same dates": every date the task needs, not one
    ("dates", re.compile(r"\b(?:those|these|(?:the )?same) (?:same )?(?:dates|days|nights)\b")),
    ("time", re.compile(r"\b(?:that|the same) time\b")),
    # "add that to my calendar", "put it in my diary": what was just booked, its day, its
    # time and its name ("name": a slot naming an entity, into one naming one)
    *((kind, ADDING) for kind in ("date", "time", "name")),
    (
        "text",
        re.compile(
            r"(?<!\bis )(?<!\bare )(?<!\bwas )(?<!\bwere )\bthere\b"
            r"(?! is\b| are\b| was\b| were\b| any\b|s\b|'s\b)|\bthat place\b"
        ),
    ),
)


THE_WORD = re.compile(r"\bthe (\w+)")


def named_back(utterance: str) -> frozenset[str]:
    """The content words, stemmed, that follow "the" in ``utterance``: "a cab to the stadium"
    points back at a value with that word in it (a venue "Banc of California Stadium")."""
    text = utterance.lower().replace("’", "'")
    return frozenset(w for word in THE_WORD.findall(text) for w in content_words(word))


def pointed(utterance: str) -> frozenset[str]:
    """The value types the user's words point back at (``POINTERS``)."""
    text = utterance.lower().replace("’", "'")
    return frozenset(kind for kind, said in POINTERS if said.search(text))


@dataclass(frozen=True)
class Candidate:
    """One value ``target`` could take, and the hashed features of where it comes from
    (``source``, the service it comes from, only for training's held-out folds)."""

    source: str
    target: str
    values: list[str]
    features: tuple[int, ...]
    same_type: bool = True  # both slots hold the same type of value (bool, number, date...;
    # a count of time is a type of its own: ``_span``)
    fallback: tuple[int, ...] = ()  # the fallback model's features (``unknown_source``)
    source_view: SlotView | None = None
    reworded: tuple[int, ...] = ()  # the reworded model's features (``CarryModel.reworded``)
    naming: bool = False  # source and target both name an entity (``roles.names_entity``)


def candidates(
    frame: State,
    service: str,
    state: DialogueState,
    schemas: Mapping[str, ServiceSchema],
    history: History,
    *,
    opening: bool,
    bits: int = BITS,
    named: frozenset[str] = frozenset(),
) -> list[Candidate]:
    """Every (source, target) pair for ``frame`` of ``service`` (opening, or whose intent just
    changed), newest source frame first. ``named``: words the user said after "the"
    (``named_back``); a value of what the user booked with one of them in it is a source too,
    though the system never told it ("a cab to the stadium": the venue of the game)."""
    schema = schemas[service]
    others = [s for s in reversed(state) if s != service and s in schemas][:SOURCE_FRAMES]
    if not others:
        return []
    intent = schema.intent(frame.active_intent)
    transactional = intent is not None and intent.is_transactional
    targets = []
    for spec in schema.slots:
        view = slot_view(schema, spec.name)
        if view.usage == "out" or spec.name in frame.slot_values:
            continue
        takes = "no"
        if intent is not None and spec.name in intent.required_slots:
            takes = "req"
        elif intent is not None and spec.name in intent.optional_slots:
            takes = "opt"
        targets.append((spec.name, view, Context(opening, transactional, takes)))
    out = []
    for rank, other in enumerate(others):
        source_schema = schemas[other]
        booked = _booked(source_schema, history, other)
        for kind, slot, values in _sources(source_schema, state[other], history, other, named):
            source = slot_view(source_schema, slot)
            was_booked = any(v.lower() in booked for v in values)
            for target, view, context in targets:
                taken = list(values)
                if view.categorical:
                    spelled = view.possible_value(values[0])
                    if spelled is None:
                        continue
                    taken = [spelled]
                strings = features(source, view, kind, rank, context, was_booked)
                found = hashed(strings, bits)
                # the fallback model's weights follow the main model's 2**bits
                fallback = tuple(i + (1 << bits) for i in hashed(unknown_source(strings), bits))
                # and the reworded model's follow those (the main model's features)
                reworded = tuple(i + (2 << bits) for i in found)
                same = source.value_type == view.value_type and _span(source) == _span(view)
                naming = names_entity(source_schema.slot(slot)) and names_entity(
                    schema.slot(target)
                )
                out.append(
                    Candidate(other, target, taken, found, same, fallback, source, reworded, naming)
                )
    return out


def _booked(schema: ServiceSchema, history: History, service: str) -> set[str]:
    """The lower-cased values a successful call of a transactional intent of ``service`` took
    or returned (the newest call of each such intent: its parameters and first result).
    Results count: with the parameters only, CV 0.9634 -> 0.9615."""
    out: set[str] = set()
    for intent in schema.intents:
        if intent.is_transactional:
            found = history.last_success(service, intent.name)
            if found is not None:
                out |= {v.lower() for part in found for v in part.values()}
    return out


def _sources(
    schema: ServiceSchema,
    frame: State,
    history: History,
    service: str,
    named: frozenset[str] = frozenset(),
) -> list[tuple[str, str, list[str]]]:
    """(kind, slot, values): the frame's slot values, then what the system last told, then
    the values of what the user booked that have a word of ``named`` in them."""
    found = [
        ("state", slot, list(values))
        for slot, values in frame.slot_values.items()
        if values and values[0] != DONTCARE and schema.slot(slot) is not None
    ]
    for spec in schema.slots:
        told = history.last_told(service, lambda s, name=spec.name: s == name)  # type: ignore[misc]
        if told and told[0] != DONTCARE:
            found.append(("told", spec.name, told))
    if named:
        have = {slot for _, slot, _ in found}
        booked = (
            history.last_success(service, i.name) for i in schema.intents if i.is_transactional
        )
        for success in (b for b in booked if b is not None):
            for slot, value in success[1].items():
                if slot not in have and schema.slot(slot) and named & _value_words([value]):
                    found.append(("told", slot, [value]))
                    have.add(slot)
    return found


def carry_over(
    frame: State,
    service: str,
    state: DialogueState,
    schemas: Mapping[str, ServiceSchema],
    history: History,
    *,
    opening: bool,
    model: CarryModel,
    held: Held | None = None,
    pointing: frozenset[str] = frozenset(),
    named: frozenset[str] = frozenset(),
) -> None:
    """Fill the slots of ``frame`` that the model carries from other frames. ``held``: slots
    the system's acts show the state holds (``held_slots``), each filled from its best source
    over the threshold given, and nothing else. ``pointing``: the value types the user's
    words point back at (``pointed``: "a ride there"): of the active intent's required slots
    of such a type that nothing fills, the one whose best source scores highest takes it,
    whatever the score; each of them when the words point at several ("for those same
    dates": the check-in and the check-out). ``named``: words the user said after "the"
    (``named_back``): a text value with one of them in it is pointed at as "there" is ("a cab
    to the stadium" after tickets to a game: the venue, not the city)."""
    found = candidates(
        frame, service, state, schemas, history, opening=opening, bits=model.bits, named=named
    )
    c = _Carrying.of(frame, service, schemas, history, opening, model, held)
    best: dict[str, tuple[float, list[str]]] = {}
    pointed_at: list[Pointed] = []
    required = list(c.intent.required_slots) if c.intent is not None else []
    for candidate in found:
        if not c.eligible(candidate):
            continue
        p = c.probability(candidate)
        kind: str | None = candidate.source_view.value_type if candidate.source_view else None
        kind = "name" if candidate.naming else kind
        if candidate.target in required and (
            kind in pointing
            or (kind == "text" and bool(named) and bool(named & _value_words(candidate.values)))
        ):
            pointed_at.append((p, kind, candidate.source, candidate.target, candidate.values))
        threshold = c.threshold(candidate)
        if threshold is None:
            continue
        if p >= threshold and p > best.get(candidate.target, (-1.0, []))[0]:
            best[candidate.target] = (p, candidate.values)
    for target, p, values in _pointed(pointed_at, pointing, required, set(best)):
        best[target] = (p, values)
    c.fill(best)


def _value_words(values: list[str]) -> frozenset[str]:
    return frozenset(content_words(" ".join(values)))


Pointed = tuple[float, str, str, str, list[str]]  # p, value type, source, target, values


def _pointed(
    scored: list[Pointed], pointing: frozenset[str], required: list[str], filled: set[str]
) -> list[tuple[str, float, list[str]]]:
    """The required slots the words point back at and their values, from the candidates of
    the value types pointed at (in ``candidates``' order): for each type, the target whose
    source scores highest; when the words point at several of the type ("those same dates"),
    the values of that best source's frame in its order, one to each target of the type in
    the intent's order (the flight's departure and return to the check-in and check-out),
    sure of each. None that ``filled`` holds already. Each with its probability."""
    out: list[tuple[str, float, list[str]]] = []
    for kind in dict.fromkeys(k for _, k, *_ in scored):
        of_kind = [x for x in scored if x[1] == kind]
        p, _, source, target, values = max(of_kind, key=lambda x: x[0])
        if f"{kind}s" not in pointing:
            out += [(target, p, values)] if target not in filled else []
            continue
        sources = {x[4][0].lower(): x[4] for x in of_kind if x[2] == source}
        targets = [t for t in required if any(x[3] == t for x in of_kind)]
        pairs = zip(targets, sources.values(), strict=False)
        out += [(t, 1.0, v) for t, v in pairs if t not in filled]
    return out


@dataclass(frozen=True)
class _Carrying:
    """What ``carry_over`` reads once per frame, and its steps."""

    frame: State
    schema: ServiceSchema
    history: History
    opening: bool
    model: CarryModel
    held: Held | None
    called: dict[str, str] | None  # the call the system made on its last turn, when held
    taken: set[str]
    proposed: dict[str, str]
    intent: IntentSchema | None
    takes: set[str]
    seen: bool  # a source slot the model never saw is scored by the fallback model too
    reworded: bool  # the service is scored by the reworded model

    @classmethod
    def of(
        cls,
        frame: State,
        service: str,
        schemas: Mapping[str, ServiceSchema],
        history: History,
        opening: bool,
        model: CarryModel,
        held: Held | None,
    ) -> _Carrying:
        schema = schemas[service]
        intent = schema.intent(frame.active_intent)
        takes = {*intent.required_slots, *intent.optional_slots} if intent is not None else set()
        # A service the model was trained on (every slot described as one of its training
        # services' slots) scores a source slot the model never saw with the fallback model.
        # Any other service (one it never saw, or one reworded) is scored by the reworded
        # model.
        known = all(model.knows(slot_view(schema, s.name)) for s in schema.slots)
        return cls(
            frame, schema, history, opening, model, held,
            called=_called(history, service) if held is not None else None,
            taken=_distinct_values(frame, schema),
            proposed=_proposed(history, service),
            intent=intent,
            takes=takes,
            seen=model.fallback and known,
            reworded=model.reworded and not known,
        )  # fmt: skip

    def eligible(self, candidate: Candidate) -> bool:
        if not candidate.same_type:
            return False  # on train no value ever moved to a slot of another value type
        if self.proposed.get(candidate.values[0].lower(), candidate.target) != candidate.target:
            return False  # the system just proposed this value for another slot of the frame
        if candidate.target not in self.takes:
            return False  # nor into a slot the active intent does not take
        if _distinct(self.schema, candidate.target) and candidate.values[0].lower() in self.taken:
            return False  # another slot of the frame holds this place, date or name
        # the system's call shows what the state held
        return self.called is None or _in_call(self.called, candidate, self.history)

    def threshold(self, candidate: Candidate) -> float | None:
        """The probability the candidate needs; None: it may not fill its target."""
        held, model, intent = self.held, self.model, self.intent
        if held is None:
            required = intent is not None and candidate.target in intent.required_slots
            if self.opening and required:
                return min(model.threshold, OPENING_REQUIRED_THRESHOLD)
            return model.threshold
        if candidate.target not in held[0]:
            return None
        if held[1] == NOT_ASKED_THRESHOLD and model.knows(
            slot_view(self.schema, candidate.target), reworded=True
        ):
            return KNOWN_NOT_ASKED_THRESHOLD
        return held[1]

    def probability(self, candidate: Candidate) -> float:
        model = self.model
        p = model.probability(candidate.reworded if self.reworded else candidate.features)
        source = candidate.source_view
        if self.seen and source is not None and not model.knows(source):
            p = max(p, model.probability(candidate.fallback))
        return p

    def fill(self, best: dict[str, tuple[float, list[str]]]) -> None:
        """Each target its best value; one place, date or name fills one slot of a frame
        (the one it scores best for), none on a tie."""
        schema = self.schema
        winner: dict[str, tuple[float, str]] = {}  # a distinct value -> its best target
        tied: set[str] = set()  # distinct values two targets score exactly the same for
        for slot, (p, values) in best.items():
            key = values[0].lower()
            if not _distinct(schema, slot):
                continue
            if p > winner.get(key, (-1.0, ""))[0]:
                winner[key] = (p, slot)
                tied.discard(key)
            elif p == winner[key][0]:
                tied.add(key)
        for slot, (_, values) in best.items():
            key = values[0].lower()
            if _distinct(schema, slot) and (winner[key][1] != slot or key in tied):
                continue
            self.frame.slot_values[slot] = list(values)


def _proposed(history: History, service: str) -> dict[str, str]:
    """The lower-cased values the system's last turn in ``service`` proposed for a slot it
    asked for (REQUEST with values: "would you leave on March 2nd?"), each with that slot:
    such a value is not carried into another slot of the frame (on train's dialogue folds
    the 18 late carries of such a value were all false fills)."""
    return {
        v.lower(): a.slot
        for a in history.last_system_acts(service)
        if a.act == "REQUEST" and a.slot
        for v in a.values
    }


def _span(view: SlotView) -> bool:
    """Whether ``view`` counts a span of time: a number moves between counts of people or
    things, and between spans of time, never across."""
    return view.value_type == "number" and counts_time(view.words)


def _distinct(schema: ServiceSchema, slot: str) -> bool:
    """Whether ``slot`` holds a value no other slot of its frame holds: text, a date or a time
    (on every 2nd file of SGD train, two slots of a frame shared such a value 4 times in
    58,853 frames, two times of one flight; numbers and yes/no often coincide)."""
    return slot_view(schema, slot).value_type in ("text", "date", "time")


def _distinct_values(frame: State, schema: ServiceSchema) -> set[str]:
    """The lower-cased text, date and time values the frame holds."""
    return {
        v.lower()
        for slot, values in frame.slot_values.items()
        if schema.slot(slot) is not None and _distinct(schema, slot)
        for v in values
    }


def _called(history: History, service: str) -> dict[str, str] | None:
    """The parameters of the call the system made in ``service`` on its last turn, if any."""
    turn = history.last_system_turn
    found = turn.frame(service) if turn is not None else None
    if found is None or found.service_call is None:
        return None
    return {k: v.lower() for k, v in found.service_call.parameters.items()}


def _in_call(called: dict[str, str], candidate: Candidate, history: History) -> bool:
    """Whether ``candidate``'s value is the one the call took for its target (any value when
    the call did not take the target: it may have been of another intent)."""
    param = called.get(candidate.target)
    if param is None:
        return True
    if any(v.lower() == param for v in candidate.values):
        return True
    canonical = history.canonical(candidate.values, None)
    return canonical is not None and canonical.lower() == param


def held_slots(frame: State, schema: ServiceSchema, history: History, service: str) -> Held:
    """The required slots of the frame's active intent that ``frame`` lacks and the system's
    last turn in the frame shows the state holds, and the probability a source then needs.
    When the system searched, offered, asked to confirm or reported an outcome without asking
    for any slot, every required slot was known (any best source will do); when it asked for
    some required slots, the others it did not ask for most likely were (a lower threshold)."""
    intent = schema.intent(frame.active_intent)
    acts = history.last_system_acts(service)
    if intent is None:
        return [], 1.0
    asked = {a.slot for a in acts if a.act == "REQUEST"}
    missing = [s for s in intent.required_slots if s not in frame.slot_values and s not in asked]
    if not asked and any(a.act in WENT_AHEAD for a in acts):
        return missing, WENT_AHEAD_THRESHOLD
    if asked & set(intent.required_slots):
        return missing, NOT_ASKED_THRESHOLD
    return [], 1.0
