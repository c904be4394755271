"""The value reader: the span, assign and pick scorers of ``values.py`` put to work on a turn,
spans first, then each categorical slot's best value that no span took."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace

from tod_runtime.dialogue.models import DONTCARE
from tod_runtime.nlu.learned.features import hashed
from tod_runtime.nlu.learned.model import (
    NLUModel,
    Weights,
    grouped_scores,
    probabilities,
    sigmoid,
)
from tod_runtime.nlu.learned.reading import ON_TABLE
from tod_runtime.nlu.learned.spelling import WORD, read_vocabulary
from tod_runtime.nlu.learned.text import ABOUT_IT, RARE, STOP, root
from tod_runtime.nlu.learned.values import (
    FUNCTION_WORDS,
    INTERJECTIONS,
    SlotView,
    Token,
    ValueTurn,
    assign_features,
    beside_stems,
    candidate_spans,
    mention,
    normalised,
    slot_features,
    slot_value_features,
    span_end_strings,
    span_length_strings,
    span_pair_scores,
    span_start_strings,
    value_numbers,
    word_number,
)
from tod_runtime.nlu.rules import CANCELS, OTHER_THAN_OFFERED, QUESTION, plain_words

MOST_PAIRS = 12  # the pairs ``best_pairs`` weighs together (the rest are read greedily)


@dataclass(frozen=True)
class Read:
    slot: str
    value: str  # as the user wrote it (a categorical slot: the possible value)
    canonical: str
    score: float
    tokens: range = range(0)  # where it was said (none: dontcare, or a yes/no slot)


def said_beside(
    turn: ValueTurn, slot: SlotView, value: str, numbers: set[str], lowered: str
) -> bool:
    """Whether ``value`` is said (exactly or as a number) with one of the slot's description
    words right before or after it ("five star", "2 nights")."""
    kind, at = mention(value, turn, numbers, lowered)
    if kind not in ("exact", "number") or at < 0:
        return False
    near = beside_stems(turn, at, at + len(normalised(value).split()))
    return not slot.description_set.isdisjoint(near)


def names_slots(turn: ValueTurn, i: int, j: int, described: frozenset[str]) -> bool:
    """Whether tokens ``i`` to ``j`` say nothing but words of the service's slot descriptions
    (``described``, stems) and function words: "what's the name of the theater?" speaks of
    slots, it gives no value. A value the service knows is a value all the same (a cuisine
    described "Type of food, e.g. Italian")."""
    if turn.said_normalised(i, j) in turn.known:
        return False
    tokens = zip(turn.tokens[i:j], turn.stems[i:j], strict=True)
    said = [(s in described, t.lower in STOP) for t, s in tokens if t.word]
    return any(d for d, _ in said) and all(d or stop for d, stop in said)


# a place pointed at after a preposition: "is there live music at that restaurant?"
AT_THAT = re.compile(r"\b(?:at|in|of|for|from|about) (?:that|this) \w+")


def says_flag(turn: ValueTurn, slot: SlotView) -> bool:
    """Whether the turn says a yes/no slot's own description words (those no other slot of
    the service is described with: "pets" of "Whether pets are allowed at the hotel", "live"
    and "music" of "Whether the restaurant has live music"), in any of their forms
    ("sharing" of "shared"): "hotels that take pets", or negated, "no sharing please" (read
    as True here, turned into False by the negation after). Not in a question about what the
    system's last turn put on the table by a pronoun ("is it free to get in?" after an
    offer asks, it does not filter, nor does "is there live music at that restaurant?"; "are
    there any that allow pets?" filters)."""
    if slot.value_type != "bool" or {root(w) for w in slot.own}.isdisjoint(
        root(s) for s in turn.stem_starts
    ):
        return False
    offered = any(a in ON_TABLE for acts in turn.slot_acts.values() for a, _ in acts)
    lower = turn.text.lower()
    pointed = ABOUT_IT.search(lower) or AT_THAT.search(lower)
    about = offered and QUESTION.search(lower) and pointed
    return not about


WITH = frozenset({"with", "without", "no"})  # "with subtitles", "no wifi": a feature had or not

# words before "one" that make it a pronoun ("that one", "another one"), not a count
_ONE_AFTER = "that this the which another other same next last first any each"
ONE_AFTER = frozenset(_ONE_AFTER.split())


