"""The learned NLU's repairs: each a small named unit that, when it ``applies`` to a reading
(``reading.py``), turns it into another (``apply``). They run in the order of ``REPAIRS``, each
after the step of the reading it repairs (``step``: route, read or acts); ``[options.nlu]``
switches them: ``repairs = [...]`` the ones to run (default all), ``without = [...]`` the ones
left out. ``python benchmarks/nlu_holdout.py --without NAME`` measures one's worth on train's
held-out services (docs/learned.md#repairs).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal, Protocol

from tod_runtime.dialogue.models import CLOSING_ACTS, Action, act, change_asks
from tod_runtime.errors import ConfigError
from tod_runtime.nlu.learned.casual import (
    AliasSearch,
    AnyOfAValue,
    AtClock,
    AtOrFor,
    CorrectedValue,
    CountWithUnit,
    EndByLength,
    JustMe,
    JustTonight,
    NamedValue,
    OwnWord,
    SlotNamedBefore,
    TimeOfDay,
    ValueAlias,
    unsaid,
)
from tod_runtime.nlu.learned.known import KnownOpens, KnownUnread
from tod_runtime.nlu.learned.reading import ON_TABLE, Parts, Reading
from tod_runtime.nlu.learned.routing import (
    AfterDone,
    AskedElsewhere,
    AskOrTell,
    BookingDetails,
    Clarified,
    IntentByValues,
    ServiceByCategory,
    ServiceByKnownName,
    ServiceByValues,
    ServiceNamed,
    StayOnTask,
    TaskSwitch,
    Unsure,
    ValuesOverNone,
)
from tod_runtime.nlu.learned.sisters import SisterCarry, SisterSlot, SisterValues
from tod_runtime.nlu.learned.text import QUESTION_WORDS, stem, tokens
from tod_runtime.nlu.values import DATE, NUMBER, STREETS, number_value
from tod_runtime.values.dates import WEEKDAYS
from tod_runtime.values.normalise import slot_kind

Step = Literal["route", "read", "acts"]
OTHER = frozenset({"other", "another", "else", "different", "more"})  # asking for another


class Repair(Protocol):
    name: str
    step: str  # a Step

    def applies(self, parts: Parts, r: Reading) -> bool: ...

    async def apply(self, parts: Parts, r: Reading) -> Reading: ...


class AskedBackstop:
    """An answer to the system's question that the reader missed ("tomorrow for 2 nights"
    read as the nights only): the rules look for the asked slots' known values (exactly,
    then fuzzily), times, dates and numbers; not a value the turn says once that was read
    for another slot (``_read_once``)."""

    name = "asked_backstop"
    step = "acts"

    def applies(self, parts: Parts, r: Reading) -> bool:
        return any(slot not in r.filled for slot in r.asked())

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        assert r.service is not None
        missed = [slot for slot in r.asked() if slot not in r.filled]
        found = [a for a in await parts.rule_values(r.text, r.service, missed) if a.slot in missed]
        found = [a for a in found if not _read_once(parts, r, a)]
        return r.adding(found, [a.slot for a in found])


def _read_once(parts: Parts, r: Reading, found: Action) -> bool:
    """Whether a value found was read for another slot that the turn names with a word the
    asked slot's name and description lack, and the turn says it once ("check out on the
    14th" while the check-in is asked: the 14th is the check-out's; "1 room for 1 night"
    says 1 twice; "will be on 3rd of March" names no slot: the answer to the question)."""
    views = {v.name: v for v in parts.views[r.service or ""]}
    asked = views.get(found.slot)
    content, text = r.turn.utterance.content, r.text.lower()

    def names(slot: str) -> bool:
        other = views.get(slot)
        if other is None or asked is None:
            return False
        return bool((other.named_with - asked.named_with) & content)

    read = {
        v.lower()
        for a in r.acts
        if a.act == "INFORM" and a.slot != found.slot and names(a.slot)
        for v in a.values
    }
    return any(
        v.lower() in read and len(re.findall(rf"(?<!\w){re.escape(v.lower())}(?!\w)", text)) == 1
        for v in found.values
    )


def one_slot_of(parts: Parts, kind: str, r: Reading) -> str | None:
    """The intent's one slot of value type ``kind``, when it takes one only and no slot of
    the kind was filled."""
    assert r.service is not None
    spec = parts.schemas[r.service].intent(r.intent)
    takes = {*spec.required_slots, *spec.optional_slots} if spec else set()
    views = parts.views[r.service]
    if any(v.value_type == kind for v in views if v.name in r.filled):
        return None
    of_kind = [v.name for v in views if v.name in takes and v.value_type == kind]
    return of_kind[0] if len(of_kind) == 1 else None


def one_count(text: str, read: Sequence[Action]) -> tuple[str, frozenset[str]] | None:
    """The one number a turn says outside its times, its dates and the values read, and the
    words right before and after it; None when it says none or several ("one" left out: far
    more often a pronoun, "that's the one", than a count)."""
    left = unsaid(text, read)
    numbers = [m for m in NUMBER.finditer(left) if m.group(1) != "one"]
    if len(numbers) != 1:
        return None
    m = numbers[0]
    return m.group(1), frozenset(tokens(left[: m.start()])[-1:] + tokens(left[m.end() :])[:1])


def count_missed(parts: Parts, r: Reading, slot: str) -> list[Action]:
    """A count the reader missed ("book it for a party of 5 at 6:30 pm") for ``slot``, the
    intent's one number slot: the one number the turn says outside its times, its dates and
    the values read, when it is one of the slot's values and no word beside it belongs to
    another slot's description ("a 2 day reservation", "1 transfer")."""
    assert r.service is not None
    count = one_count(r.text, r.read)
    if count is None:
        return []
    number, beside = count
    value = str(number_value(number))
    others = {w for v in parts.views[r.service] if v.name != slot for w in v.description}
    spec = parts.schemas[r.service].slot(slot)
    if spec is None or value not in spec.possible_values or beside & others:
        return []
    return [act("INFORM", slot, [value])]


