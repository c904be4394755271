"""What the learned value reader (``reader.py``) sees: which values a user turn gives to which
slots of a service, as the tokens of the turn and the features of its three scorers.

Three small scorers, each a logistic regression over hashed features (like the intent and
requested-slot scorers):

* **spans** (slot-agnostic): is this stretch of the utterance a value at all? Every span of up
  to ``MAX_SPAN`` tokens is scored from its words, its shape (capitals, digits; marked in a
  turn typed in lower case), the words around it, the value types of the slots the system
  just asked for, whether the backend knows it as a value, and, for a short span holding a
  number, what the value recognisers read it as. Open vocabulary: a city or a name never
  seen is found from its context.
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

import re
import zlib
from collections import ChainMap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from functools import cache, cached_property, lru_cache

from tod_runtime.dialogue.models import DONTCARE
from tod_runtime.nlu.learned.features import crossed, hashed, hashed_crossed
from tod_runtime.nlu.learned.model import Weights
from tod_runtime.nlu.learned.text import STOP, root, stem
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.schema.roles import NAMING, slot_roles
from tod_runtime.values.dates import parse_date
from tod_runtime.values.numbers import parse_count
from tod_runtime.values.times import parse_time

MAX_SPAN = 8
YES_NO_TYPES = ("bool", "dc")  # value types read with yes/no cues (dc: dontcare)
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


def is_no(word: str) -> bool:
    """A negating word: one of ``_NO`` or any "n't" contraction ("doesn't", "shouldn't")."""
    return word in _NO or word.endswith(("n't", "n’t"))


@dataclass(frozen=True)
class Token:
    text: str
    lower: str
    start: int
    end: int
    shape: str
    word: bool  # a word or number, not punctuation


@lru_cache(maxsize=8192)
def shape(text: str) -> str:
    """A token's shape, cut to 4 characters: "Boston" Xx, "iPhone" xXx, "6:30" d:d."""
    out = re.sub(r"\d+", "d", re.sub(r"[A-Z]+", "X", re.sub(r"[a-z]+", "x", text)))
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
    """A value as compared with others: lower case, words only ("$1,630" -> "1 630"), a
    possessive left out ("jason aldean's album" says the artist Jason Aldean)."""
    return " ".join(_word(m) for m in _WORDS.finditer(text))


_POSSESSIVE = ("'s", "’s")


def _word(m: re.Match[str]) -> str:
    word = m.group().lower()
    return word[:-2] if word[-2:] in _POSSESSIVE else word


@dataclass(frozen=True)
class SlotView:
    """A slot as the value scorers see it."""

    name: str
    description: tuple[str, ...]  # content words of the description
    value_type: str
    categorical: bool
    values: tuple[str, ...]  # possible values (categorical)
    is_input: bool

    own: frozenset[str] = frozenset()  # description words no other slot of the service has

    @cached_property
    def description_set(self) -> frozenset[str]:
        return frozenset(self.description)

    @cached_property
    def qualifiers(self) -> frozenset[str]:
        """Its own description words but the first, its head: "food" of "Cuisine of food
        served in the restaurant" qualifies a value ("japanese food"); the head may end a
        name ("City where event is happening": "New York City", "Redwood City"). None for a
        slot naming what its words describe ("Name of match or artist for event": "a sports
        match" is no match's name)."""
        if self.description[:1] and self.description[0] in NAMING_STEMS:
            return frozenset()
        return self.own - set(self.description[:1])

    @cached_property
    def after_value(self) -> frozenset[str]:
        """The words that may follow a value the span scorer doubts: its qualifiers and its
        head when no other slot of the service has it ("ethiopian cuisine" for "Cuisine of
        food served in the restaurant"); not a date's, a time's or a number's ("different
        dates"), nor what a naming slot's words describe."""
        naming = self.description[:1] and self.description[0] in NAMING_STEMS
        return self.qualifiers if naming or self.value_type != "text" else self.own

    @cached_property
    def named_with(self) -> frozenset[str]:
        """The words a user may name the slot with: its description's, its name's ("redeye"
        of is_redeye) and two description words run together ("redeye" of "red-eye")."""
        name = {stem(w) for w in self.name.lower().split("_")} - STOP - FUNCTION_WORDS
        joined = {a + b for a, b in zip(self.description, self.description[1:], strict=False)}
        return self.description_set | name | joined


