"""The learned value reader: which values a user turn gives to which slots of a service.

Three small scorers, each a logistic regression over hashed features (like the intent and
requested-slot scorers):

* **spans** (slot-agnostic): is this stretch of the utterance a value at all? Every span of up
  to ``MAX_SPAN`` tokens is scored from its words, its shape (capitals, digits), the words
  around it, the value types of the slots the system just asked for, and whether the backend
  knows it as a value. Open vocabulary: a city or a name never seen is found from its context.
* **assign**: which non-categorical slot does a found span fill? Each (span, slot) pair is
  scored from the words around the span crossed with the words of the slot's *description*,
  the slot's value type against the span's shape, the system's acts on the slot in its last
  turn, and whether the backend knows the span as a value of this slot.
* **pick**: which possible value of a categorical slot, or ``dontcare`` for any slot, does the
  user give? Each (slot, value) pair is scored from how the value appears in the utterance
  (exact, as a number, by word stems), value words crossed with utterance words, description
  words crossed with utterance words, yes/no cues for boolean slots and the system's acts.

A schema element enters only through its description words, its value type and its place in
the schema (categorical, an input of an intent), never its name: a renamed or unseen service
is read from its schema alone.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from functools import cached_property, lru_cache

import numpy as np
import numpy.typing as npt

from tod_runtime.dialogue.models import DONTCARE
from tod_runtime.nlu.learned.features import hashed
from tod_runtime.nlu.learned.model import NLUModel
from tod_runtime.nlu.learned.text import STOP, stem
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.schema.roles import slot_roles
from tod_runtime.values.dates import parse_date
from tod_runtime.values.numbers import parse_count
from tod_runtime.values.times import parse_time

MAX_SPAN = 8
# an amount ("$1,630", "12.50") or a clock time ("14:30") is one token, as a word is
_TOKEN = re.compile(
    r"\$?\d+(?:,\d{3})*(?:\.\d+)?(?::\d+)?|[A-Za-z0-9]+(?:['’][A-Za-z]+)?|[^\sA-Za-z0-9]"
)
_WORDS = re.compile(r"\d+(?::\d+)?|[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
_NUMBER_WORDS = {
    "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
}  # fmt: skip
_YES = frozenset(["yes", "yeah", "yep", "sure", "ok", "okay", "correct", "right"])
_NO = frozenset(["no", "not", "nope", "don't", "dont", "without", "never"])


@dataclass(frozen=True)
class Token:
    text: str
    lower: str
    start: int
    end: int
    shape: str
    word: bool  # a word or number, not punctuation


def shape(text: str) -> str:
    out = re.sub(r"[A-Z]+", "X", re.sub(r"[a-z]+", "x", re.sub(r"\d+", "d", text)))
    return out[:4]


def tokenise(text: str) -> list[Token]:
    return [
        Token(
            m.group(),
            m.group().lower(),
            m.start(),
            m.end(),
            shape(m.group()),
            m.group()[0].isalnum() or len(m.group()) > 1,  # a word, a number, an amount
        )
        for m in _TOKEN.finditer(text)
    ]


def normalised(text: str) -> str:
    """A value as compared with others: lower case, words only ("$1,630" -> "1 630")."""
    return " ".join(m.group().lower() for m in _WORDS.finditer(text))


@dataclass(frozen=True)
class SlotView:
    """A slot as the value scorers see it."""

    name: str
    description: tuple[str, ...]  # content words of the description
    value_type: str
    categorical: bool
    values: tuple[str, ...]  # possible values (categorical)
    is_input: bool


def slot_views(schema: ServiceSchema) -> list[SlotView]:
    inputs = {s for i in schema.intents for s in (*i.required_slots, *i.optional_slots)}
    roles = slot_roles(schema)
    out = []
    for slot in schema.slots:
        words = [stem(t.lower) for t in tokenise(slot.description) if t.word]
        described = tuple(dict.fromkeys(w for w in words if w not in STOP))[:8]
        out.append(
            SlotView(
                slot.name,
                described,
                roles[slot.name].value_type,
                slot.is_categorical,
                tuple(slot.possible_values),
                slot.name in inputs,
            )
        )
    return out


@dataclass(frozen=True)
class ValueTurn:
    """A user turn as the value scorers see it: its tokens and the system's last acts on the
    service (per slot; ``asked``: slots the system requested)."""

    text: str
    tokens: tuple[Token, ...]
    slot_acts: Mapping[str, Sequence[tuple[str, Sequence[str]]]]  # slot -> [(act, values)]
    asked: frozenset[str]
    known: Mapping[str, frozenset[str]]  # normalised value -> slots the backend knows it for

    @cached_property
    def content(self) -> tuple[str, ...]:
        """The stems of its content words, once each, in order."""
        return tuple(
            dict.fromkeys(stem(t.lower) for t in self.tokens if t.word and t.lower not in STOP)
        )

    def said(self, i: int, j: int) -> str:
        """The text of tokens ``i`` to ``j`` (exclusive), as written."""
        return self.text[self.tokens[i].start : self.tokens[j - 1].end]


def value_turn(
    text: str,
    system_acts: Sequence[tuple[str, str, Sequence[str]]],
    known: Mapping[str, frozenset[str]],
) -> ValueTurn:
    """``system_acts``: (act, slot, values) of the system's last turn on this service."""
    slot_acts: dict[str, list[tuple[str, Sequence[str]]]] = {}
    for a, slot, values in system_acts:
        if slot:
            slot_acts.setdefault(slot, []).append((a, values))
    asked = frozenset(s for a, s, _ in system_acts if a == "REQUEST" and s)
    return ValueTurn(text, tuple(tokenise(text)), slot_acts, asked, known)


