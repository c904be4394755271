"""Hashed pairwise features: (utterance, context) against one intent or one slot.

A schema element enters only through the words of its description and its schema properties
(transactional, categorical, an input of some intent), crossed with the utterance, the previous
system acts and the element's role in the dialogue (the current intent, one the system offered,
...). Names are never read, not even their words: the first content words of the description
(its head, "Number of people ..." -> number, people) stand where a name's words would, so a
service never seen in training, or one renamed, is scored from its descriptions alone.
Feature strings are hashed with crc32 (stable across processes) into 2**BITS buckets.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from tod_runtime.nlu.learned.text import STOP, content, question_cues, tokens
from tod_runtime.schema.models import IntentSchema, ServiceSchema, SlotSchema

BITS = 18
HEAD_WORDS = 3  # content words at the start of a description that stand for its name
ROLES = ("none", "none_current", "current", "offered", "active", "sibling", "other")


def hashed(features: Iterable[str], bits: int = BITS) -> list[int]:
    mask = (1 << bits) - 1
    return [zlib.crc32(f.encode()) & mask for f in features]


def crossed(kind: str, lefts: Iterable[str], rights: Iterable[str]) -> list[str]:
    """``kind:left|right`` for every left and every right word, left-major."""
    return [f"{kind}:{a}|{b}" for a in lefts for b in rights]


def hashed_crossed(
    kind: str, lefts: Iterable[str], rights: Iterable[str], bits: int = BITS
) -> list[int]:
    """``hashed(crossed(kind, lefts, rights), bits)`` without building the strings: the CRC
    of ``kind:left|`` is continued over each right word (``crc32(b, crc32(a)) == crc32(a +
    b)``). The CRCs of the left parts and the bytes of the right words are remembered, since
    the same description words and the same turn's words meet again and again."""
    lefts, rights = tuple(lefts), tuple(rights)
    if not lefts or not rights:
        return []
    mask = (1 << bits) - 1
    ends = _encoded(rights)
    return [zlib.crc32(end, start) & mask for start in _starts(kind, lefts) for end in ends]


@lru_cache(maxsize=4096)
def _starts(kind: str, lefts: tuple[str, ...]) -> tuple[int, ...]:
    return tuple(zlib.crc32(f"{kind}:{a}|".encode()) for a in lefts)


@lru_cache(maxsize=4096)
def _encoded(words: tuple[str, ...]) -> tuple[bytes, ...]:
    return tuple(w.encode() for w in words)


@dataclass(frozen=True)
class Utterance:
    text: str
    words: tuple[str, ...]
    content: frozenset[str]
    bigrams: tuple[str, ...]
    cues: tuple[str, ...]

    @classmethod
    def of(cls, text: str) -> Utterance:
        words = tokens(text)
        bigrams = tuple(f"{a}_{b}" for a, b in zip(["^", *words], [*words, "$"], strict=True))
        return cls(text, tuple(words), content(words), bigrams, tuple(question_cues(text, words)))


@dataclass(frozen=True)
class Described:
    """An intent or a slot as the features see it: words and schema properties only."""

    head: frozenset[str]  # the description's first content words
    description: frozenset[str]  # the rest of its content words
    flag: bool  # intent: is_transactional; slot: is_categorical
    extra: bool = False  # slot: an input of some intent
    # intent: the content words of its service's description and of the service's other
    # intents' descriptions that its own description lacks ("movie rentals", "Rent a movie"
    # beside "Find movies to watch by genre")
    service: frozenset[str] = frozenset()
    # intent: the content words of its service's slots' descriptions that none of the above
    # holds ("rain" in "The possibility of rain or snow"), and the words of the values its
    # service's categorical slots allow that no description holds ("psychologist")
    slots: frozenset[str] = frozenset()
    values: frozenset[str] = frozenset()


NONE_INTENT = Described(frozenset(), frozenset(), False)


def head_and_rest(description: str) -> tuple[frozenset[str], frozenset[str]]:
    words = list(dict.fromkeys(w for w in tokens(description) if w not in STOP))
    return frozenset(words[:HEAD_WORDS]), frozenset(words[HEAD_WORDS:])