class MissedCount:
    """A count the reader missed for the intent's one number slot (``count_missed``)."""

    name = "missed_count"
    step = "acts"

    def applies(self, parts: Parts, r: Reading) -> bool:
        return bool(r.predicted and one_slot_of(parts, "number", r))

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        slot = one_slot_of(parts, "number", r)
        assert slot is not None
        return r.adding(count_missed(parts, r, slot))


AMOUNT = re.compile(r"(?<![\w:/$.,-])\$?\d[\d,]*(?:\.\d{1,2})?(?![\w:/-])")


class MissedAmount:
    """An amount of money the reader missed ("ok send 300 from savings to tom") for the
    intent's one input of money (``values.normalise.slot_kind``: "Amount of money to
    transfer"), when it is left empty or holds no number: the one number the turn says
    outside its times, its dates and the other values read."""

    name = "missed_amount"
    step = "acts"

    def _slot(self, parts: Parts, r: Reading) -> str | None:
        if not r.predicted:
            return None
        schema = parts.schemas[r.service or ""]
        spec = schema.intent(r.intent)
        inputs = spec.inputs if spec else frozenset()
        money = [s for s in inputs if slot_kind(schema, s) == "amount"]
        if len(money) != 1 or (money[0] in r.filled and not _no_number(r, money[0])):
            return None
        return money[0]

    def applies(self, parts: Parts, r: Reading) -> bool:
        return self._slot(parts, r) is not None

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        slot = self._slot(parts, r)
        assert slot is not None
        said = AMOUNT.findall(unsaid(r.text, [a for a in r.read if a.slot != slot]))
        if len(said) != 1:
            return r
        kept = [a for a in r.acts if not (a.act == "INFORM" and a.slot == slot)]
        return r.with_acts(kept).adding([act("INFORM", slot, [said[0]])], [slot])


def _no_number(r: Reading, slot: str) -> bool:
    """Whether what was read for the money slot holds no number: "send" of "i need to send
    $1,290 to xiaoxue", the reader never fitted on money and the amount asked for."""
    values = [v for a in r.acts if a.act == "INFORM" and a.slot == slot for v in a.values]
    return bool(values) and not any(NUMBER.search(v.lower()) for v in values)


