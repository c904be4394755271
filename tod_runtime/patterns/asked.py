"""Which detail a question asks for, read from the schema: "what station does it leave from?"
is the slot whose name and description hold the question's words ("Station where bus is
leaving from"), not the arrival station; "how much is the rent?" is a question even when the
NLU read nothing of it.

A slot scores by the question's content words found in its name (2 each, and 1 more when
every word of its name is said: "the venue" is the venue, not the venue's address) and its
description (1 each, a word counted once), and by what a question word asks for ("how
much": a price, a cost, an amount; "when": a time or a date; "where": an address, a
location; "what kind of": a type, a genre, a category) in its name or the head of its
description (3).
Only slots the system can answer count: those the state or the result on offer holds, or a
search of the service returns from what the state holds. A question most of whose words no
slot of the service knows ("is there parking near the theater?") asks for none of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from tod_runtime.dialogue.models import Action, State, act
from tod_runtime.nlu.rules import plain_words
from tod_runtime.patterns.base import PatternTurn
from tod_runtime.policy.history import entity_on_offer
from tod_runtime.schema.models import ServiceSchema, SlotSchema
from tod_runtime.schema.roles import NAMING
from tod_runtime.values.normalise import slot_kind

QUESTION = re.compile(
    r"\?\s*$|(?:^|[.,!]\s*|\b(?:ok|okay|so|and|but|wait|also|actually|hmm)\s+)(?:which|what|whats|"
    r"where|wheres|when|whens|how|who|whos|is there|are there|is it|is that|does|do they|can you "
    r"tell)\b",
    re.IGNORECASE,
)
# a question word opening a clause ("ok. which theater is it", "is it on? how much is it"),
# not a relative pronoun ("one which serves alcohol") nor a suggestion ("how about thai")
WH = re.compile(
    r"(?:^|[.?!,;]\s*|\b(?:ok|okay|so|and|but|also|actually|hmm|wait|then)\s+)"
    r"(?:which|what|whats|what's|where|wheres|where's|when|how|who|whos|who's)\b(?! about)"
)
# English function words: never what a question is about
_FUNCTION = """a an the it its is are was were be been that thats this these those there theres here
    what whats which where wheres when whens how who whos whom why does do did done can could
    would will shall should may might i im me my mine you your we us our they them their he him
    his she her of for on in at by with about as into than then so and or but if also actually
    from to ok okay hmm well just please tell know much many one ones some any have has had get got
    again now still per each all very really too wait say said give show let lets want like
    take takes"""
FUNCTION_WORDS = frozenset(_FUNCTION.split())
# what a question word asks for: words of the slots' names and descriptions
ASKS_FOR: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = (
    (re.compile(r"\bhow much\b|\bcost\b|\bprice\b"),
     frozenset({"price", "cost", "fare", "rent", "fee", "amount", "money", "total", "dollars"})),
    (re.compile(r"\bwhen(?:s|'s)?\b|\bwhat time\b"), frozenset({"time", "date", "when"})),
    (re.compile(r"\bwhere(?:s|'s)?\b"),
     frozenset({"address", "location", "station", "place", "airport", "where"})),
    (re.compile(r"\bwhat (?:kind|type|sort) of\b"),
     frozenset({"type", "kind", "genre", "category", "class", "style"})),
    (re.compile(r"\bhow long\b"), frozenset({"duration", "length", "long"})),
)  # fmt: skip
# English verbs of going and the nouns schemas say them with: "when does it leave?" asks for
# a departure, "when does it land?" for an arrival; "which station does it leave from?" for
# the origin's ("Name of the bus terminus at the origin"), not the destination's
_OUT, _IN = ("depart", "origin"), ("arrive", "destination")
SAID_AS = {
    "leave": _OUT, "leaves": _OUT, "leaving": _OUT, "depart": _OUT, "departs": _OUT,
    "land": _IN, "lands": _IN, "landing": _IN, "arrive": _IN, "arrives": _IN, "arriving": _IN,
    "into": _IN,  # "which airport does it get into?"
}  # fmt: skip
# English phrasal verbs of going, said as the one verb ("what station does it get in at?")
PHRASAL = ((re.compile(r"\b(?:get|gets|getting|pull|pulls|pulling) in\b"), "arrive"),
           (re.compile(r"\b(?:take|takes|taking) off\b"), "depart"))  # fmt: skip
NAMED, DESCRIBED, ASKED, WHOLE = 2, 1, 3, 1
WHEN = re.compile(r"\bwhen(?:s|'s)?\b")
WHERE = re.compile(r"\bwhere(?:s|'s)?\b")
MIN_STEM = 4


def _alike(word: str, other: str) -> bool:
    """The same word or the same stem ("leave" and "leaving", "ticket" and "tickets")."""
    if word == other:
        return True
    common = 0
    for a, b in zip(word, other, strict=False):
        if a != b:
            break
        common += 1
    return common >= MIN_STEM and common >= min(len(word), len(other)) - 3


def _content(words: Iterable[str]) -> list[str]:
    return [w for w in words if w not in FUNCTION_WORDS and not w.isdigit()]


def _slot_words(slot: SlotSchema) -> tuple[list[str], list[str]]:
    name, described = _words_of(slot.name, slot.description)
    return list(name), list(described)


@lru_cache(maxsize=4096)
def _words_of(name: str, description: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A slot's name's words and its description's content words (``_slot_words``),
    worked out once per slot: the questions of every turn are scored against them."""
    described = (w for w in plain_words(description).split() if w not in FUNCTION_WORDS)
    return tuple(name.lower().split("_")), tuple(described)