_ANY_DAY = date(2019, 3, 1)  # only whether a span reads as a date matters, not which one


@lru_cache(maxsize=4096)
def value_class(text: str) -> str:
    """What a span reads as, by the value recognisers: a bare number, a date, a time, an
    amount of money, a count of something ("8 people"), else text."""
    words = normalised(text).split()
    if not words:
        return "-"
    if "$" in text or any(w.startswith("dollar") for w in words):
        return "money"
    if all(_number(w) is not None for w in words):
        return "num"
    if parse_date(text, _ANY_DAY) is not None:
        return "date"
    if parse_time(text) is not None:
        return "time"
    return "count" if parse_count(text) is not None else "text"


def candidate_spans(tokens: Sequence[Token]) -> list[tuple[int, int]]:
    """Every span of up to MAX_SPAN tokens that starts and ends on a word (a closing "!" or
    "." may end it)."""
    out = []
    for i, first in enumerate(tokens):
        if not first.word:
            continue
        for j in range(i + 1, min(i + MAX_SPAN, len(tokens)) + 1):
            last = tokens[j - 1]
            if last.word or (j - 1 > i and last.text in "!.?" and tokens[j - 2].word):
                out.append((i, j))
    return out


def _words_around(tokens: Sequence[Token], i: int, j: int) -> tuple[str, str, str, str]:
    def at(k: int) -> str:
        return tokens[k].lower if 0 <= k < len(tokens) else ("^" if k < 0 else "$")

    return at(i - 2), at(i - 1), at(j), at(j + 1)


def span_strings(turn: ValueTurn, i: int, j: int, asked_types: Sequence[str]) -> list[str]:
    toks = turn.tokens
    words = [t.lower for t in toks[i:j]]
    n = min(j - i, 6)
    p2, p1, n1, n2 = _words_around(toks, i, j)
    shape = "_".join(t.shape for t in toks[i:j])[:12]
    first, last = words[0], words[-1]
    out = [
        f"n:{n}", f"f:{first}", f"l:{last}", f"fl:{first}|{last}", f"p:{p1}", f"pp:{p2}_{p1}",
        f"x:{n1}", f"xx:{n1}_{n2}", f"px:{p1}|{n1}", f"sh:{shape}", f"fs:{toks[i].shape}",
        f"ls:{toks[j - 1].shape}", f"pn:{p1}|{n}", f"pf:{p1}|{first}", f"lx:{last}|{n1}",
        f"ps:{p1}|{toks[i].shape}",
    ]  # fmt: skip
    out += [f"in:{w}" for w in words[1:-1][:4]]
    if i == 0 and j == len(toks) or (i == 0 and j == len(toks) - 1 and not toks[-1].word):
        out.append(f"all:{n}")
    if normalised(turn.said(i, j)) in turn.known:
        out += ["kv", f"kv:{n}"]
    for kind in asked_types or ("-",):
        out += [f"r:{kind}", f"rs:{kind}|{shape}", f"rp:{kind}|{p1}", f"rn:{kind}|{n}"]
    return out