def service_description_words(schema: ServiceSchema) -> frozenset[str]:
    """The content words of a service's description and of its intents' descriptions."""
    texts = (schema.description, *(i.description for i in schema.intents))
    return frozenset(w for text in texts for w in tokens(text) if w not in STOP)


def slot_description_words(schema: ServiceSchema) -> frozenset[str]:
    """The content words of a service's slots' descriptions."""
    return frozenset(w for slot in schema.slots for w in content(tokens(slot.description)))


def categories(schema: ServiceSchema) -> frozenset[str]:
    """The values a service's categorical slots allow, in lower case and as ``tokens`` spells
    them, yes and no and numbers aside ("psychologist", "family counselor")."""
    return frozenset(
        " ".join(said)
        for slot in schema.slots
        if slot.is_categorical
        for value in slot.possible_values
        if (said := tokens(value))
        and value.lower() not in ("true", "false", "dontcare")
        and not value.isdigit()
    )


def describe_intent(intent: IntentSchema, schema: ServiceSchema | None = None) -> Described:
    head, rest = head_and_rest(intent.description)
    if schema is None:
        return Described(head, rest, intent.is_transactional)
    service = service_description_words(schema) - head - rest
    slots = slot_description_words(schema) - head - rest - service
    values = frozenset(w for v in categories(schema) for w in v.split()) - STOP
    values = values - head - rest - service - slots
    return Described(head, rest, intent.is_transactional, False, service, slots, values)


def describe_slots(schema: ServiceSchema) -> dict[str, Described]:
    inputs = {s for i in schema.intents for s in (*i.required_slots, *i.optional_slots)}
    return {slot.name: _describe_slot(slot, slot.name in inputs) for slot in schema.slots}


def _describe_slot(slot: SlotSchema, is_input: bool) -> Described:
    return Described(*head_and_rest(slot.description), slot.is_categorical, is_input)


def intent_role(
    candidate: tuple[str, str] | None,
    current: tuple[str | None, str],
    offered: frozenset[tuple[str, str]],
    active: frozenset[tuple[str, str]],
) -> str:
    """The candidate's place in the dialogue; ``candidate`` None is NONE (no intent)."""
    if candidate is None:
        return "none_current" if current[1] == "NONE" else "none"
    if candidate == current:
        return "current"
    if candidate in offered:
        return "offered"
    if candidate in active:
        return "active"
    return "sibling" if candidate[0] == current[0] else "other"


def _bucket(n: int, top: int = 3) -> int:
    return min(n, top)


def intent_strings(u: Utterance, sys_acts: Sequence[str], c: Described, role: str) -> list[str]:
    context = intent_context_strings(u, sys_acts, role, c.flag, schema_marks(u, c))
    return context + intent_pair_strings(u, c, role)


def schema_marks(u: Utterance, c: Described) -> tuple[str, ...]:
    """Where the candidate's schema holds the utterance's words, one mark per such word, in
    order: ``§h`` in the head of its description, ``§d`` in the rest, ``§s`` in its service's
    other descriptions, ``§l`` in its service's slots' descriptions, ``§v`` in the values its
    service's categorical slots allow. Read beside the words themselves, so that what is
    learned of "rent" in the search for cars to rent (a word of the service) is also learned
    of such words in general and carries to "rent" in the booking of a movie to watch (a word
    of the head)."""
    return tuple(mark for w in u.words if (mark := _mark(w, c)))


def _mark(w: str, c: Described) -> str:
    if w in c.head:
        return "§h"
    if w in c.description:
        return "§d"
    if w in c.service:
        return "§s"
    if w in c.slots:
        return "§l"
    return "§v" if w in c.values else ""


def intent_context_groups(
    u: Utterance, sys_acts: Sequence[str], role: str, tx: bool, marks: Sequence[str] = ()
) -> list[tuple[str, Sequence[str], str]]:
    """``intent_context_strings`` as (prefix, items, suffix) groups, in order: each string is
    prefix + item + suffix (the ranking weighs them by these parts: ``ContextWeights``)."""
    words = (*u.words, *marks)
    flag = int(tx)
    groups: list[tuple[str, Sequence[str], str]] = [
        ("r:", (role,), ""),
        ("w:", words, f"|{role}"),
        ("b:", u.bigrams, f"|{role}"),
        ("s:", sys_acts, f"|{role}"),
        ("st:", sys_acts, f"|{flag}|{role}"),
    ]
    if role not in ("none", "none_current"):
        groups.append(("t:", words, f"|{flag}"))
    # a word means different things after different system moves: "book it" after an offer
    # switches to the transactional intent, "no" after a confirmation does not
    groups.append(("wp:", words, f"|{flag}|{role}|{system_step(sys_acts)}"))
    return groups