MONEY = re.compile(
    r"\$\s?\d[\d,]*(?:\.\d{1,2})?|\b\d[\d,]*(?:\.\d{1,2})? ?(?:dollars?|bucks?|usd)\b"
)


def near_input(parts: Parts, r: Reading, kind: str) -> str | None:
    """The one input of value type ``kind`` among the chosen intent's near rivals, when the
    chosen intent takes none and no value of the kind was read; else None."""
    schema = parts.schemas[r.service or ""]
    if not r.predicted or any(slot_kind(schema, a.slot) == kind for a in r.read if a.slot):
        return None
    found: set[str] = set()
    for intent in (r.intent, *(n for _, n in r.near)):
        spec = schema.intent(intent)
        takes = [s for s in (spec.inputs if spec else ()) if slot_kind(schema, s) == kind]
        if intent == r.intent and takes:
            return None  # the chosen intent's own: ``missed_amount``, ``missed_date`` fill it
        found |= set(takes)
    return found.pop() if len(found) == 1 else None


class MoneyOpens:
    """ "ok send $500 to maria from checking" after a balance was told: an amount of money
    said as money (a currency sign or word), which the reader gave no slot, is the value of
    the one input of money among the chosen intent's near rivals, when the chosen one
    takes none (``near_input``): the values read then choose the intent that takes it
    (``intent_by_values``: the transfer, not the balance again). Runs before it."""

    name = "money_opens"
    step = "read"

    def applies(self, parts: Parts, r: Reading) -> bool:
        one = len(MONEY.findall(r.text.lower())) == 1
        return one and near_input(parts, r, "amount") is not None

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        slot = near_input(parts, r, "amount")
        assert slot is not None
        said = MONEY.findall(r.text.lower())[0]
        amount = AMOUNT.findall(said)
        value = amount[0] if amount else said
        return replace(r, read=(*r.read, act("INFORM", slot, [value])))


class DateOpens:
    """ "actually wednesday would be better" after a doctor was offered: the one date the
    turn says, which the reader gave no slot, is the value of the one date input among the
    chosen intent's near rivals, when the chosen one takes none (``near_input``: the
    search for a doctor takes no date, the booking does); ``intent_by_values`` then opens
    the booking when the date is all the turn says. Runs before it; in a task under way
    only (at openings too, fold 3 of train's held-out chat check lost 0.0006 of joint goal
    with it)."""

    name = "date_opens"
    step = "read"

    def applies(self, parts: Parts, r: Reading) -> bool:
        if r.opening:  # "find me a restaurant for tuesday" searches (the date kept)
            return False
        one = len({m.group() for m in DATE.finditer(r.text.lower())}) == 1
        return one and near_input(parts, r, "date") is not None

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        slot = near_input(parts, r, "date")
        assert slot is not None
        said = next(DATE.finditer(r.text.lower())).group()
        return replace(r, read=(*r.read, act("INFORM", slot, [said])))


class MissedDate:
    """A date the reader missed ("book 4 people sunday at noon") for the intent's one date
    slot: the one date the turn says (a weekday, today, tonight, tomorrow, the 5th, March 5),
    as said; the call takes its ISO form. A trade: train's held-out chat check loses 0.002 of
    joint goal accuracy (held-out services unchanged), the outsiders' embedded and train
    conversations gain four (docs/learned.md#repairs)."""

    name = "missed_date"
    step = "acts"

    def applies(self, parts: Parts, r: Reading) -> bool:
        return bool(r.predicted and one_slot_of(parts, "date", r))

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        slot = one_slot_of(parts, "date", r)
        assert slot is not None
        said = {m.group() for m in DATE.finditer(r.text.lower())}
        if len(said) != 1:
            return r
        return r.adding([act("INFORM", slot, [said.pop()])], [slot])