def assign_strings(turn: ValueTurn, i: int, j: int, slot: SlotView, same_type: int) -> list[str]:
    toks = turn.tokens
    p2, p1, n1, n2 = _words_around(toks, i, j)
    context = list(dict.fromkeys(stem(w) for w in (p2, p1, n1, n2) if w not in STOP))
    if i >= 3:
        context.append(stem(toks[i - 3].lower))
    span = [stem(t.lower) for t in toks[i:j] if t.word][:3]
    shape = "_".join(t.shape for t in toks[i:j])[:12]
    desc = slot.description
    acts = [a for a, _ in turn.slot_acts.get(slot.name, ())] or ["-"]
    asked = slot.name in turn.asked
    value = normalised(turn.said(i, j))
    known_here = slot.name in turn.known.get(value, ())
    known_other = bool(turn.known.get(value, frozenset()) - {slot.name})
    out = [f"cd:{c}|{d}" for c in context for d in desc]
    # the word before the span, function words included, against the description: "from"
    # goes with "origin" and "departure", "to" with "destination" ("from" is no context word)
    out += [f"pd:{p1}|{d}" for d in desc]
    out += [f"sd:{s}|{d}" for s in span for d in desc]
    overlap = set(context) & set(desc)
    out += [f"o:{w}" for w in overlap] + [f"ov:{min(len(overlap), 2)}|{int(asked)}"]
    out += [f"t:{slot.value_type}|{shape}", f"tp:{slot.value_type}|{p1}"]
    kind = value_class(turn.said(i, j))
    out += [f"tc:{slot.value_type}|{kind}", f"tc:{slot.value_type}|{kind}|{int(asked)}"]
    out += [f"tn:{slot.value_type}|{min(j - i, 4)}", f"tk:{slot.value_type}|{int(asked)}"]
    out += [f"a:{a}" for a in acts] + [f"a:{a}|{slot.value_type}" for a in acts]
    out += [f"q:{int(asked)}|{bool(turn.asked)}|{min(same_type, 3)}"]
    known = f"{int(known_here)}|{int(known_other)}|{slot.value_type}"
    out += [f"k:{known}", f"k:{known}|{int(asked)}"]
    out += [f"in:{int(slot.is_input)}"]
    return out


def value_numbers(turn: ValueTurn) -> set[str]:
    return {n for t in turn.tokens if (n := _number(t.lower)) is not None}


def mention(value: str, turn: ValueTurn, numbers: set[str], lowered: str) -> tuple[str, int]:
    """How ``value`` appears in the utterance (exact, as a number, by the stems of all or
    some of its words, or none) and the index of the token where it starts (-1: nowhere)."""
    norm = normalised(value)
    if not norm:
        return "none", -1
    words = norm.split()
    at = next((n for n, t in enumerate(turn.tokens) if t.lower[:5] == words[0][:5]), -1)
    if re.search(rf"(?<![a-z0-9]){re.escape(norm)}(?![a-z0-9])", lowered):
        return "exact", at
    value_stems = [stem(w) for w in words]
    said = [stem(t.lower) for t in turn.tokens]
    for n in range(len(said) - len(value_stems) + 1):
        if said[n : n + len(value_stems)] == value_stems:  # "museums" says "Museum"
            return "exact", n
    if norm.isdigit():
        if norm not in numbers:
            return "none", -1
        at = next(n for n, t in enumerate(turn.tokens) if _number(t.lower) == norm)
        return "number", at
    stems = {t.lower[:5] for t in turn.tokens if t.word}
    hits = sum(w[:5] in stems for w in words)
    if hits == len(words):
        return "stems", at
    return ("part", at) if hits else ("none", -1)