def pronoun_one(turn: ValueTurn, read: Read) -> bool:
    """Whether ``read`` is the word "one" standing for a thing ("ok get tickets for that
    one" after a bus was offered is no party of one)."""
    if len(read.tokens) != 1 or turn.tokens[read.tokens[0]].lower != "one":
        return False
    before = [t.lower for t in turn.tokens[: read.tokens[0]] if t.word]
    return bool(before) and before[-1] in ONE_AFTER


def says_flag_phrase(turn: ValueTurn, slot: SlotView) -> bool:
    """Whether the turn says a yes/no slot's own description word next to another word of
    its description ("a shared ride" of "Boolean flag whether ride is shared with other
    passengers", "live music", "free wifi") or after "with", "without" or "no" ("play it
    with subtitles"; the negation after reads "no subtitles" False), outside a question
    about what is on the table (``says_flag``): a phrase the slot's description makes, read
    True however little the scorer, never fitted on the service, makes of it."""
    if slot.value_type != "bool" or not says_flag(turn, slot):
        return False
    words = turn.word_stems
    own, described = slot.own, slot.description_set
    return any(
        ({a, b} <= described and bool({a, b} & own) and a != b) or (a in WITH and b in own)
        for a, b in zip(words, words[1:], strict=False)
    )


# words a name never ends with: "dinner with" is "dinner with sam" cut short
_TRAILING = "with at in on for to from of and or the a an by"
TRAILING = frozenset(_TRAILING.split())


def whole_name(turn: ValueTurn, i: int, j: int, taken: AbstractSet[int]) -> tuple[int, int]:
    """Tokens ``i`` to ``j`` of a free-text value, with the words after a last word no name
    ends with (``TRAILING``) taken up to the next punctuation, function word, number or token
    another value holds ("put dinner with sam in my calendar": "dinner with sam", not "dinner
    with"); without such words, that last word left out. Not after punctuation ("portland,
    or": a state's code)."""
    tokens = turn.tokens
    if j - i < 2 or tokens[j - 1].lower not in TRAILING or not tokens[j - 2].word:
        return i, j
    end = j
    while (
        end < len(tokens)
        and tokens[end].word
        and tokens[end].lower not in STOP
        and not tokens[end].lower[:1].isdigit()
        and end not in taken
    ):
        end += 1
    return (i, end) if end > j else (i, j - 1)


def without_qualifier(turn: ValueTurn, i: int, j: int, qualifiers: AbstractSet[str]) -> int:
    """The end of a value read at tokens ``i`` to ``j``, without a last word that is one of
    ``qualifiers``, the slot's (``SlotView.qualifiers``: "japanese food" for a cuisine
    described "Cuisine of food served in the restaurant": "japanese"). A word several slots
    are described with stays ("Hilton Hotel": "hotel" describes every slot of a hotel
    service), as does the head of the description ("New York City" for "City where event is
    happening": the first version cut it to "New York", fold 3 -0.003)."""
    if j - i >= 2 and turn.tokens[j - 2].word and turn.stems[j - 1] in qualifiers:
        return j - 1
    return j


# English function words and pronouns: no value's content ("her" of "i don't like her music")
_PERSONAL = "he she him her his hers its our ours your yours they them us"
PERSONAL_PRONOUNS = frozenset(_PERSONAL.split())  # not repairs.PRONOUNS, a question's subjects
NOT_CONTENT = FUNCTION_WORDS | STOP | PERSONAL_PRONOUNS


KIND_OF = frozenset((kind, "of") for kind in ("kind", "kinds", "type", "types", "sort", "sorts"))
QUALIFIED_FLOOR = 0.05  # of the span threshold, for a span a slot's qualifier follows


def by_qualifier(turn: ValueTurn, i: int, j: int, qualifiers: AbstractSet[str]) -> bool:
    """Whether tokens ``i`` to ``j`` end with one of a slot's ``qualifiers`` after other
    words, or are followed by one ("african food", "african" of "african food"; "punjabi"
    of "punjabi kind of food": fold 3's replay 0.668408 -> 0.672196), that ends the phrase
    (not "concord music hall"), the span holding no function word ("hunan impression has
    great food")."""
    tokens, stems = turn.tokens, turn.stems
    at = j - 1 if j - i >= 2 and stems[j - 1] in qualifiers else j
    if at == j and tuple(t.lower for t in tokens[j : j + 2]) in KIND_OF:
        at = j + 2  # "pizza kind of food"
    if at >= len(stems) or stems[at] not in qualifiers:
        return False
    if any(t.lower in NOT_CONTENT for t in tokens[i : min(at, j)]):
        return False
    after = tokens[at + 1] if at + 1 < len(tokens) else None
    return after is None or not after.word or after.lower in NOT_CONTENT