def score(words: str, slot: SlotSchema) -> int:
    """How well the question (plain words) names ``slot``."""
    said = words.split()
    name, described = _slot_words(slot)
    total = 0
    for word in set(said):
        forms = (word, *SAID_AS.get(word, ()))
        in_name = any(_alike(f, part) for f in forms for part in name)
        if in_name and (word not in FUNCTION_WORDS or word in ("from", "to", "into")):
            total += NAMED
        elif word not in FUNCTION_WORDS and any(_alike(f, d) for f in forms for d in described):
            total += DESCRIBED
    parts = [p for p in name if p not in FUNCTION_WORDS or p in ("from", "to")]
    if parts and all(any(_alike(w, p) for w in said) for p in parts):
        total += WHOLE  # the whole name said: "the venue" is the venue, not its address
    head = described[:1]  # what the description says the slot is ("The amount of money ...")
    for asks, concept in ASKS_FOR:
        if asks.search(words) and concept & {*name, *head}:
            total += ASKED
    return total


def unknown_words(words: str, schema: ServiceSchema) -> list[str]:
    """The question's content words no slot of the service names or describes."""
    vocabulary = schema.derived("patterns.asked.vocabulary", lambda: _vocabulary(schema))
    return [
        w
        for w in _content(words.split())
        if not any(_alike(f, v) for f in (w, *SAID_AS.get(w, ())) for v in vocabulary)
    ]


def _vocabulary(schema: ServiceSchema) -> tuple[str, ...]:
    """The words of the service's slots' names, descriptions and possible values, each once
    (in the order they first come)."""
    vocabulary: dict[str, None] = {}
    for slot in schema.slots:
        name, described = _slot_words(slot)
        vocabulary.update(dict.fromkeys((*name, *described)))
        vocabulary.update(
            dict.fromkeys(w for v in slot.possible_values for w in plain_words(v).split())
        )
    return tuple(vocabulary)


def _plain_verbs(words: str) -> str:
    """``words`` with each phrasal verb of going said as its one verb (``PHRASAL``)."""
    for phrase, verb in PHRASAL:
        words = phrase.sub(verb, words)
    return words


def at_hand(turn: PatternTurn, service: str, state: State) -> set[str]:
    """The slots the state, the result on offer or what the task under way just booked
    holds ("how long will it take?" after a taxi was called: the ride's duration)."""
    held = {s for s, v in state.slot_values.items() if v}
    booked = turn.context.history.last_success(service, state.active_intent)
    offered = entity_on_offer(turn.context.history, service, state) or {}
    return held | set(offered) | set(booked[1] if booked else {})


def answerable(turn: PatternTurn, service: str, state: State) -> set[str]:
    """The slots the system can tell: held by the state or the result on offer
    (``at_hand``), or returned by a search of the service whose required slots the state
    holds."""
    schema = turn.context.schemas[service]
    held = {s for s, v in state.slot_values.items() if v}
    found = {
        slot
        for intent in schema.intents
        if not intent.is_transactional and set(intent.required_slots) <= held
        for slot in intent.result_slots
    }
    return at_hand(turn, service, state) | found


def _place_of(schema: ServiceSchema, slot: str, can: set[str]) -> str | None:
    """The slot at hand (``at_hand``: no search is made for it) an address is the address
    of: "Address of the venue" is the venue's, so "where is it played?" is told the venue
    and its address ("Address of the restaurant": the restaurant's name). The slot whose
    name's words ("name" aside) the rest of the address's description says, its last word
    (the head: "Address of event venue" is the venue's, not the event's) among them; of
    two, the one named with more."""
    spec = schema.slot(slot)
    if spec is None or "address" not in _slot_words(spec)[1][:1] + spec.name.split("_")[:1]:
        return None
    rest = _slot_words(spec)[1][1:]
    places = sorted(
        (len(parts), other.name)
        for other in schema.slots
        if other.name in can and other.name != slot and "address" not in other.name
        for parts in [[p for p in _content(other.name.split("_")) if p not in NAMING]]
        if rest and any(_alike(p, rest[-1]) for p in parts)
        and all(any(_alike(p, w) for w in rest) for p in parts)
    )  # fmt: skip
    if not places or places[-2:-1] and places[-2][0] == places[-1][0]:
        return None
    return places[-1][1]