def _content_beside(tokens: Sequence[Token], at: int, width: int) -> list[str]:
    """The stems of the nearest content word before ``tokens[at]`` and after the ``width``
    tokens from there (two tokens away at most)."""
    out = []
    for side in (range(at - 1, max(at - 3, -1), -1), range(at + width, at + width + 2)):
        for k in side:
            if 0 <= k < len(tokens) and tokens[k].word and tokens[k].lower not in STOP:
                out.append(stem(tokens[k].lower))
                break
    return out


def _number(word: str) -> str | None:
    return str(int(word)) if word.isdigit() else _NUMBER_WORDS.get(word)


def slot_strings(turn: ValueTurn, slot: SlotView) -> list[str]:
    """The part of a (slot, value) pair's features that depends on the slot only."""
    content = turn.content
    asked = int(slot.name in turn.asked)
    overlap = set(content) & set(slot.description)
    out = [f"du:{d}|{u}" for d in slot.description for u in content]
    out += [f"o:{w}|{asked}" for w in overlap]
    out += [f"a:{a}" for a, _ in turn.slot_acts.get(slot.name, ())]
    out += [f"asked:{asked}|{int(bool(turn.asked))}", f"ov:{min(len(overlap), 2)}|{asked}"]
    return out


def value_strings(
    turn: ValueTurn, slot: SlotView, value: str, numbers: set[str], lowered: str
) -> list[str]:
    """The part of a (slot, value) pair's features that depends on the value."""
    asked = int(slot.name in turn.asked)
    if value == DONTCARE:
        (kind, at), vwords = ("dontcare", -1), ["<dontcare>"]
    else:
        (kind, at), vwords = mention(value, turn, numbers, lowered), normalised(value).split()[:3]
    vt = "dc" if value == DONTCARE else slot.value_type
    desc = set(slot.description)
    # A description word next to the value ("2 nights", "rated 4") ties it to this slot.
    near = [stem(t.lower) in desc for t in turn.tokens[max(at - 2, 0) : at + 3]] if at >= 0 else []
    overlap = min(len(set(turn.content) & desc), 2)
    out = [f"m:{kind}|{vt}", f"m:{kind}|{asked}", f"m:{kind}|{vt}|{asked}"]
    out += [f"mo:{kind}|{overlap}|{asked}", f"near:{kind}|{int(any(near))}|{asked}"]
    out += [f"vu:{v}|{stem(t.lower)}" for v in vwords for t in turn.tokens if t.word]
    if at >= 0:
        # the words right beside the value: "8 people" is a party's size, "7 pm" a time
        before, after = _words_around(turn.tokens, at, at + len(vwords))[1:3]
        out += [f"nx:{stem(after)}|{vt}", f"pv:{stem(before)}|{vt}"]
        out.append(f"adj:{int(stem(before) in desc)}{int(stem(after) in desc)}|{vt}|{asked}")
        # the nearest content words either side against the description: "a party of 5"
        # for "Number of seats", "3 nights" for "Number of days"
        out += [f"cw:{w}|{d}" for w in _content_beside(turn.tokens, at, len(vwords)) for d in desc]
    if vt in ("bool", "dc"):
        yes = any(t.lower in _YES for t in turn.tokens)
        no = any(t.lower in _NO for t in turn.tokens)
        out += [f"yn:{value}|{int(yes)}|{int(no)}|{asked}"]
        out += [f"dv:{d}|{value}" for d in slot.description]
    for a, values in turn.slot_acts.get(slot.name, ()):
        said = any(normalised(v) == normalised(value) for v in values)
        out.append(f"sv:{a}|{int(said)}|{vt}")
    return out


# ---------------------------------------------------------------- the reader


@dataclass(frozen=True)
class Read:
    slot: str
    value: str  # as the user wrote it (a categorical slot: the possible value)
    canonical: str
    score: float
    tokens: range = range(0)  # where it was said (none: dontcare, or a yes/no slot)