def answer_to_asked(
    turn: ValueTurn,
    slots: Sequence[SlotView],
    likeliest: Sequence[tuple[float, int, int, str]],
    chosen: Sequence[Pair],
) -> list[Pair]:
    """The answer to the one free-text slot the system just asked for that no pair took
    ("Sushi sounds good right now." to "What are you in the mood for: Mexican, Chinese, or
    something else?"): the likeliest span left, when of every open slot the asked one fits it
    best, however little the scorer, never fitted on the service, makes of it. Not a
    question back ("what's the number of nights?") nor in a turn calling the task off
    (``answers``), nor a span the backend knows as another slot's value or that is a
    possible value of a categorical slot ("i like mexican" asked for a restaurant's name).
    ``likeliest``: each span's probability, bounds and best slot."""
    open_text = (s for s in slots if not s.categorical and s.value_type == "text")
    asked = [s.name for s in open_text if s.name in turn.asked]
    if len(asked) != 1 or any(name == asked[0] for *_, name in chosen):
        return []
    if not answers(turn.text.lower()):
        return []
    listed = {normalised(v) for s in slots if s.categorical for v in s.values}
    taken = {k for _, i, j, _ in chosen for k in range(i, j)}
    free = [
        x
        for x in likeliest
        if taken.isdisjoint(range(x[1], x[2]))
        and any(t.word and t.lower not in NOT_CONTENT for t in turn.tokens[x[1] : x[2]])
        and turn.known.get(said := turn.said_normalised(x[1], x[2]), {asked[0]}) == {asked[0]}
        and said not in listed
    ]
    if not free:
        return []
    p, i, j, best = max(free)
    return [(p, i, j, best)] if best == asked[0] else []


def answers(lower: str) -> bool:
    """Whether a turn may answer the system's question: not a question back ("what about X?"
    answers), nor a turn calling the task off ("no wait, cancel that, the game got
    postponed")."""
    if QUESTION.search(lower) and not OTHER_THAN_OFFERED.search(lower):
        return False
    return CANCELS.search(plain_words(lower)) is None


def says_nothing(turn: ValueTurn, i: int, j: int) -> bool:
    """Whether tokens ``i`` to ``j`` are interjections and function words only ("meh",
    "thx", "ok so"): no value, unless the backend knows it as one."""
    if turn.said_normalised(i, j) in turn.known:
        return False
    words = [t.lower for t in turn.tokens[i:j] if t.word]
    return all(w in INTERJECTIONS or w in STOP for w in words)


Pair = tuple[float, int, int, str]  # (span x assign probability, start, end, slot)


def best_pairs(pairs: Sequence[Pair], most: int = MOST_PAIRS) -> list[Pair]:
    """The (span, slot) pairs read: no two overlapping, one per slot, of the highest total
    probability ("weather in paris tomorrow": "paris" for the city and "tomorrow" for the
    date, 0.33 + 0.31, over "paris tomorrow" for the city, 0.36, which the likeliest pair
    first would keep). Weighed among the ``most`` likeliest pairs (a tie keeps the likeliest
    first), the rest added likeliest first. On train's held-out replay no turn reads otherwise
    than likeliest first: few turns have two overlapping pairs worth more together."""
    ordered = sorted(pairs, key=lambda pair: -pair[0])
    ranked = ordered[:most]
    best: tuple[float, list[Pair]] = (0.0, [])

    def search(k: int, total: float, chosen: list[Pair], left: float) -> None:
        nonlocal best
        if total > best[0] + 1e-9:
            best = (total, list(chosen))
        if k == len(ranked) or total + left <= best[0] + 1e-9:
            return
        pair = ranked[k]
        if _fits(pair, chosen):
            chosen.append(pair)
            search(k + 1, total + pair[0], chosen, left - pair[0])
            chosen.pop()
        search(k + 1, total, chosen, left - pair[0])

    search(0, 0.0, [], sum(pair[0] for pair in ranked))
    chosen = best[1]
    for pair in ordered[most:]:
        if _fits(pair, chosen):
            chosen.append(pair)
    return chosen