class StreetNotDate:
    """An ordinal before an address's noun names a street, not a day: "at the office on 5th
    street" read the 5th as the event's date (``nlu.values.STREETS``)."""

    name = "street_not_date"
    step = "acts"

    def _streets(self, parts: Parts, r: Reading) -> set[str]:
        if not r.predicted:
            return set()
        dated = {v.name for v in parts.views[r.service or ""] if v.value_type == "date"}
        text = r.text.lower()
        return {
            a.slot
            for a in r.acts
            if a.act == "INFORM" and a.slot in dated and a.values
            and re.search(rf"\b{re.escape(a.values[0].lower())} (?:{STREETS})\b", text)
        }  # fmt: skip

    def applies(self, parts: Parts, r: Reading) -> bool:
        return bool(self._streets(parts, r))

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        streets = self._streets(parts, r)
        kept = [a for a in r.acts if not (a.act == "INFORM" and a.slot in streets)]
        return replace(r.with_acts(kept), filled=r.filled - streets)


# English words before a date that make it the end of a stay, a trip or a rental
# ("out" only after "check": "out on the 7th, back on the 10th" leaves on the 7th)
END_CUES = frozenset(
    {"return", "returning", "back", "until", "till", "through", "off", "end", "ending", "checkout"}
)
CHECK_OUT = re.compile(r"\bcheck(?:ing)? out\b")
START_CUES = frozenset({"from", "starting", "start", "beginning", "checkin"})
CHECK_IN = re.compile(r"\bcheck(?:ing)? in\b")
CUE_WORDS = 3  # words before a date read for its cue


class DatePair:
    """A pair of dates (start and end: departure and return, check-in and check-out, pick-up
    and drop-off) where the chosen intent or one near it takes two date slots: of two dates
    said, the one after an end cue ("returning on March 9th", "until the 5th", "check out
    on the 7th") or, with no cue, the later said is the end's, the other the start's; one
    date said after an end cue is the end's (and not the start's) where the chosen intent
    takes both (a one-way flight "back home on the 3rd" stays one). Where the reader read one
    of the two slots or none, what it read for them gives way (a held-out round trip read
    "returning on March 9th" as the departure and missed "leave on March 3rd"); where it
    read both, its reading stands (changing it cost SGD dev's car rentals 0.02 of joint goal
    accuracy)."""

    name = "date_pair"
    step = "read"

    def _pair(self, parts: Parts, r: Reading) -> tuple[str, str, bool] | None:
        """The start and the end date slots, and whether the chosen intent takes them."""
        assert r.service is not None
        schema = parts.schemas[r.service]
        dated = {v.name for v in parts.views[r.service] if v.value_type == "date"}
        for intent in (r.intent, *(n for _, n in r.near)):
            spec = schema.intent(intent)
            slots = (*spec.required_slots, *spec.optional_slots) if spec else ()
            pair = [s for s in slots if s in dated]  # in the schema's order: start, end
            if len(pair) == 2:
                return pair[0], pair[1], intent == r.intent
        return None

    def applies(self, parts: Parts, r: Reading) -> bool:
        return r.predicted is not None and self._pair(parts, r) is not None

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        pair = self._pair(parts, r)
        assert pair is not None
        start, end, chosen = pair
        if {start, end} <= {a.slot for a in r.read}:
            return r  # the reader read both: its reading stands
        text = r.text.lower()
        read = [v for a in r.read if a.slot in (start, end) for v in a.values]
        spans = _date_spans(text)
        said = [(_as_read(text[i:j], read), _ends(text[:i])) for i, j in spans]
        if len({d for d, _ in said}) != len(said) or not 1 <= len(said) <= 2:
            return r
        if len(said) == 1:
            (date, ends), starts = said[0], _starts(text[: spans[0][0]])
            found = _one_date(r, (start, end), date, (starts, ends), chosen)
            if found is None:
                return r
            dates = found
        elif said[0][1] and said[1][1]:
            return r
        else:
            first_ends = said[0][1]
            dates = {start: said[first_ends][0], end: said[not first_ends][0]}
        kept = [a for a in r.read if a.slot not in dates]
        dated = (act("INFORM", s, [d]) for s, d in dates.items() if d)
        return replace(r, read=(*kept, *dated))


# English words of a slot's description that make it where a journey starts or ends
# ("City where bus is leaving from", "Destination city for the trip")
FROM_WORDS = frozenset({"from", "origin", "starting", "departure", "departing", "leaving"})
TO_WORDS = frozenset({"destination", "ending", "arrival", "arriving", "going"})