def intent_context_strings(
    u: Utterance, sys_acts: Sequence[str], role: str, tx: bool, marks: Sequence[str] = ()
) -> list[str]:
    """The features of a pair that depend on the turn, the role, is_transactional and the
    candidate's ``schema_marks`` only (shared by every candidate with the same of the four):
    the words and the marks are read alike."""
    groups = intent_context_groups(u, sys_acts, role, tx, marks)
    return [f"{prefix}{item}{suffix}" for prefix, items, suffix in groups for item in items]


def system_step(sys_acts: Sequence[str]) -> str:
    """What the system's last turn did, coarsely."""
    for a in ("CONFIRM", "OFFER_INTENT", "OFFER", "REQUEST"):
        if a in sys_acts:
            return a
    return "END" if {"NOTIFY_SUCCESS", "NOTIFY_FAILURE", "REQ_MORE"} & set(sys_acts) else "-"


def intent_pair_strings(u: Utterance, c: Described, role: str) -> list[str]:
    """The features of a pair that depend on the candidate's words."""
    oh, od = u.content & c.head, u.content & c.description
    counts = intent_count_strings(role, len(oh), len(od), len(c.head))
    counts += service_count_strings(role, len(oh | od), len(u.content & c.service))
    return counts + overlap_strings(oh | od) + crossed("x", u.content, c.head)


def intent_pair_features(u: Utterance, c: Described, role: str, bits: int = BITS) -> list[int]:
    """``hashed(intent_pair_strings(...))``, with fewer strings built: the count features
    are remembered, the crossed words hashed without strings."""
    oh, od = u.content & c.head, u.content & c.description
    counts = _hashed_intent_counts(role, len(oh), len(od), len(c.head), bits)
    counts += _hashed_service_counts(role, len(oh | od), len(u.content & c.service), bits)
    overlap = hashed(overlap_strings(oh | od), bits) if oh or od else []
    return [*counts, *overlap, *hashed_crossed("x", u.content, c.head, bits)]


def intent_count_strings(role: str, in_head: int, in_rest: int, head_size: int) -> list[str]:
    """How many of the utterance's content words the head and the rest of a candidate's
    description hold."""
    out = [f"oh:{_bucket(in_head)}|{role}", f"od:{_bucket(in_rest)}|{role}"]
    out.append(f"ohod:{_bucket(in_head, 2)}:{_bucket(in_rest, 2)}")
    if head_size:
        out.append(f"ohf:{round(4 * in_head / head_size)}|{role}")
    return out


@lru_cache(maxsize=1024)
def _hashed_intent_counts(
    role: str, in_head: int, in_rest: int, head_size: int, bits: int
) -> tuple[int, ...]:
    return tuple(hashed(intent_count_strings(role, in_head, in_rest, head_size), bits))


def service_count_strings(role: str, own: int, around: int) -> list[str]:
    """How many of the utterance's content words the rest of the candidate's service
    describes (its description, its other intents'), beside how many its own holds."""
    return [f"os:{_bucket(around, 2)}|{role}", f"oos:{_bucket(own, 2)}:{_bucket(around, 2)}"]


@lru_cache(maxsize=1024)
def _hashed_service_counts(role: str, own: int, around: int, bits: int) -> tuple[int, ...]:
    return tuple(hashed(service_count_strings(role, own, around), bits))


def overlap_strings(words: Iterable[str]) -> list[str]:
    return [f"ov:{w}" for w in words]


def intent_features(
    u: Utterance, sys_acts: Sequence[str], c: Described, role: str, bits: int = BITS
) -> list[int]:
    """``hashed(intent_strings(...))``."""
    context = hashed(intent_context_strings(u, sys_acts, role, c.flag, schema_marks(u, c)), bits)
    return context + intent_pair_features(u, c, role, bits)