def _fits(pair: Pair, chosen: Sequence[Pair]) -> bool:
    """Whether ``pair`` neither overlaps a chosen pair's span nor fills a chosen slot."""
    _, i, j, name = pair
    return all(name != c[3] and (j <= c[1] or c[2] <= i) for c in chosen)


class ValueReader:
    """Reads a turn's values with the model's span, assign and pick scorers."""

    def __init__(
        self, model: NLUModel, vocabulary: tuple[Mapping[str, int], Mapping[str, int]] | None = None
    ) -> None:
        # how often each word is said in SGD train's turns, and in talk outside the values
        # (``read_vocabulary``; the one shipped in the package when none is given)
        self.counts, self.talk = vocabulary or read_vocabulary()
        self.spans, self.assign, self.pick = (model.weights[k] for k in ("spans", "assign", "pick"))
        self.bits = model.bits
        self.span_weights = Weights(self.spans, self.bits)
        self.thresholds = model.thresholds

    def read(self, turn: ValueTurn, slots: Sequence[SlotView]) -> list[Read]:
        """The values of the turn: spans first; then, best first, each categorical slot's
        value whose words no span or better-scoring slot took ("2 nights" fills one slot)."""
        out = [read for read in self.read_spans(turn, slots) if not pronoun_one(turn, read)]
        taken = {n for read in out for n in read.tokens}
        for read in sorted(self.read_categorical(turn, slots), key=lambda r: -r.score):
            if pronoun_one(turn, read):
                continue
            if taken & set(read.tokens):
                # "1 room for 1 night": the value said again, where no read took it
                again = self._said_again(turn, read, taken)
                if not again:
                    continue
                read = replace(read, tokens=again)
            taken |= set(read.tokens)
            out.append(read)
        return out

    @staticmethod
    def _said_again(turn: ValueTurn, read: Read, taken: set[int]) -> range:
        """Another token saying the one-token value ``read`` found at a taken token."""
        if len(read.tokens) != 1:
            return range(0)
        norm = normalised(read.value)
        return next(
            (
                range(n, n + 1)
                for n, t in enumerate(turn.tokens)
                if n not in taken and norm in (t.lower, word_number(t.lower))
            ),
            range(0),
        )

    def read_spans(self, turn: ValueTurn, slots: Sequence[SlotView]) -> list[Read]:
        open_slots = [s for s in slots if not s.categorical]
        if not open_slots:
            return []
        scored = self._scored_spans(turn, slots, open_slots)
        counts = Counter(s.value_type for s in open_slots)
        # every (span, slot) pair above the assign threshold, best (span x assign) first: a
        # span goes to a slot unless a better pair took either ("from March 5th until March
        # 6th": the pickup date goes to the span that fits it best, not to the likeliest span)
        rows = [
            assign_features(turn, i, j, slot, counts[slot.value_type], self.bits)
            for _, i, j in scored
            for slot in open_slots
        ]
        qs = iter(probabilities(self.assign, rows))
        t = self.thresholds
        assign, sure, sure_assign = t.assign, t.sure_span, t.sure_assign
        spans_floor, known = self.thresholds.spans, self.thresholds.known_assign
        # a span ending with, or right before, one of the slot's qualifiers ("african food"
        # for a cuisine "Cuisine of food served"): the slot's, however little the scorer,
        # never fitted on the service, makes of it; and each span's best slot, for the
        # answer to a question (``answer_to_asked``)
        pairs, likeliest = [], []
        for p, i, j in scored:
            best: tuple[float, str] = (-1.0, "")
            for slot in open_slots:
                q = next(qs)
                best = max(best, (q, slot.name))
                low = p < spans_floor and not (q > known and slot.name in self._known(turn, i, j))
                if not low and q > (sure_assign if p >= sure else assign):
                    pairs.append((p * q, i, j, slot.name))
                elif by_qualifier(turn, i, j, slot.after_value):
                    pairs.append((p * assign, i, j, slot.name))
            if p >= spans_floor and not self._talk_only(turn, i, j):
                likeliest.append((p, i, j, best[1]))
        out: list[Read] = []
        chosen = best_pairs(pairs)
        chosen += answer_to_asked(turn, slots, likeliest, chosen)
        taken = {k for _, i, j, _ in chosen for k in range(i, j)}
        qualifiers = {s.name: s.qualifiers for s in open_slots}
        for score, i, j, name in chosen:
            if not self._known(turn, i, j):
                j = self._before_talk(turn, i, j)
                i, j = whole_name(turn, i, j, taken)
                j = without_qualifier(turn, i, j, qualifiers[name])
                if by_qualifier(turn, i, j, qualifiers[name]):
                    i = self._phrase_start(turn, i, taken)
            text = turn.said(i, j)
            out.append(Read(name, text, text, score, range(i, j)))
        return out

    def _scored_spans(
        self, turn: ValueTurn, slots: Sequence[SlotView], open_slots: Sequence[SlotView]
    ) -> list[tuple[float, int, int]]:
        """(span probability, start, end) of the spans that may hold a value of an open slot:
        above the span threshold, known to the backend as one, or words seldom said in talk
        right before a slot's qualifier above a twentieth of it ("punjabi food" on a service
        the scorer never saw); naming no slot, saying something. Held-out replay on train in
        chat conditions, folds 0 and 3, JGA: 0.564141 / 0.654243 without, 0.564078 /
        0.660770 with (a tenth: 0.660232; a fiftieth: as a twentieth)."""
        types = [s.value_type for s in open_slots if s.name in turn.asked]
        spans = candidate_spans(turn.tokens)
        described = frozenset(w for s in slots for w in s.description)
        names = {s.name for s in open_slots}
        return [
            (p, i, j)
            for (i, j), p in zip(spans, self.span_probabilities(turn, spans, types), strict=True)
            if (
                p >= self.thresholds.spans
                or self._known(turn, i, j) & names
                or (
                    p >= self.thresholds.spans * QUALIFIED_FLOOR
                    and self._qualified_name(turn, i, j, open_slots)
                )
            )
            and not names_slots(turn, i, j, described)
            and not says_nothing(turn, i, j)
        ]

    def _qualified_name(
        self, turn: ValueTurn, i: int, j: int, open_slots: Sequence[SlotView]
    ) -> bool:
        """Whether tokens ``i`` to ``j`` are right before a slot's qualifier and of words said
        in SGD train's turns mostly as (part of) a value, and seldom in talk, or never at all:
        a name's or a value's ("punjabi", "izakaya"), not a word people say ("think",
        "taking", "involving"); and the whole of such words ("asian fusion" of "for asian
        fusion food", not "fusion")."""
        if not any(by_qualifier(turn, i, j, s.after_value) for s in open_slots):
            return False
        if self._phrase_start(turn, i, frozenset()) < i:
            return False
        return all(self._rare(t) for t in turn.tokens[i:j])

    def _phrase_start(self, turn: ValueTurn, i: int, taken: AbstractSet[int]) -> int:
        """Where a value starting at token ``i`` before one of its slot's qualifiers starts:
        with the rare words right before it that no other read took ("asian" of "asian
        fusion food", where the span scorer liked "fusion" better)."""
        tokens = turn.tokens
        while i and i - 1 not in taken and tokens[i - 1].lower.isalpha():
            if tokens[i - 1].lower in NOT_CONTENT or not self._rare(tokens[i - 1]):
                break
            i -= 1
        return i

    def _before_talk(self, turn: ValueTurn, i: int, j: int) -> int:
        """The end of a value read at tokens ``i`` to ``j`` before a comma followed by a word
        only said in talk ("2190 eastridge loop" of "2190 eastridge loop, also shared"; not
        "portland, or")."""
        tokens = turn.tokens
        for k in range(i + 1, j - 1):
            if tokens[k].text == "," and self._talk_only(turn, k + 1, k + 2):
                return k
        return j

    def _talk_only(self, turn: ValueTurn, i: int, j: int) -> bool:
        """Whether tokens ``i`` to ``j`` are words said often in SGD train's turns and never
        in a value ("confirm", "please"): no answer to a question for a name or a place."""
        talk, counts = self.talk, self.counts
        words = [word for t in turn.tokens[i:j] for word in WORD.findall(t.lower)]
        return bool(words) and all(
            talk.get(word, 0) >= RARE and counts.get(word, 0) == talk[word] for word in words
        )

    def _rare(self, token: Token) -> bool:
        talk, counts = self.talk, self.counts
        return all(
            (n := talk.get(word, 0)) < RARE and 2 * n <= counts.get(word, 0) or word not in counts
            for word in WORD.findall(token.lower)  # as the vocabulary counts them: "they", "re"
        )

    @staticmethod
    def _known(turn: ValueTurn, i: int, j: int) -> frozenset[str]:
        """The slots the backend knows tokens ``i`` to ``j`` as a value of."""
        return turn.known.get(turn.said_normalised(i, j), frozenset())

    def span_probabilities(
        self, turn: ValueTurn, spans: Sequence[tuple[int, int]], types: Sequence[str]
    ) -> list[float]:
        """The probability that each span is a value: the parts of its score that depend on
        its start, its end or its length only are scored once per start, end and length."""
        starts = sorted({i for i, _ in spans})
        ends = sorted({j for _, j in spans})
        lengths = sorted({min(j - i, 6) for i, j in spans})
        start_part, end_part, length_part = grouped_scores(
            self.spans,
            [
                [hashed(span_start_strings(turn, i, types), self.bits) for i in starts],
                [hashed(span_end_strings(turn, j), self.bits) for j in ends],
                [hashed(span_length_strings(n, types), self.bits) for n in lengths],
            ],
        )
        pair_part = span_pair_scores(turn, spans, types, self.span_weights)
        start_scores = dict(zip(starts, start_part, strict=True))
        end_scores = dict(zip(ends, end_part, strict=True))
        length_scores = dict(zip(lengths, length_part, strict=True))
        return [
            sigmoid(start_scores[i] + end_scores[j] + length_scores[min(j - i, 6)] + z)
            for (i, j), z in zip(spans, pair_part, strict=True)
        ]

    def read_categorical(self, turn: ValueTurn, slots: Sequence[SlotView]) -> list[Read]:
        numbers = value_numbers(turn)
        lowered = normalised(turn.text)
        # A pair's score: its slot's part (scored once per slot) plus its value's part.
        pairs, rows = [], []
        for k, slot in enumerate(slots):
            values = [*slot.values, DONTCARE] if slot.categorical else [DONTCARE]
            pairs += [(slot, k, value) for value in values]
            rows += slot_value_features(turn, slot, values, numbers, lowered, self.bits)
        slot_rows = [slot_features(turn, slot, self.bits) for slot in slots]
        slot_scores, value_scores = grouped_scores(self.pick, [slot_rows, rows])
        best: dict[str, tuple[str, float]] = {}  # slot -> its best value above the threshold
        pick, sure = self.thresholds.pick, self.thresholds.sure_pick
        flag = self.thresholds.said_flag
        for (slot, k, value), z in zip(pairs, value_scores, strict=True):
            q = sigmoid(slot_scores[k] + z)
            phrase = value == "True" and says_flag_phrase(turn, slot)
            if q <= best.get(slot.name, ("", min(pick, sure, flag)))[1] and not phrase:
                continue
            if (
                q > pick
                or phrase
                or (value != DONTCARE and said_beside(turn, slot, value, numbers, lowered))
                or (q > flag and value == "True" and says_flag(turn, slot))
            ):
                best[slot.name] = (value, max(q, flag) if phrase else q)
        return self._reads(turn, slots, best, numbers, lowered)

    @staticmethod
    def _reads(
        turn: ValueTurn,
        slots: Sequence[SlotView],
        best: Mapping[str, tuple[str, float]],
        numbers: set[str],
        lowered: str,
    ) -> list[Read]:
        """The categorical reads of ``best`` (slot -> its value and score), with the yes of a
        yes/no slot whose own words the turn says taken from those described alike ("an
        apartment that allows pets" is no furnished one, however the scorer, never fitted on
        the service, weighed it), a yes negated ("doesn't allow pets") turned into a no, and
        the token saying each value."""
        types = {slot.name: slot for slot in slots}
        named = {n for n, (v, _) in best.items() if v == "True" and says_flag(turn, types[n])}
        out = []
        for name, (value, q) in best.items():
            slot = types[name]
            flag = value == "True" and slot.value_type == "bool"
            if flag and named and name not in named:
                continue
            # SGD's users seldom say a yes/no slot negated unasked, so the scorer never
            # learned "doesn't allow pets" or "without wifi": a negating word right before
            # the slot's description words turns the reading into False.
            if flag and turn.negated(slot.description_set) == 1:
                value = "False"
            kind, at = mention(value, turn, numbers, lowered) if value != DONTCARE else ("", -1)
            # the token saying it, so that no other slot reads the same word ("i need to check
            # my balance": "check", by its first letters, says "checking" once, for one of the
            # two account types)
            said = range(at, at + 1) if kind in ("exact", "number", "stems") else range(0)
            out.append(Read(name, value, value, q, said))
        return out