class PlacePair:
    """The two places of a journey (the free-text slots of the chosen intent or one near it
    whose descriptions say where it starts and where it ends: "City where bus is leaving
    from", "City where bus is going to") read the other way round from the words said right
    before them ("i'm going to la from las vegas" had read la as the origin): swapped; one
    place read for one of them, said after the other's word ("any other buses leaving from
    fresno?" read as the destination), moves to the other. Only where "from" is said."""

    name = "place_pair"
    step = "read"

    def _pair(self, parts: Parts, r: Reading) -> tuple[str, str] | None:
        """The start and the end slots."""
        assert r.service is not None
        schema = parts.schemas[r.service]
        texts = {v.name for v in parts.views[r.service] if v.value_type == "text"}
        for intent in (r.intent, *(n for _, n in r.near)):
            spec = schema.intent(intent)
            starts: list[str] = []
            ends: list[str] = []
            for name in (*spec.required_slots, *spec.optional_slots) if spec else ():
                slot = schema.slot(name)
                if slot is None or slot.is_categorical or name not in texts:
                    continue  # a place: free text, no date or time
                words = tokens(slot.description)
                start = bool(FROM_WORDS.intersection(words))
                end = bool(TO_WORDS.intersection(words)) or words[-1:] == ["to"]
                if start != end:
                    (starts if start else ends).append(name)
            if len(starts) == len(ends) == 1:
                return starts[0], ends[0]
        return None

    def applies(self, parts: Parts, r: Reading) -> bool:
        return r.predicted is not None and bool(r.read) and "from" in r.text.lower()

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        pair = self._pair(parts, r)
        if pair is None:
            return r
        start, end = pair
        said = {a.slot: a.values[0] for a in r.read if a.slot in pair and a.values}
        text = r.text.lower()

        def after(word: str, value: str) -> bool:
            return (
                re.search(rf"\b{word}\s+(?:the\s+)?{re.escape(value.lower())}\b", text) is not None
            )

        if len(said) == 2:
            if not (after("to", said[start]) and after("from", said[end])):
                return r
            moved = {start: said[end], end: said[start]}
        elif end in said and after("from", said[end]) and not after("to", said[end]):
            moved = {start: said[end]}  # "any other buses leaving from fresno?"
        elif start in said and after("to", said[start]) and not after("from", said[start]):
            moved = {end: said[start]}  # "and to lax from there"
        else:
            return r
        kept = [a for a in r.read if a.slot not in pair]
        return replace(r, read=(*kept, *(act("INFORM", s, [v]) for s, v in moved.items())))


def _one_date(
    r: Reading, pair: tuple[str, str], date: str, cues: tuple[bool, bool], chosen: bool
) -> dict[str, str] | None:
    """The one date said, as the start's or the end's of ``pair`` by its cue (``cues``: a
    start cue, an end cue before it), "" for the other slot when the reader read it there;
    None when the reading stands. A date after an end cue where the chosen intent takes
    the pair ("fly back home on the 3rd" is one way); after a start cue also where the
    reader read it as a near intent's end ("book me in from the 12th"), not where it read
    it as the start already."""
    starts, ends = cues
    here, other = (pair[1], pair[0]) if ends else pair
    misread = [v for a in r.read if a.slot == other for v in a.values] == [date]
    if starts == ends or not (chosen or (starts and misread)):
        return None
    if starts and not misread and here in {a.slot for a in r.read}:
        return None  # the start read as the start: the reader's reading stands
    return {here: date, other: ""} if misread else {here: date}


def _as_read(said: str, read: Sequence[str]) -> str:
    """A date as the reader read it when a value it read holds it ("friday next week" for
    "friday"), else as said."""
    return next((v for v in read if said in v.lower()), said)