class ValueReader:
    """Reads a turn's values with the model's span, assign and pick scorers."""

    def __init__(self, model: NLUModel) -> None:
        self.spans, self.assign, self.pick = (model.weights[k] for k in ("spans", "assign", "pick"))
        self.bits = model.bits
        self.thresholds = {k: model.threshold(k) for k in ("spans", "assign", "pick")}

    def _p(self, weights: npt.NDArray[np.float32], strings: list[str]) -> float:
        z = float(weights[hashed(strings, self.bits)].sum())
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def read(self, turn: ValueTurn, slots: Sequence[SlotView]) -> list[Read]:
        """The values of the turn: spans first; then, best first, each categorical slot's
        value whose words no span or better-scoring slot took ("2 nights" fills one slot)."""
        out = self.read_spans(turn, slots)
        taken = {n for read in out for n in read.tokens}
        for read in sorted(self.read_categorical(turn, slots), key=lambda r: -r.score):
            if not taken & set(read.tokens):
                taken |= set(read.tokens)
                out.append(read)
        return out

    def read_spans(self, turn: ValueTurn, slots: Sequence[SlotView]) -> list[Read]:
        open_slots = [s for s in slots if not s.categorical]
        if not open_slots:
            return []
        types = [s.value_type for s in open_slots if s.name in turn.asked]
        scored = []
        for i, j in candidate_spans(turn.tokens):
            p = self._p(self.spans, span_strings(turn, i, j, types))
            if p >= self.thresholds["spans"]:
                scored.append((p, i, j))
        counts: dict[str, int] = {}
        for s in open_slots:
            counts[s.value_type] = counts.get(s.value_type, 0) + 1
        # every (span, slot) pair above the assign threshold, best (span x assign) first: a
        # span goes to a slot unless a better pair took either ("from March 5th until March
        # 6th": the pickup date goes to the span that fits it best, not to the likeliest span)
        pairs = []
        for p, i, j in scored:
            for slot in open_slots:
                q = self._p(self.assign, assign_strings(turn, i, j, slot, counts[slot.value_type]))
                if q > self.thresholds["assign"]:
                    pairs.append((p * q, i, j, slot.name))
        pairs.sort(key=lambda pair: -pair[0])
        taken: list[tuple[int, int]] = []
        out: list[Read] = []
        for score, i, j, name in pairs:
            if name in {r.slot for r in out} or any(i < e and s < j for s, e in taken):
                continue
            taken.append((i, j))
            text = turn.said(i, j)
            out.append(Read(name, text, text, score, range(i, j)))
        return out

    def read_categorical(self, turn: ValueTurn, slots: Sequence[SlotView]) -> list[Read]:
        numbers = value_numbers(turn)
        lowered = normalised(turn.text)
        out = []
        for slot in slots:
            candidates = [*slot.values, DONTCARE] if slot.categorical else [DONTCARE]
            shared = slot_strings(turn, slot)
            best, best_p = None, self.thresholds["pick"]
            for value in candidates:
                q = self._p(self.pick, shared + value_strings(turn, slot, value, numbers, lowered))
                if q > best_p:
                    best, best_p = value, q
            if best is not None:
                kind, at = mention(best, turn, numbers, lowered) if best != DONTCARE else ("", -1)
                said = range(at, at + 1) if kind in ("exact", "number") else range(0)
                out.append(Read(slot.name, best, best, best_p, said))
        return out


def known_values(
    schema: ServiceSchema, entity_values: Mapping[str, Sequence[str]]
) -> dict[str, frozenset[str]]:
    """Normalised value -> the slots it is a known value of (the backend's entity values and
    the schema's possible values)."""
    out: dict[str, set[str]] = {}
    for slot in schema.slots:
        for value in [*slot.possible_values, *entity_values.get(slot.name, ())]:
            norm = normalised(value)
            if norm:
                out.setdefault(norm, set()).add(slot.name)
    return {value: frozenset(slots) for value, slots in out.items()}