def _question(turn: PatternTurn, service: str, schema: ServiceSchema) -> str | None:
    """The question's words (the values the user gave in the same breath left out, phrasal
    verbs of going said as one), None when most of them are about something the service
    does not know."""
    values = {
        w
        for a in turn.acts.get(service, [])
        if a.act == "INFORM"
        for v in a.values
        for w in plain_words(v).split()
    }
    words = _plain_verbs(" ".join(w for w in turn.words.split() if w not in values))
    content = _content(words.split())
    # the words of a question phrase ("how long" asks for a duration) are no words the
    # service lacks
    asking = {w for asks, _ in ASKS_FOR for m in asks.finditer(words) for w in m.group().split()}
    unknown = [w for w in unknown_words(words, schema) if w not in asking]
    return None if content and len(unknown) * 2 > len(content) else words


def asked_slot(
    turn: PatternTurn, service: str, state: State
) -> tuple[tuple[str, ...], int, bool] | None:
    """The slots the question asks for (one, a date and a time, or two it names alike),
    their score and whether they are alternatives; None when no answerable slot is named,
    three or more are named alike, or most of the question's words are about something the
    service does not know. The values the user gave in the same breath are no part of the
    question. "when" that names a date and a time alike asks for both ("when is it?":
    Thursday, March 14th at 6 pm); two others named alike are both told when the NLU read no
    question ("what station?" of a bus: where it leaves from and where it gets in)."""
    schema = turn.context.schemas[service]
    words = _question(turn, service, schema)
    if words is None:
        return None
    can = answerable(turn, service, state)
    scored = [(score(words, slot), slot.name) for slot in schema.slots if slot.name in can]
    best = max(scored, default=(0, ""))
    if best[0] < NAMED:
        return None
    tied = tuple(name for s, name in scored if s == best[0])
    if len(tied) == 1:
        place = (
            _place_of(schema, tied[0], at_hand(turn, service, state))
            if WHERE.search(words)
            else None
        )
        return ((place, *tied) if place else tied), best[0], False
    kinds = sorted(slot_kind(schema, name) for name in tied)
    if kinds == ["date", "time"] and WHEN.search(words):
        return tied, best[0], False
    return (tied, best[0], True) if len(tied) == 2 else None


@dataclass(frozen=True)
class AskedSlot:
    """A question about a detail: the slot asked for is the one the schema's words for it
    match best (the departure station for "where does it leave from?"). It replaces a slot
    the NLU read that matches worse, and is asked for when the NLU read no question. "where"
    about an address is told the place it is the address of as well (``_place_of``)."""

    name: str = "asked_slot"

    def _choice(self, turn: PatternTurn) -> tuple[str, tuple[str, ...]] | None:
        service = turn.service
        if service is None or service not in turn.context.schemas:
            return None
        if not QUESTION.search(turn.text):
            return None
        acts = turn.acts.get(service, [])
        read = [a.slot for a in acts if a.act == "REQUEST" and a.slot]
        if not read and not self._asks(turn, acts):
            return None
        state = turn.state.get(service) or turn.context.state.get(service) or State()
        schema = turn.context.schemas[service]
        found = asked_slot(turn, service, state)
        if found is None:  # the NLU's reading stands; "where" is told the place too
            where = len(read) == 1 and WHERE.search(turn.words)
            place = _place_of(schema, read[0], at_hand(turn, service, state)) if where else None
            return (service, (place, read[0])) if place else None
        slots, best, either = found
        if set(slots) <= set(read) or either and read:
            return None  # the NLU read it, or a question naming two alike read as another
        if len(slots) == 1 and any(
            score(turn.words, s) >= best for s in schema.slots if s.name in read
        ):
            return None
        return service, slots

    @staticmethod
    def _asks(turn: PatternTurn, acts: list[Action]) -> bool:
        """A question the NLU read none of: a question word, and nothing said but details (and
        the task opened, when the question moved it from the service the system spoke for:
        "who directed it?" to the cinemas moves to the films streamed)."""
        last = turn.context.history.last_system_frame
        moved = last is not None and last.service != turn.service  # "who directed it?"
        said = ("AFFIRM", "THANK_YOU", "INFORM", "SELECT", *(("INFORM_INTENT",) if moved else ()))
        if any(a.act not in said for a in acts):
            return False
        return bool(WH.search(turn.text.lower().replace("’", "'")))

    def applies(self, turn: PatternTurn) -> bool:
        return self._choice(turn) is not None

    def apply(self, turn: PatternTurn) -> PatternTurn:
        found = self._choice(turn)
        assert found is not None
        service, slots = found
        acts = turn.acts_copy()
        kept: list[Action] = [a for a in acts.get(service, []) if a.act != "REQUEST"]
        acts[service] = [*kept, *(act("REQUEST", slot) for slot in slots)]
        tracked = turn.state.get(service) or turn.context.state.get(service) or State()
        asked = {"requested_slots": list(slots)}
        state = {**turn.state, service: tracked.model_copy(update=asked)}
        return turn.amended(acts=acts, state=state)