def _date_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` says a date, a weekday and its day run together ("sunday the 10th")."""
    spans: list[tuple[int, int]] = []
    for m in DATE.finditer(text):
        weekday = bool(spans) and text[spans[-1][0] : spans[-1][1]].split()[-1] in WEEKDAYS
        if weekday and text[spans[-1][1] : m.start()] in (" ", ", "):
            spans[-1] = (spans[-1][0], m.end())
        else:
            spans.append((m.start(), m.end()))
    return spans


def _starts(before: str) -> bool:
    """Whether the words right before a date cue the start of a span of days ("book me in
    from the 12th", "check in on the 9th")."""
    words = tokens(before)[-CUE_WORDS:]
    return not START_CUES.isdisjoint(words) or bool(CHECK_IN.search(" ".join(words)))


def _ends(before: str) -> bool:
    """Whether the words right before a date cue the end of a span of days."""
    words = tokens(before)[-CUE_WORDS:]
    return not END_CUES.isdisjoint(words) or bool(CHECK_OUT.search(" ".join(words)))


class TaskOver:
    """The scorer says the task is over ("not for now, thanks") and the user gave no value
    (a value, "make it 8pm", keeps the task going) and asked nothing ("whats the rent on it
    again?" after "would you like to schedule a visit?" declines nothing): closing acts
    only, so the tracker ends the frame's intent when the system asked for more. A bare
    "yes" is kept: the user wants more, and will say what."""

    name = "task_over"
    step = "acts"

    def applies(self, parts: Parts, r: Reading) -> bool:
        asks = r.requested or r.turn.utterance.cues  # "whats the rent on it again?"
        return r.predicted is None and not r.opening and r.same and not r.read and not asks

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        closing = [a for a in r.acts if a.act in CLOSING_ACTS]
        yes = [a for a in r.acts if a.act == "AFFIRM"]
        return r.with_acts(closing or yes or [act("NEGATE")])


def slot_named(
    parts: Parts, words: Collection[str], service: str, acts: Sequence[Action]
) -> list[Action]:
    """A REQUEST of the one slot of ``acts`` whose description holds most of ``words``
    (none on a tie or no overlap), counting only the words one slot of the service is
    described with ("time" of "Time of the show", not "event" of "Address of the event
    venue", which most of an events service's slots say)."""
    views = parts.views[service]
    described = Counter(w for v in views for w in v.named_with)
    own = {w for w in words if described[w] == 1}
    asked = {a.slot for a in acts}
    overlaps = sorted(
        ((len(own & v.named_with), v.name) for v in views if v.name in asked),
        reverse=True,
    )
    if not overlaps or not overlaps[0][0] or overlaps[1:2] and overlaps[1][0] == overlaps[0][0]:
        return []
    return [act("REQUEST", overlaps[0][1])]


class ChangeNamed:
    """The answer to "what would you like to change: the time (7pm), the date (today)
    ...?" that names one of them and no new value ("the time, please"): the asked slot
    whose description holds most of the user's words, when one does, rather than a
    question about another slot; the policy then asks for its new value."""

    name = "change_named"
    step = "acts"

    def applies(self, parts: Parts, r: Reading) -> bool:
        return r.same and bool(change_asks(r.said)) and not any(a.act == "INFORM" for a in r.acts)

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        assert r.service is not None
        change = change_asks(r.said)
        detail = slot_named(parts, r.turn.utterance.content, r.service, change)
        return r.with_acts([a for a in r.acts if a.act != "REQUEST"] + detail) if detail else r


class QuestionSlot:
    """A question of which nothing was read: the slot it most likely asks about, from
    ``ask_floor`` up, rather than "sorry, I did not get that" ("is it free to get in?" after
    an offer that said the entrance is free: 0.46). Under it, a wh-question about what the
    system just put on the table ("what time is it showing?" after an offer that named the
    time: SGD's users never ask for a value they were just told, so the scorer says 0.01):
    the slot of those whose description holds most of the question's words, when one does
    (not "what about other dates?", which asks for another). A yes-no question ("is this a
    redeye?", "does it have wifi?", or "do they have live music" without its question mark)
    asks about the yes-no slot of the service it names."""

    name = "question_slot"
    step = "acts"

    def applies(self, parts: Parts, r: Reading) -> bool:
        utterance = r.turn.utterance
        asks = bool(utterance.cues) or yes_no_question(utterance.words)
        return not r.acts and r.same and asks and bool(r.asks)

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        assert r.service is not None
        slot, p = max(r.asks.items(), key=lambda item: item[1])
        utterance = r.turn.utterance
        if p >= parts.thresholds.ask_floor:
            return r.with_acts([act("REQUEST", slot)])
        if not set(QUESTION_WORDS).isdisjoint(utterance.cues) and OTHER.isdisjoint(utterance.words):
            told = [a for a in r.said if a.act in ON_TABLE and a.slot]
            return r.with_acts(slot_named(parts, utterance.content, r.service, told))
        if utterance.words[:1] and utterance.words[0] in AUXILIARIES:
            flags = [
                act("REQUEST", v.name) for v in parts.views[r.service] if v.value_type == "bool"
            ]
            return r.with_acts(slot_named(parts, utterance.content, r.service, flags))
        return r


# as ``tokens`` gives them: "does" is stemmed to "doe"
_AUXILIARIES = "is are was were does do did has have can"
AUXILIARIES = frozenset(stem(w) for w in _AUXILIARIES.split())
_PRONOUNS = "it they there this that these those he she"
PRONOUNS = frozenset(stem(w) for w in _PRONOUNS.split())


def yes_no_question(words: Sequence[str]) -> bool:
    """Whether the words open as a yes-no question about something ("do they have live
    music", typed without its question mark, as people often do in a chat)."""
    return len(words) > 2 and words[0] in AUXILIARIES and words[1] in PRONOUNS


REPAIRS: tuple[Repair, ...] = (
    Clarified(),
    ValuesOverNone(),
    ServiceByValues(),
    ServiceByCategory(),
    ServiceNamed(),
    TaskSwitch(),
    StayOnTask(),
    SisterValues(),
    SisterSlot(),
    AfterDone(),
    AskedElsewhere(),
    ServiceByKnownName(),
    Unsure(),
    DatePair(),
    PlacePair(),
    SlotNamedBefore(),
    CorrectedValue(),
    MoneyOpens(),
    DateOpens(),
    KnownOpens(),
    IntentByValues(),
    AskOrTell(),
    AskedBackstop(),
    MissedCount(),
    MissedAmount(),
    MissedDate(),
    StreetNotDate(),
    TaskOver(),
    ChangeNamed(),
    QuestionSlot(),
    AtOrFor(),
    AtClock(),
    JustMe(),
    JustTonight(),
    CountWithUnit(),
    EndByLength(),
    BookingDetails(),
    AnyOfAValue(),
    NamedValue(),
    ValueAlias(),
    OwnWord(),
    TimeOfDay(),
    KnownUnread(),
    SisterCarry(),
)
NAMES = tuple(r.name for r in REPAIRS)
# Off unless named in ``repairs``: alias_search cost joint goal accuracy on train's held-out
# chat check (--chat --limit 300: 0.7844 without, 0.7587 with; docs/learned.md#repairs)
OPTIONAL: tuple[Repair, ...] = (AliasSearch(),)
ALL = (*REPAIRS, *OPTIONAL)


def selected(options: Mapping[str, Any]) -> tuple[Repair, ...]:
    """The repairs ``[options.nlu]`` switches on (``repairs``, default all of ``REPAIRS``;
    ``without``), in ``REPAIRS``' order then ``OPTIONAL``'s. An unknown name is a
    ConfigError."""
    chosen = options.get("repairs")
    chosen = NAMES if chosen is None else chosen
    without = options.get("without") or ()
    for key, names in (("repairs", chosen), ("without", without)):
        if isinstance(names, str) or not all(isinstance(n, str) for n in names):
            raise ConfigError(
                "expected a list of repair names", where=f"options.nlu.{key}", hint=_HINT
            )
        unknown = sorted(set(names) - {r.name for r in ALL})
        if unknown:
            raise ConfigError(
                f"unknown NLU repair(s): {', '.join(unknown)}",
                where=f"options.nlu.{key}",
                hint=_HINT,
            )
    return tuple(r for r in ALL if r.name in chosen and r.name not in without)


_HINT = f"the repairs are {', '.join(r.name for r in ALL)}"