NAMING_STEMS = frozenset(stem(w) for w in NAMING)  # "name", "title" as descriptions hold them

# English function words a description may hold beside STOP ("Whether pets are allowed",
# "Boolean flag indicating if the hotel has wifi"): never a slot's own word
_FUNCTION = "if whether not no has have had ha do doe does is are was were be been there their "
FUNCTION_WORDS = frozenset(
    (_FUNCTION + "thi this these those other which what who where when how why than so all").split()
)


# English interjections and chat fillers ("meh, something else?", "thx"): never a value alone
_FILLERS = (
    "meh thx thanks thank ty lol haha hmm hmmm yo ok okay k kk yeah yep yup nope nah",
    "sure cool great nice hey hi hello ugh oh ah um uh pls plz please wow awesome perfect",
    "alright fine whatever",
)
INTERJECTIONS = frozenset(" ".join(_FILLERS).split())


def slot_views(schema: ServiceSchema) -> list[SlotView]:
    inputs = {s for i in schema.intents for s in (*i.required_slots, *i.optional_slots)}
    roles = slot_roles(schema)
    described = {}
    for slot in schema.slots:
        words = [stem(t.lower) for t in tokenise(slot.description) if t.word]
        described[slot.name] = tuple(dict.fromkeys(w for w in words if w not in STOP))[:8]
    out = []
    for slot in schema.slots:
        others = {w for name, words in described.items() if name != slot.name for w in words}
        own = frozenset(described[slot.name]) - others - FUNCTION_WORDS
        out.append(
            SlotView(
                slot.name,
                described[slot.name],
                roles[slot.name].value_type,
                slot.is_categorical,
                tuple(slot.possible_values),
                slot.name in inputs,
                own,
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

    @cached_property
    def lowers(self) -> tuple[str, ...]:
        """Every token in lower case, in order."""
        return tuple(t.lower for t in self.tokens)

    @cached_property
    def typed_in_lower_case(self) -> bool:
        """Whether the turn holds no capital letter, as many people type in a chat: there a
        word's shape says nothing of whether it is a name."""
        return not any(c.isupper() for c in self.text)

    @cached_property
    def shapes(self) -> tuple[str, ...]:
        """Each token's shape; marked "~" in a turn typed in lower case, so that the scorers
        learn what shapes say in each kind of turn apart."""
        mark = "~" if self.typed_in_lower_case else ""
        return tuple(mark + t.shape for t in self.tokens)

    @cached_property
    def _padded(self) -> tuple[str, ...]:
        return ("^", "^", *self.lowers, "$", "$")

    def around(self, i: int, j: int) -> tuple[str, str, str, str]:
        """The two tokens before tokens ``i`` to ``j`` and the two after, in lower case ("^"
        and "$" beyond the utterance's ends)."""
        padded = self._padded
        return padded[i], padded[i + 1], padded[j + 2], padded[j + 3]

    def span_shape(self, i: int, j: int) -> str:
        """The shapes of tokens ``i`` to ``j``, joined and cut to 12 characters."""
        return "_".join(self.shapes[i:j])[:12]

    @cached_property
    def content_set(self) -> frozenset[str]:
        return frozenset(self.content)

    @cached_property
    def stems(self) -> tuple[str, ...]:
        """The stem of every token, in order."""
        return tuple(stem(t.lower) for t in self.tokens)

    @cached_property
    def singulars(self) -> tuple[str, ...]:
        """The stem of every token, a plural in "-ies" as its singular in "-y" ("comedies"
        says "Comedy"; ``stem`` keeps "comedie", as "movies" must stay "movie")."""
        return tuple(
            t.lower[:-3] + "y" if len(t.lower) > 4 and t.lower.endswith("ies") else s
            for t, s in zip(self.tokens, self.stems, strict=True)
        )

    @cached_property
    def stem_starts(self) -> dict[str, list[int]]:
        """The stem of each token, and its singular -> the indices of the tokens with it, in
        order."""
        starts: dict[str, list[int]] = {}
        for n, (s, one) in enumerate(zip(self.stems, self.singulars, strict=True)):
            starts.setdefault(s, []).append(n)
            if one != s:
                starts.setdefault(one, []).append(n)
        return starts

    @cached_property
    def word_stems(self) -> tuple[str, ...]:
        """The stems of its words and numbers (no punctuation), in order."""
        return tuple(s for t, s in zip(self.tokens, self.stems, strict=True) if t.word)

    @cached_property
    def prefixes(self) -> frozenset[str]:
        """The first five letters of each of its words, the way ``mention`` compares them."""
        return frozenset(t.lower[:5] for t in self.tokens if t.word)

    @cached_property
    def first_prefix(self) -> dict[str, int]:
        """The first five letters of each token -> the index of the first token with them."""
        first: dict[str, int] = {}
        for n, t in enumerate(self.tokens):
            first.setdefault(t.lower[:5], n)
        return first

    @cached_property
    def yes_no(self) -> tuple[bool, bool]:
        """Whether it holds a yes word, and a no word."""
        return any(t.lower in _YES for t in self.tokens), any(t.lower in _NO for t in self.tokens)

    def negated(self, words: frozenset[str]) -> int:
        """Whether a negating word stands within three tokens before one of ``words`` (stems,
        in any of their forms: ``text.root``) in the turn: 1, 0, or -1 when none of them is
        said ("doesn't allow pets", "no sharing")."""
        roots = {root(w) for w in words}
        hits = [k for k, s in enumerate(self.stems) if s in words or root(s) in roots]
        if not hits:
            return -1
        return int(any(is_no(self.lowers[m]) for k in hits for m in range(max(k - 3, 0), k)))

    def said(self, i: int, j: int) -> str:
        """The text of tokens ``i`` to ``j`` (exclusive), as written."""
        return self.text[self.tokens[i].start : self.tokens[j - 1].end]

    def said_normalised(self, i: int, j: int) -> str:
        """``normalised(self.said(i, j))``, from the words of the whole text already read
        (a token can hold several: "$1,630" holds 1 and 630); remembered, as the reader
        asks it of a span several times."""
        found = self._normalised_spans.get((i, j))
        if found is None:
            if self._token_words is None:
                found = normalised(self.said(i, j))
            else:
                words, first = self._token_words
                found = " ".join(words[first[i] : first[j]])
            self._normalised_spans[i, j] = found
        return found

    @cached_property
    def _normalised_spans(self) -> dict[tuple[int, int], str]:
        return {}

    @cached_property
    def _token_words(self) -> tuple[tuple[str, ...], tuple[int, ...]] | None:
        """The words of ``normalised(self.text)`` and the index of the first word of each
        token (and one past the last); None when a word runs over two tokens ("1,2345" is
        the tokens "1,234" and "5" but the words 1 and 2345), where only reading the span's
        text again gives ``normalised`` of it."""
        words: list[str] = []
        first = []
        matches = list(_WORDS.finditer(self.text))
        m = 0
        for token in self.tokens:
            first.append(len(words))
            while m < len(matches) and matches[m].start() < token.end:
                if matches[m].end() > token.end:
                    return None
                words.append(_word(matches[m]))
                m += 1
        first.append(len(words))
        return tuple(words), tuple(first)


TOLD = frozenset({"OFFER", "INFORM"})  # system acts giving values of the service's results


def value_turn(
    text: str,
    system_acts: Sequence[tuple[str, str, Sequence[str]]],
    known: Mapping[str, frozenset[str]],
) -> ValueTurn:
    """``system_acts``: (act, slot, values) of the system's last turn on this service.
    ``known``: the backend's values; the values the system's last turn offered or told for
    a slot, values of its results, are known as that slot's too ("green book sounds great"
    after "how about family, gloria bell or green book?" names a title, not a director, on
    a service whose values the reader was given none of). Not those it asks the user to
    confirm: they are the user's own words as read, maybe misread, which the answer may
    correct ("austin cinema" confirmed, "no, austin cinema 8")."""
    slot_acts: dict[str, list[tuple[str, Sequence[str]]]] = {}
    told: dict[str, frozenset[str]] = {}
    for a, slot, values in system_acts:
        if slot:
            slot_acts.setdefault(slot, []).append((a, values))
            for value in values if a in TOLD else ():
                if value != DONTCARE and (norm := normalised(value)):
                    told[norm] = told.get(norm, known.get(norm, frozenset())) | {slot}
    asked = frozenset(s for a, s, _ in system_acts if a == "REQUEST" and s)
    known = ChainMap(told, known) if told else known  # type: ignore[arg-type]  # read only
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
    if all(word_number(w) is not None for w in words):
        return "num"
    if parse_date(text, _ANY_DAY) is not None:
        return "date"
    if parse_time(text) is not None:
        return "time"
    return "count" if parse_count(text) is not None else "text"


def candidate_spans(tokens: Sequence[Token]) -> list[tuple[int, int]]:
    """Every span of up to MAX_SPAN tokens that starts and ends on a word (a closing "!" or
    "." may end it) within one sentence: "ok back to the hotel. 2 nights" holds no value
    across its full stop, while "st. louis" and "dr. lee" keep theirs."""
    out = []
    for i, first in enumerate(tokens):
        if not first.word:
            continue
        for j in range(i + 1, min(i + MAX_SPAN, len(tokens)) + 1):
            last = tokens[j - 1]
            if last.word or (j - 1 > i and last.text in "!.?" and tokens[j - 2].word):
                out.append((i, j))
            if j - 1 > i and _ends_sentence(tokens, j - 1):
                break
    return out


def _ends_sentence(tokens: Sequence[Token], k: int) -> bool:
    """Token ``k`` ends a sentence: "!" or "?", or "." after a number or a word longer than
    an abbreviation's three letters (SGD train's values hold "." inside after "dr", "st",
    "ste" and initials only)."""
    text, before = tokens[k].text, tokens[k - 1].text if k else ""
    return text in ("!", "?") or (text == "." and (len(before) > 3 or before.isdigit()))


def span_strings(turn: ValueTurn, i: int, j: int, asked_types: Sequence[str]) -> list[str]:
    """The features of the span of tokens ``i`` to ``j`` (exclusive) being a value."""
    start, end = span_start_strings(turn, i, asked_types), span_end_strings(turn, j)
    length = span_length_strings(min(j - i, 6), asked_types)
    return start + end + length + span_pair_strings(turn, i, j, asked_types)


def span_start_strings(turn: ValueTurn, i: int, asked_types: Sequence[str]) -> list[str]:
    """The features of a span that depend on where it starts only (shared by the spans that
    start there)."""
    p2, p1 = turn.around(i, i)[:2]
    first, shape = turn.lowers[i], turn.shapes[i]
    out = [f"f:{first}", f"p:{p1}", f"pp:{p2}_{p1}", f"fs:{shape}", f"pf:{p1}|{first}"]
    out.append(f"ps:{p1}|{shape}")
    return out + [f"rp:{kind}|{p1}" for kind in asked_types or ("-",)]


def span_end_strings(turn: ValueTurn, j: int) -> list[str]:
    """The features of a span that depend on where it ends only."""
    n1, n2 = turn.around(j, j)[2:]
    last = turn.lowers[j - 1]
    return [f"l:{last}", f"x:{n1}", f"xx:{n1}_{n2}", f"ls:{turn.shapes[j - 1]}", f"lx:{last}|{n1}"]


def span_length_strings(n: int, asked_types: Sequence[str]) -> list[str]:
    """The features of a span that depend on its length (``n``, up to 6) only, and the
    value types of the slots the system asked for."""
    out = [f"n:{n}"]
    for kind in asked_types or ("-",):
        out += [f"r:{kind}", f"rn:{kind}|{n}"]
    return out


def span_pair_strings(turn: ValueTurn, i: int, j: int, asked_types: Sequence[str]) -> list[str]:
    """The features of a span that depend on both its ends."""
    toks = turn.tokens
    words = turn.lowers[i:j]
    n = min(j - i, 6)
    p1, n1 = turn.around(i, j)[1:3]
    shape = turn.span_shape(i, j)
    out = [f"fl:{words[0]}|{words[-1]}", f"px:{p1}|{n1}", f"sh:{shape}", f"pn:{p1}|{n}"]
    out += [f"in:{w}" for w in words[1:-1][:4]]
    if i == 0 and j == len(toks) or (i == 0 and j == len(toks) - 1 and not toks[-1].word):
        out.append(f"all:{n}")
    if turn.said_normalised(i, j) in turn.known:
        out += ["kv", f"kv:{n}"]
    if n <= 3 and any("d" in t.shape for t in toks[i:j]):
        # what a short span holding a number reads as ("7am" a time, "march 6th" a date,
        # "3 people" a count), by the value recognisers
        out.append(f"vc:{value_class(turn.said(i, j))}|{n}")
    return out + [f"rs:{kind}|{shape}" for kind in asked_types or ("-",)]


def span_pair_scores(
    turn: ValueTurn, spans: Sequence[tuple[int, int]], asked_types: Sequence[str], weights: Weights
) -> list[float]:
    """For each span, the sum of the weights of ``span_pair_strings(turn, i, j,
    asked_types)``, added in the same order (so equal to the row's score to the last bit).
    A feature that several spans share (an inner word, a shape, a shape with an asked type)
    is weighed once per turn; the first and last words, and the words around, are hashed
    from the CRC of their first part, as ``hashed_crossed`` does."""
    if not spans:
        return []
    toks, lowers, padded = turn.tokens, turn.lowers, turn._padded
    kinds = asked_types or ("-",)
    weight, crossed_weight = weights.of, weights.at
    first_crcs = [zlib.crc32(f"fl:{w}|".encode()) for w in lowers]
    before_crcs = [zlib.crc32(f"px:{w}|".encode()) for w in padded]
    encoded = [w.encode() for w in padded]  # token k is padded[k + 2]
    inner = [weight(f"in:{w}") for w in lowers]
    digits = ["d" in t.shape for t in toks]
    whole = len(toks) - (0 if toks[-1].word else 1)  # "all": every token, a closing mark aside
    by_shape: dict[str, tuple[float, ...]] = {}  # shape -> its sh, then its rs of each kind
    by_before: dict[tuple[str, int], float] = {}  # (word before, length) -> pn
    shared = cache(weight)  # the rarer features that spans share: all, kv, vc
    known = turn.known
    out = []
    for i, j in spans:
        n = j - i if j - i < 6 else 6
        p1 = padded[i + 1]
        shape = turn.span_shape(i, j)
        parts = by_shape.get(shape)
        if parts is None:
            parts = by_shape[shape] = (
                weight(f"sh:{shape}"),
                *(weight(f"rs:{kind}|{shape}") for kind in kinds),
            )
        before = by_before.get((p1, n))
        if before is None:
            before = by_before[p1, n] = weight(f"pn:{p1}|{n}")
        z = 0.0
        z += crossed_weight(first_crcs[i], encoded[j + 1])  # fl:first|last
        z += crossed_weight(before_crcs[i + 1], encoded[j + 2])  # px:before|after
        z += parts[0]
        z += before
        for k in range(i + 1, j - 1 if j < i + 6 else i + 5):
            z += inner[k]
        if i == 0 and j in (len(toks), whole):
            z += shared(f"all:{n}")
        if turn.said_normalised(i, j) in known:
            z += shared("kv")
            z += shared(f"kv:{n}")
        if n <= 3 and any(digits[i:j]):
            z += shared(f"vc:{value_class(turn.said(i, j))}|{n}")
        for rs in parts[1:]:
            z += rs
        out.append(z)
    return out


def assign_strings(turn: ValueTurn, i: int, j: int, slot: SlotView, same_type: int) -> list[str]:
    """The features of the span of tokens ``i`` to ``j`` filling ``slot``: the words around
    the span and its own words crossed with the slot's description, and the rest."""
    context, span = assign_words(turn, i, j)
    # the word before the span, function words included, against the description: "from"
    # goes with "origin" and "departure", "to" with "destination" ("from" is no context word)
    before = turn.around(i, j)[1:2]
    return (
        crossed("cd", context, slot.description)
        + crossed("pd", before, slot.description)
        + crossed("sd", span, slot.description)
        + assign_slot_strings(turn, i, j, slot, same_type, context)
    )


def assign_features(
    turn: ValueTurn, i: int, j: int, slot: SlotView, same_type: int, bits: int
) -> list[int]:
    """``hashed(assign_strings(...), bits)``, the crossed words hashed without strings."""
    context, span = assign_words(turn, i, j)
    return [
        *hashed_crossed("cd", context, slot.description, bits),
        *hashed_crossed("pd", turn.around(i, j)[1:2], slot.description, bits),
        *hashed_crossed("sd", span, slot.description, bits),
        *hashed(assign_slot_strings(turn, i, j, slot, same_type, context), bits),
    ]


def assign_words(turn: ValueTurn, i: int, j: int) -> tuple[list[str], list[str]]:
    """The stems of the content words around a span (two either side, and the third before
    it), and of its first three words."""
    toks = turn.tokens
    p2, p1, n1, n2 = turn.around(i, j)
    context = list(dict.fromkeys(stem(w) for w in (p2, p1, n1, n2) if w not in STOP))
    if i >= 3:
        context.append(stem(toks[i - 3].lower))
    return context, [stem(t.lower) for t in toks[i:j] if t.word][:3]


def assign_slot_strings(
    turn: ValueTurn, i: int, j: int, slot: SlotView, same_type: int, context: list[str]
) -> list[str]:
    """The words around the span that the slot's description holds, the slot's value type
    against the span's shape, length and the word before it, the system's acts on the slot,
    whether the backend knows the span as a value of this slot or of another."""
    p1 = turn.around(i, j)[1]
    shape = turn.span_shape(i, j)
    acts = [a for a, _ in turn.slot_acts.get(slot.name, ())] or ["-"]
    asked = slot.name in turn.asked
    value = turn.said_normalised(i, j)
    known_here = slot.name in turn.known.get(value, ())
    known_other = bool(turn.known.get(value, frozenset()) - {slot.name})
    overlap = set(context) & set(slot.description)
    out = [f"o:{w}" for w in overlap] + [f"ov:{min(len(overlap), 2)}|{int(asked)}"]
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
    return {n for t in turn.tokens if (n := word_number(t.lower)) is not None}


@dataclass(frozen=True)
class ValueForm:
    """A value the way ``mention`` looks for it: normalised, its words, a pattern that finds
    it as whole words in a normalised utterance, and the stems of its words."""

    norm: str
    words: tuple[str, ...]
    exact: re.Pattern[str]
    stems: tuple[str, ...]


@lru_cache(maxsize=8192)
def value_form(value: str) -> ValueForm:
    norm = normalised(value)
    exact = re.compile(rf"(?<![a-z0-9]){re.escape(norm)}(?![a-z0-9])")
    words = tuple(norm.split())
    return ValueForm(norm, words, exact, tuple(stem(w) for w in words))


def mention(value: str, turn: ValueTurn, numbers: set[str], lowered: str) -> tuple[str, int]:
    """How ``value`` appears in the utterance (exact, as a number, by the stems of all or
    some of its words, or none) and the index of the token where it starts (-1: nowhere)."""
    form = value_form(value)
    norm, words = form.norm, form.words
    if not norm:
        return "none", -1
    if norm.isdigit():
        return _number_mention(norm, turn, numbers)
    at = turn.first_prefix.get(words[0][:5], -1)
    if form.exact.search(lowered):
        return "exact", at
    value_stems, said = form.stems, turn.stems
    k = len(value_stems)
    for n in turn.stem_starts.get(value_stems[0], ()):
        if value_stems in (said[n : n + k], turn.singulars[n : n + k]):  # "museums": "Museum"
            return "exact", n
    stems = turn.prefixes
    hits = sum(w[:5] in stems for w in words)
    if hits == len(words):
        return "stems", at
    return ("part", at) if hits else ("none", -1)


def _number_mention(norm: str, turn: ValueTurn, numbers: set[str]) -> tuple[str, int]:
    """How a number value ("7") is said: as a token of its own ("exact"), in words ("seven":
    "number"), or not at all. Digits inside another token say another value: the 7 of
    "7:30", the 2 of "$2" or "1,250" (a clock time read as 7 seats had booked a table for 7)."""
    if norm not in numbers:
        return "none", -1
    at = next(n for n, t in enumerate(turn.tokens) if word_number(t.lower) == norm)
    return ("exact" if turn.tokens[at].lower == norm else "number"), at


def word_number(word: str) -> str | None:
    """The digits a word says ("2", "two"), else None."""
    return str(int(word)) if word.isdigit() else _NUMBER_WORDS.get(word)


def slot_strings(turn: ValueTurn, slot: SlotView) -> list[str]:
    """The part of a (slot, value) pair's features that depends on the slot only."""
    return crossed("du", slot.description, turn.content) + slot_context_strings(turn, slot)


def slot_features(turn: ValueTurn, slot: SlotView, bits: int) -> list[int]:
    """``hashed(slot_strings(turn, slot), bits)``, the crossed words hashed without strings."""
    crossed_words = hashed_crossed("du", slot.description, turn.content, bits)
    return crossed_words + hashed(slot_context_strings(turn, slot), bits)


def slot_context_strings(turn: ValueTurn, slot: SlotView) -> list[str]:
    """The slot's part but its description's words crossed with the utterance's: their
    overlap, the system's acts on the slot, whether it asked for it."""
    asked = int(slot.name in turn.asked)
    overlap = set(turn.content) & set(slot.description)
    out = [f"o:{w}|{asked}" for w in overlap]
    out += [f"a:{a}" for a, _ in turn.slot_acts.get(slot.name, ())]
    out += [f"asked:{asked}|{int(bool(turn.asked))}", f"ov:{min(len(overlap), 2)}|{asked}"]
    return out


def value_strings(
    turn: ValueTurn, slot: SlotView, value: str, numbers: set[str], lowered: str
) -> list[str]:
    """The part of a (slot, value) pair's features that depends on the value: how it is
    mentioned, its words crossed with the utterance's, yes/no cues, the system's acts."""
    facts, at = _mention_facts(turn, slot, value, numbers, lowered)
    beside = _beside_facts(turn, slot, value, at)
    return (
        mention_strings(*facts)
        + crossed("vu", value_words(value), turn.word_stems)
        + (beside_strings(*beside) if beside else [])
        + yes_no_strings(*_yes_no_facts(turn, slot, value))
        + value_act_strings(turn, slot, value)
    )


def value_features(
    turn: ValueTurn, slot: SlotView, value: str, numbers: set[str], lowered: str, bits: int
) -> list[int]:
    """``hashed(value_strings(...), bits)``: ``slot_value_features`` of one value."""
    return slot_value_features(turn, slot, [value], numbers, lowered, bits)[0]


def slot_value_features(
    turn: ValueTurn,
    slot: SlotView,
    values: Sequence[str],
    numbers: set[str],
    lowered: str,
    bits: int,
) -> list[list[int]]:
    """``hashed(value_strings(...), bits)`` of each of a slot's ``values``, with fewer
    strings built: what depends on the slot alone is worked out once, the mention and
    yes/no features are remembered by what they depend on, the crossed words hashed
    without strings."""
    asked = int(slot.name in turn.asked)
    desc = slot.description_set
    overlap = min(len(turn.content_set & desc), 2)
    has_acts = slot.name in turn.slot_acts
    yes, no = turn.yes_no
    stems, word_stems = turn.stems, turn.word_stems
    rows = []
    for value in values:
        vt = _value_type(slot, value)
        kind, at = ("dontcare", -1) if value == DONTCARE else mention(value, turn, numbers, lowered)
        # A description word next to the value ("2 nights", "rated 4") ties it to this slot.
        near = int(any(s in desc for s in stems[max(at - 2, 0) : at + 3])) if at >= 0 else 0
        words = value_words(value)
        row = [
            *_hashed_mention(kind, vt, asked, overlap, near, bits),
            *_hashed_value_words(words, word_stems, bits),
        ]
        if at >= 0:
            before, after = beside_stems(turn, at, at + len(words))
            row += _hashed_beside(before, after, slot.value_type, asked, slot.description, bits)
        if vt in YES_NO_TYPES:
            row += _hashed_yes_no(value, vt, yes, no, asked, slot.description, bits)
        if has_acts:
            row += hashed(value_act_strings(turn, slot, value), bits)
        rows.append(row)
    return rows


@lru_cache(maxsize=1024)
def _hashed_value_words(
    words: tuple[str, ...], stems: tuple[str, ...], bits: int
) -> tuple[int, ...]:
    """The value's words crossed with the utterance's, remembered: every slot of a turn
    takes ``dontcare`` (and every yes/no slot "True" and "False")."""
    return tuple(hashed_crossed("vu", words, stems, bits))


def value_words(value: str) -> tuple[str, ...]:
    """The words of a value that are crossed with the utterance's."""
    return ("<dontcare>",) if value == DONTCARE else value_form(value).words[:3]


def _value_type(slot: SlotView, value: str) -> str:
    return "dc" if value == DONTCARE else slot.value_type


def _mention_facts(
    turn: ValueTurn, slot: SlotView, value: str, numbers: set[str], lowered: str
) -> tuple[tuple[str, str, int, int, int], int]:
    """How the value is mentioned, its value type, whether the system asked for the slot,
    how many of the utterance's content words the slot's description holds (up to 2),
    whether a description word stands near the value; and the token where it starts (-1:
    nowhere)."""
    asked = int(slot.name in turn.asked)
    kind, at = ("dontcare", -1) if value == DONTCARE else mention(value, turn, numbers, lowered)
    desc = slot.description_set
    # A description word next to the value ("2 nights", "rated 4") ties it to this slot.
    near = [s in desc for s in turn.stems[max(at - 2, 0) : at + 3]] if at >= 0 else []
    overlap = min(len(turn.content_set & desc), 2)
    return (kind, _value_type(slot, value), asked, overlap, int(any(near))), at


def mention_strings(kind: str, vt: str, asked: int, overlap: int, near: int) -> list[str]:
    out = [f"m:{kind}|{vt}", f"m:{kind}|{asked}", f"m:{kind}|{vt}|{asked}"]
    return out + [f"mo:{kind}|{overlap}|{asked}", f"near:{kind}|{near}|{asked}"]


@lru_cache(maxsize=4096)
def _hashed_mention(
    kind: str, vt: str, asked: int, overlap: int, near: int, bits: int
) -> tuple[int, ...]:
    return tuple(hashed(mention_strings(kind, vt, asked, overlap, near), bits))


def _beside_facts(
    turn: ValueTurn, slot: SlotView, value: str, at: int
) -> tuple[str, str, str, int, tuple[str, ...]] | None:
    """The stems of the tokens right before and after a value found at token ``at``, its
    value type, whether the system asked for the slot, the slot's description words; None
    for a value not found."""
    if at < 0:
        return None
    before, after = beside_stems(turn, at, at + len(value_words(value)))
    return before, after, slot.value_type, int(slot.name in turn.asked), slot.description


def beside_stems(turn: ValueTurn, start: int, end: int) -> tuple[str, str]:
    """The stems of the token right before token ``start`` and of token ``end`` (the one
    right after a value said at ``start`` to ``end``); "^" and "$" beyond the turn's ends."""
    before = turn.stems[start - 1] if start >= 1 else "^"
    after = turn.stems[end] if end < len(turn.tokens) else "$"
    return before, after


def beside_strings(
    before: str, after: str, vt: str, asked: int, desc: tuple[str, ...]
) -> list[str]:
    """The words right beside a value ("8 people" is a party's size, "7 pm" a time)."""
    out = [f"nx:{after}|{vt}", f"pv:{before}|{vt}"]
    out.append(f"adj:{int(before in desc)}{int(after in desc)}|{vt}|{asked}")
    return out


@lru_cache(maxsize=4096)
def _hashed_beside(
    before: str,
    after: str,
    vt: str,
    asked: int,
    desc: tuple[str, ...],
    bits: int,
) -> tuple[int, ...]:
    return tuple(hashed(beside_strings(before, after, vt, asked, desc), bits))


def _yes_no_facts(
    turn: ValueTurn, slot: SlotView, value: str
) -> tuple[str, str, bool, bool, int, tuple[str, ...]]:
    yes, no = turn.yes_no
    asked = int(slot.name in turn.asked)
    return value, _value_type(slot, value), yes, no, asked, slot.description


def yes_no_strings(
    value: str, vt: str, yes: bool, no: bool, asked: int, description: tuple[str, ...]
) -> list[str]:
    """Yes/no cues for a boolean slot or dontcare, and the value with the slot's
    description words."""
    if vt not in YES_NO_TYPES:
        return []
    return [f"yn:{value}|{int(yes)}|{int(no)}|{asked}"] + [f"dv:{d}|{value}" for d in description]


@lru_cache(maxsize=4096)
def _hashed_yes_no(
    value: str, vt: str, yes: bool, no: bool, asked: int, description: tuple[str, ...], bits: int
) -> tuple[int, ...]:
    return tuple(hashed(yes_no_strings(value, vt, yes, no, asked, description), bits))


def value_act_strings(turn: ValueTurn, slot: SlotView, value: str) -> list[str]:
    """The system's acts on the slot, and whether they carried the value."""
    out = []
    for a, values in turn.slot_acts.get(slot.name, ()):
        said = any(value_form(v).norm == value_form(value).norm for v in values)
        out.append(f"sv:{a}|{int(said)}|{_value_type(slot, value)}")
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