def slot_strings(
    u: Utterance, sys_acts: Sequence[str], slot_acts: Sequence[str], c: Described
) -> list[str]:
    q = int(bool(u.cues))
    oh, od = u.content & c.head, u.content & c.description
    return (
        slot_count_strings(q, len(oh), len(od), len(c.head), c.flag, c.extra)
        + crossed("ov", oh | od, [str(q)])
        + crossed("x", u.content, c.head)
        + slot_cue_strings(u, sys_acts, slot_acts, c, q, len(oh))
        + crossed("u", u.words, [f"{q}|{_bucket(len(oh | od), 1)}"])
    )


def slot_features(
    u: Utterance,
    sys_acts: Sequence[str],
    slot_acts: Sequence[str],
    c: Described,
    bits: int = BITS,
) -> list[int]:
    """``hashed(slot_strings(...))``, with fewer strings built: the count features are
    remembered, the crossed words hashed without strings."""
    q = int(bool(u.cues))
    oh, od = u.content & c.head, u.content & c.description
    near = _bucket(len(oh), 1)
    return [
        *_hashed_slot_counts(q, len(oh), len(od), len(c.head), c.flag, c.extra, bits),
        *hashed_crossed("ov", oh | od, [str(q)], bits),
        *hashed_crossed("x", u.content, c.head, bits),
        # slot_cue_strings, in its order: the cues crossed with the head, the slot's acts,
        # and the system's acts (the same for every slot with as many head words said)
        *hashed_crossed("qn", u.cues, c.head, bits),
        *(hashed(_slot_act_strings(slot_acts, q, near), bits) if slot_acts else ()),
        *_hashed_system_acts(tuple(sys_acts), q, near, bits),
        *_hashed_utterance_words(u.words, f"{q}|{_bucket(len(oh | od), 1)}", bits),
    ]


@lru_cache(maxsize=256)
def _hashed_system_acts(sys_acts: tuple[str, ...], q: int, near: int, bits: int) -> tuple[int, ...]:
    return tuple(hashed(_system_act_strings(sys_acts, q, near), bits))


@lru_cache(maxsize=256)
def _hashed_utterance_words(words: tuple[str, ...], context: str, bits: int) -> tuple[int, ...]:
    """The utterance's words crossed with a slot's question and overlap context: two
    possible contexts per turn, so remembered for every slot after the first."""
    return tuple(hashed_crossed("u", words, [context], bits))


def slot_count_strings(
    q: int, in_head: int, in_rest: int, head_size: int, categorical: bool, is_input: bool
) -> list[str]:
    """How many of the utterance's content words the head and the rest of a slot's
    description hold, and the slot's schema properties (``q``: a question cue is said)."""
    out = [f"q:{q}", f"oh:{_bucket(in_head)}|{q}", f"od:{_bucket(in_rest)}|{q}"]
    out.append(f"ohod:{_bucket(in_head, 2)}:{_bucket(in_rest, 2)}|{q}")
    if head_size:
        out.append(f"ohf:{round(4 * in_head / head_size)}|{q}")
    kind = f"{int(categorical)}:{int(is_input)}"
    return out + [f"cat:{kind}|{q}", f"cat:{kind}|{in_head}"]


@lru_cache(maxsize=1024)
def _hashed_slot_counts(
    q: int, in_head: int, in_rest: int, head_size: int, categorical: bool, is_input: bool, bits: int
) -> tuple[int, ...]:
    strings = slot_count_strings(q, in_head, in_rest, head_size, categorical, is_input)
    return tuple(hashed(strings, bits))


def slot_cue_strings(
    u: Utterance,
    sys_acts: Sequence[str],
    slot_acts: Sequence[str],
    c: Described,
    q: int,
    in_head: int,
) -> list[str]:
    """Question cues crossed with the slot's head, and the system's acts."""
    near = _bucket(in_head, 1)
    out = crossed("qn", u.cues, c.head)
    return out + _slot_act_strings(slot_acts, q, near) + _system_act_strings(sys_acts, q, near)


def _slot_act_strings(slot_acts: Sequence[str], q: int, near: int) -> list[str]:
    return [f"sa:{a}|{q}" for a in slot_acts] + [f"sa:{a}|{near}" for a in slot_acts]


def _system_act_strings(sys_acts: Sequence[str], q: int, near: int) -> list[str]:
    return [f"s:{a}|{q}|{near}" for a in sys_acts]
