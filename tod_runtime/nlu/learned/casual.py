"""Repairs for the way people type in a chat (step ``acts``, ``repairs.py``): a clock time
without its part of the day, a count and a time mixed up, "just me", a value's initials or a
short form. General signals only: the slot's value type, the values the backend holds and a
few English words.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from functools import lru_cache

from tod_runtime.dialogue.models import DONTCARE, Action, act
from tod_runtime.nlu.learned.reading import AliasIndex, Parts, Reading
from tod_runtime.nlu.learned.text import NAMED, STOP, stem, tokens
from tod_runtime.nlu.learned.values import SlotView
from tod_runtime.nlu.rules import SKIP_SAID
from tod_runtime.nlu.values import COUNT, DATE, NUMBER, NUMBER_WORDS, TIME, number_value
from tod_runtime.schema.roles import counts_time, description_head
from tod_runtime.values.dates import as_length_after
from tod_runtime.values.numbers import UNITS
from tod_runtime.values.times import AFTERNOON, MORNING, NIGHT, parse_time

LATE = {"tonight", "evening", "night", "dinner", "afternoon", "pm", "supper", "late"}
EARLY = {"morning", "breakfast", "am", "early"}
NEAR_MINUTES = 60  # a known time this close to a reading counts for it
_WORD = re.compile(r"[a-z0-9']+")


def slots_of_type(
    parts: Parts, r: Reading, kind: str, intents: Sequence[str] | None = None
) -> list[str]:
    """The chosen intent's slots of value type ``kind`` (or those of ``intents``)."""
    assert r.service is not None
    takes: set[str] = set()
    for intent in [r.intent] if intents is None else intents:
        spec = parts.schemas[r.service].intent(intent)
        takes |= {*spec.required_slots, *spec.optional_slots} if spec else set()
    return [v.name for v in parts.views[r.service] if v.name in takes and v.value_type == kind]


def empty_inputs(parts: Parts, r: Reading) -> list[str]:
    """The chosen intent's inputs the turn left empty, in the service's slot order."""
    assert r.service is not None
    spec = parts.schemas[r.service].intent(r.intent)
    takes = {*spec.required_slots, *spec.optional_slots} if spec else set()
    return [v.name for v in parts.views[r.service] if v.name in takes and v.name not in r.filled]


def near_intents(r: Reading) -> list[str]:
    """The chosen intent's near rivals of its service (``Reading.near``)."""
    return [n for _, n in r.near if n != r.intent]


def own_or_near(parts: Parts, r: Reading, kind: str) -> list[str]:
    """The chosen intent's slots of value type ``kind``; when it takes none, its near
    rivals' (a table's time said while restaurants are searched)."""
    for intents in (None, near_intents(r)):
        slots = slots_of_type(parts, r, kind, intents)
        if slots:
            return slots
    return []


def _ambiguous(value: str) -> tuple[int, int] | None:
    """(hour, minute) of a clock time said without its part of the day ("7:30", "6"),
    hours 1 to 11; None for anything else ("7pm", "19:30", "07:30", "noon")."""
    words = set(_WORD.findall(value.lower()))
    if words & (AFTERNOON | MORNING | NIGHT) or value.strip().startswith("0"):
        return None
    clock = parse_time(value)
    if clock is None:
        return None
    hour, minute = int(clock[:2]), int(clock[3:])
    return (hour, minute) if 1 <= hour <= 11 else None


def _near(minutes: int, known: Sequence[int]) -> int:
    return sum(abs(k - minutes) <= NEAR_MINUTES for k in known)


def later_half(hour: int, minute: int, text: str, known: Sequence[str]) -> bool:
    """Whether a clock time said without its part of the day means the afternoon or evening:
    the turn's words ("tonight", "dinner"; "morning"), else the hours the backend's values of
    the slot hold (more of them near 19:30 than near 07:30), else an hour from 1 to 6 is in
    the afternoon (an appointment at "2:30") and from 7 to 11 in the morning."""
    words = set(_WORD.findall(text.lower()))
    if words & EARLY:
        return False
    if words & LATE:
        return True
    times = [parse_time(v) for v in known]
    minutes = [int(t[:2]) * 60 + int(t[3:]) for t in times if t]
    early, late = hour * 60 + minute, (hour + 12) * 60 + minute
    if _near(early, minutes) != _near(late, minutes):
        return _near(late, minutes) > _near(early, minutes)
    return hour <= 6


def held_times(parts: Parts, r: Reading) -> str:
    """The values the frame already holds for its date and time slots, as said ("tonight",
    "7pm"): "make it 7:30" after "2 people tonight at 7" is 19:30."""
    assert r.service is not None
    state = r.context.state.get(r.service)
    if state is None:
        return ""
    timed = {v.name for v in parts.views[r.service] if v.value_type in ("date", "time")}
    held = state.slot_values.items()
    return " ".join(v for slot, values in held if slot in timed for v in values)


class TimeOfDay:
    """A clock time said without its part of the day ("7:30", "at 6") takes the half of the
    day the context gives (``later_half``: the turn's words and the values the frame holds
    for its dates and times, ``held_times``): the act keeps the words the user said, its
    canonical value is the 24-hour time a call takes ("7:30" for dinner is 19:30)."""

    name = "time_of_day"
    step = "acts"

    def applies(self, parts: Parts, r: Reading) -> bool:
        times = set(own_or_near(parts, r, "time")) if r.predicted else set()
        return any(a.act == "INFORM" and a.slot in times and _open(a) for a in r.acts)

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        assert r.service is not None
        times = set(own_or_near(parts, r, "time"))
        known = await parts.known_values(r.service)
        said = f"{r.text} {held_times(parts, r)}"
        acts = []
        for a in r.acts:
            clock = _open(a) if a.act == "INFORM" and a.slot in times else None
            if clock and later_half(*clock, said, known.get(a.slot, [])):
                exact = f"{clock[0] + 12:02d}:{clock[1]:02d}"
                a = act("INFORM", a.slot, a.values, [exact])
            acts.append(a)
        return r.with_acts(acts)


def _open(a: Action) -> tuple[int, int] | None:
    """The act's clock time said without its part of the day, unless its canonical value
    already has one."""
    canonical = a.canonical_values[0] if a.canonical_values else a.values[0] if a.values else ""
    return _ambiguous(a.values[0]) if a.values and _ambiguous(canonical) else None


_NUM = r"(\d{1,2}|" + "|".join(w for w, n in UNITS.items() if 1 <= n <= 12) + r")"
AT = re.compile(rf"\bat {_NUM}(?::(\d{{2}}))?(\s*[ap]\.?m\b\.?)?")
UNIT_AFTER = (
    r"(?!\s*(?::\d|[ap]\.?m\b|o'?clock|nights?|days?|hours?|minutes?|weeks?|months?|years?))"
)
FOR = re.compile(rf"\bfor {_NUM}\b{UNIT_AFTER}")


class AtOrFor:
    """ "for 2 tonight at 6": the number after "for" is the count and the one after "at" the
    time, when the intent takes one number slot and one time slot (``own_or_near``: a
    table asked for while restaurants are searched) and the values read mixed them up (the
    time read from the count, or the count from the time)."""

    name = "at_or_for"
    step = "acts"

    def applies(self, parts: Parts, r: Reading) -> bool:
        return r.predicted is not None and self._fix(parts, r) is not None

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        fixed = self._fix(parts, r)
        return r if fixed is None else r.with_acts(fixed)

    def _fix(self, parts: Parts, r: Reading) -> list[Action] | None:
        counts, times = own_or_near(parts, r, "number"), own_or_near(parts, r, "time")
        lower = r.text.lower()
        at, count = AT.search(lower), FOR.search(lower)
        if len(counts) != 1 or len(times) != 1 or not at or not count:
            return None
        at_n, for_n = str(number_value(at.group(1))), str(number_value(count.group(1)))
        said = {a.slot: a.values[0] for a in r.acts if a.act == "INFORM" and a.values}
        time_said, count_said = said.get(times[0], ""), said.get(counts[0], "")
        spec = parts.schemas[r.service or ""].slot(counts[0])
        allowed = spec is None or not spec.possible_values or for_n in spec.possible_values
        mixed = count_said == at_n or (time_said and at_n not in _WORD.findall(time_said))
        if at_n == for_n or not mixed or not allowed:
            return None
        time = at.group(0)[3:].strip()
        out = [a for a in r.acts if a.slot not in (times[0], counts[0]) or a.act != "INFORM"]
        return [*out, act("INFORM", times[0], [time]), act("INFORM", counts[0], [for_n])]


AFTER_CLOCK = re.compile(r"\s*(?:$|[^\sa-z0-9]|(?:o'?clock|sharp|tonight|today|tomorrow)\b)")


def clock_at(text: str) -> str | None:
    """The clock time said after "at" ("at 7", "at 7:30", "at seven"), when what follows it
    is no word but a function word or a day ("at 7 tonight"), not a place's name ("at 4
    seasons"); None when there is none, or several."""
    lower = text.lower()
    found = []
    for m in AT.finditer(lower):
        rest = lower[m.end() :]
        following = _WORD.match(rest.lstrip())
        if m.group(3) or AFTER_CLOCK.match(rest) or (following and following.group() in STOP):
            found.append(text[m.start() + 3 : m.end()].strip())
    return found[0] if len(found) == 1 else None


class AtClock:
    """A clock time after "at" that the reader missed ("2 ppl tonight at 7": SGD's users
    seldom leave out "pm", so the span scorer gives "7" 0.005) for the intent's one time
    slot, when nothing read is a time and no value read holds its number."""

    name = "at_clock"
    step = "acts"

    def applies(self, parts: Parts, r: Reading) -> bool:
        if not r.predicted or len(slots_of_type(parts, r, "time")) != 1:
            return False
        return slots_of_type(parts, r, "time")[0] not in r.filled and clock_at(r.text) is not None

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        slot, clock = slots_of_type(parts, r, "time")[0], clock_at(r.text)
        assert clock is not None
        said = {w for a in r.acts if a.act == "INFORM" for v in a.values for w in _WORD.findall(v)}
        if said & set(_WORD.findall(clock.lower())):
            return r
        return r.adding([act("INFORM", slot, [clock])], [slot])


ALONE = re.compile(r"\b(?:just|only) (?:me|myself|one)\b|\bby myself\b|\bon my own\b|\bsolo\b")


def says_a_count(text: str) -> bool:
    """Whether the turn says a number outside its clock times and dates ("just me, at 7pm"
    or "at 7" says none; "just me and 3 friends" one; "one" is left out: "just one")."""
    left = AT.sub(blank, DATE.sub(blank, TIME.sub(blank, text.lower())))
    return any(m.group(1) != "one" for m in NUMBER.finditer(left))


def blank(match: re.Match[str]) -> str:
    """A match's text as spaces: blanked out, positions kept."""
    return " " * len(match.group())


def unsaid(text: str, read: Sequence[Action]) -> str:
    """``text`` in lower case with its times, its dates and the values read blanked out
    (kept in place, so that positions still hold)."""
    left = text.lower()
    for value in {v.lower() for a in read for v in a.values}:
        left = left.replace(value, " " * len(value))
    return DATE.sub(blank, TIME.sub(blank, left))


class JustMe:
    """ "just me", "only me", "by myself": a count of 1 for the intent's one number slot,
    when the turn says no other number (a clock time, a date or a value read may come with
    it: "just me, at 7pm", "a ride to 789 mission street, just me")."""

    name = "just_me"
    step = "acts"

    def applies(self, parts: Parts, r: Reading) -> bool:
        if not r.predicted or not ALONE.search(r.text.lower()):
            return False
        counts = slots_of_type(parts, r, "number")  # "789 mission street" read: no count
        return len(counts) == 1 and not says_a_count(unsaid(r.text, r.read))

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        return count_of_one(parts, r, slots_of_type(parts, r, "number")[0])


def count_of_one(parts: Parts, r: Reading, slot: str) -> Reading:
    """The reading with 1 for ``slot`` in place of what was read for it (unchanged when the
    slot's possible values hold no 1)."""
    spec = parts.schemas[r.service or ""].slot(slot)
    if spec is not None and spec.possible_values and "1" not in spec.possible_values:
        return r
    acts = [a for a in r.acts if not (a.act == "INFORM" and a.slot == slot)]
    return replace(r.with_acts([*acts, act("INFORM", slot, ["1"])]), filled=r.filled | {slot})


ONE_DAY = re.compile(r"\b(?:just|only)(?: for)? (?:tonight|today|the night|this night|the day)\b")


def count_of_time_slot(parts: Parts, r: Reading) -> str | None:
    """The chosen intent's one count of time: a count (``count_slots``) whose description
    names nights or days (``roles.counts_time``); when it has none, its near rivals' one
    ("just 1 night, 1 room" while hotels are searched: the nights are the booking's)."""
    if not r.predicted:
        return None
    for intents in (None, near_intents(r)):
        spans = [v.name for v in count_slots(parts, r, intents) if counts_time(v.description)]
        if spans:
            return spans[0] if len(spans) == 1 else None
    return None


def unread_count_of_time(parts: Parts, r: Reading) -> str | None:
    """The chosen intent's one free-text count of time ("Number of days in the
    reservation") when the reader left it empty: such counts are the reader's, and only a
    gap is filled; when the chosen intent has none, its near rivals' one."""
    if not r.predicted:
        return None
    views = {v.name: v for v in parts.views[r.service or ""]}
    for intents in (None, near_intents(r)):
        spans = [
            s
            for s in slots_of_type(parts, r, "text", intents)
            if views[s].description[:1] == ("number",) and counts_time(views[s].description)
        ]
        if spans:
            return spans[0] if len(spans) == 1 and spans[0] not in r.filled else None
    return None


class JustTonight:
    """ "just tonight", "only for today": a count of 1 for the intent's one count of time
    (``count_of_time_slot``), when the turn says no other number; the day itself is read as
    the date as ever."""

    name = "just_tonight"
    step = "acts"

    def _slot(self, parts: Parts, r: Reading) -> str | None:
        if not ONE_DAY.search(r.text.lower()) or says_a_count(r.text):
            return None
        return count_of_time_slot(parts, r)

    def applies(self, parts: Parts, r: Reading) -> bool:
        return self._slot(parts, r) is not None

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        slot = self._slot(parts, r)
        assert slot is not None
        return count_of_one(parts, r, slot)


# "3 rooms", and a short unit run on to its digits ("a 1br apartment")
UNIT_COUNT = re.compile(rf"\b({COUNT}) (?:more )?([a-z]+)|\b(\d{{1,3}})([a-z]{{2,3}})\b")
NIGHTS = frozenset({"night", "nights", "day", "days"})
NO_UNITS = frozenset({"st", "nd", "rd", "th", "am", "pm"})  # "the 1st", "7pm"


def _counted(match: re.Match[str]) -> tuple[str, str]:
    """The number and the unit a ``UNIT_COUNT`` match says."""
    if match.group(1):
        return match.group(1), match.group(2)
    return match.group(3), match.group(4)


def names_unit(said: str, units: frozenset[str]) -> bool:
    """Whether ``said`` (stemmed) is one of a count's ``units`` or, of at most three letters,
    shortens one: its first letter and the rest in order ("br" of bedroom, "ba" of bath)."""
    if said in units:
        return True
    if len(said) > 3 or said in NO_UNITS:
        return False
    return any(u[0] == said[0] and len(u) > len(said) and _in_order(said, u) for u in units)


def _in_order(letters: str, word: str) -> bool:
    rest = iter(word)
    return all(c in rest for c in letters)


def count_slots(parts: Parts, r: Reading, intents: Sequence[str] | None = None) -> list[SlotView]:
    """The chosen intent's counts: its slots of numbers. SGD's free-text counts ("Number of
    days in the reservation") are left to the reader: reading them too cost SGD dev's
    Hotels_1 0.04 of joint goal accuracy (found bisecting a dev regression)."""
    takes = set(slots_of_type(parts, r, "number", intents))
    return [v for v in parts.views[r.service or ""] if v.name in takes]


def units_of(parts: Parts, r: Reading, slot: str) -> frozenset[str]:
    """The words a count is said with (stems): its description's head ("Star rating of the
    hotel": star, rating), and what a head "number" or "count" is of ("Number of the movie
    tickets to be purchased": movie, ticket), two of them run together too ("Number of bed
    rooms": bedroom, as "a 2 bedroom apartment" says it); not the rest ("hotel": "book 1 hotel
    room" is no 1-star hotel)."""
    spec = parts.schemas[r.service or ""].slot(slot)
    return _said_with(spec.description) if spec else frozenset()


@lru_cache(maxsize=1024)
def _said_with(description: str) -> frozenset[str]:
    head = description_head(description)
    words = _WORD.findall(description.lower())[len(head) :]
    if head[-1:] in (["number"], ["count"]) and words[:1] == ["of"]:
        of = [w for w in words[1:] if w not in ("the", "a", "an")]
        head = head + description_head(" ".join(of))[:3]  # "movie tickets", "bed rooms"
    joined = [a + b for a, b in zip(head, head[1:], strict=False)]  # "bed rooms": "bedroom"
    return frozenset(stem(w) for w in (*head, *joined))


class CountWithUnit:
    """A number said with its unit ("3 rooms", "4 tickets", "a 4 star hotel", "2 nights
    starting tomorrow") is the value of the one count of the intent described with that
    word (nights and days: its one count of time, ``count_of_time_slot``, or its one free-text
    count of time the reader left empty, ``unread_count_of_time``), when the reader
    gave it another value or none and the turn says no other number for it; a slot with
    possible values takes it only if they hold it. A number said with a unit (a count of
    nights the intent has no slot for included) is no other count's whose unit the turn does
    not say: "a place in london for 3 nights" books no 3 adults."""

    name = "count_with_unit"
    step = "acts"

    def _units(self, parts: Parts, r: Reading) -> tuple[dict[str, str], set[str]]:
        """Each count whose unit the turn says, with its one number (in digits for a slot
        with possible values, else as said); and every number said with a unit of a count (of
        the chosen intent or its near rivals) or of time each time it is said, in digits."""
        matches = list(UNIT_COUNT.finditer(r.text.lower()))
        if not matches:
            return {}, set()
        counts = count_slots(parts, r)
        near = count_slots(parts, r, near_intents(r))  # "2 rooms" while hotels are searched
        timed = count_of_time_slot(parts, r) or unread_count_of_time(parts, r)
        found: dict[str, dict[str, str]] = {}  # slot -> number -> as said
        with_unit: Counter[str] = Counter()  # number -> how often said with a unit
        for m in matches:
            said, word = _counted(m)
            unit, number = stem(word), str(number_value(said))
            named = [timed] if timed and word in NIGHTS else []
            named = named or [
                v.name for v in counts if names_unit(unit, units_of(parts, r, v.name))
            ]
            if len(named) == 1:
                found.setdefault(named[0], {})[number] = said
            if (
                named
                or word in NIGHTS
                or any(names_unit(unit, units_of(parts, r, v.name)) for v in near)
            ):
                with_unit[number] += 1
        # a number is claimed when each time it is said, a unit says whose it is ("1 night,
        # 1 room": no 1 star; "2 bedrooms, 2 baths": both 2s, each its count's)
        spaced = re.sub(r"(\d)([a-z])", r"\1 \2", r.text.lower())  # "1br": 1 said once
        times = Counter(str(number_value(m.group(1))) for m in NUMBER.finditer(spaced))
        claimed = {n for n, k in with_unit.items() if k == times[n]}
        units = {}
        for slot, numbers in found.items():
            spec = parts.schemas[r.service or ""].slot(slot)
            if len(numbers) != 1 or spec is None:
                continue
            number, said = numbers.popitem()
            if not spec.possible_values:
                units[slot] = said
            elif number in spec.possible_values:
                units[slot] = number
        return units, claimed

    def _fix(self, parts: Parts, r: Reading) -> tuple[dict[str, str], set[str]]:
        """The counts whose unit the turn says that the reader read otherwise, and the
        counts read with a number said with another unit."""
        if not r.predicted:
            return {}, set()
        units, claimed = self._units(parts, r)
        read = {a.slot: [_number(v) for v in a.values] for a in r.acts if a.act == "INFORM"}
        said = {s: v for s, v in units.items() if read.get(s) != [_number(v)]}
        others = {v.name for v in count_slots(parts, r)} - set(units)
        wrong = {s for s in others if len(read.get(s, ())) == 1 and read[s][0] in claimed}
        return said, wrong

    def applies(self, parts: Parts, r: Reading) -> bool:
        said, wrong = self._fix(parts, r)
        return bool(said or wrong)

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        said, wrong = self._fix(parts, r)
        gone = set(said) | wrong
        acts = [a for a in r.acts if not (a.act == "INFORM" and a.slot in gone)]
        acts += [act("INFORM", slot, [value]) for slot, value in said.items()]
        return replace(r.with_acts(acts), filled=(r.filled - wrong) | set(said))


LENGTH = re.compile(rf"\b({COUNT}|a|an) (nights?|days?|weeks?)\b")


class EndByLength:
    """ "3 nights, checking in next fri" to an intent whose two dates are a span (a hotel's
    check-in and check-out, a car's pickup and drop-off) and which has no count of time:
    the later date (the second of its dates, in the intent's order) is the length after the
    first, said this turn or held by the frame ("3 nights after next fri"; ``values.dates``
    reads it against the service's today), when the turn says one length and no later date
    was read."""

    name = "end_by_length"
    step = "acts"

    def _end(self, parts: Parts, r: Reading) -> tuple[str, str] | None:
        lengths = LENGTH.findall(r.text.lower())
        if len(lengths) != 1 or not r.predicted or count_of_time_slot(parts, r):
            return None
        spec = parts.schemas[r.service or ""].intent(r.intent)
        dates = set(slots_of_type(parts, r, "date"))
        span = (
            [s for s in (*spec.required_slots, *spec.optional_slots) if s in dates] if spec else []
        )
        if len(span) != 2 or unread_count_of_time(parts, r) or span[1] in r.filled:
            return None
        read = [a.values[0] for a in r.acts if a.act == "INFORM" and a.slot == span[0] and a.values]
        frame = r.context.state.get(r.service or "")
        held = frame.slot_values.get(span[0], []) if frame else []
        start = (read or held or [DONTCARE])[0]
        if start == DONTCARE:
            return None
        count, unit = lengths[0]
        return span[1], as_length_after(count, unit, start)

    def applies(self, parts: Parts, r: Reading) -> bool:
        return self._end(parts, r) is not None

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        found = self._end(parts, r)
        assert found is not None
        slot, value = found
        return replace(
            r.with_acts([*r.acts, act("INFORM", slot, [value])]), filled=r.filled | {slot}
        )


def _number(value: str) -> str:
    """A count in digits ("three" -> "3"), else the value as it is."""
    word = value.strip().lower()
    return str(number_value(word)) if NUMBER.fullmatch(word) else value


ANY = frozenset({"any", "anything", "some", "something"})
SKIPS = re.compile(rf"(?:^| )(?:{SKIP_SAID})(?: |$)")


class AnyOfAValue:
    """ "any comedies?" to "Where are you located?": the "any" is the genre's (the word after
    it begins a value read for another slot), not "any city": a "dontcare" read for a slot
    goes when every "any" of the turn so leans on another value, and no skip phrase ("any
    is fine", "i don't care") is said."""

    name = "any_of_a_value"
    step = "acts"

    def applies(self, parts: Parts, r: Reading) -> bool:
        return any(a.act == "INFORM" and a.values == [DONTCARE] for a in r.acts)

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        words = _WORD.findall(r.text.lower().replace("'", "").replace("’", ""))
        anys = [i for i, w in enumerate(words) if w in ANY]
        if not anys or SKIPS.search(" ".join(words)):
            return r
        said = {
            w[:4]
            for a in r.acts
            if a.act == "INFORM" and a.values != [DONTCARE]
            for v in a.values
            for w in _WORD.findall(v.lower())
            if len(w) >= 4
        }
        if not all(i + 1 < len(words) and words[i + 1][:4] in said for i in anys):
            return r
        kept = [a for a in r.acts if not (a.act == "INFORM" and a.values == [DONTCARE])]
        return r.with_acts(kept)


FAR_MORE = 5  # a value named this many times as often as another is the one meant


def initials(value: str) -> str:
    words = _WORD.findall(value.lower())
    return "".join(w[0] for w in words) if len(words) > 1 else ""


class Aliases:
    """Short forms of a service's known values, per slot: a multi-word value's initials
    ("sf": San Francisco), those with the initial of the head word of the slot's description
    ("nyc": New York for "City where the hotel is located") or of "city", which ends a
    city's initials whatever the slot is called ("nyc" for "Location of the hotel"), and a
    one-word value's first four letters ("phil" of Philadelphia: "philly"), a value
    without its spaces and stops ("washington dc": Washington D.C.), and a value's own word
    (``ValueWords.own``: "united" of United Airlines, "bedroom" of Bedroom speaker); and, for a
    value read (``ending``), the last word of a value of two words or more that no other value
    of the slot holds ("vegas": Las Vegas, where "las" is Las Cruces' too). Of two values a
    short form fits, the one people name far more often (``used``: a word's count in SGD
    train's turns, the value's least used word) is meant: "la" is Los Angeles, not Los
    Altos. Built once per service."""

    def __init__(
        self,
        known: Mapping[str, Sequence[str]],
        heads: Mapping[str, str] | None = None,
        used: Callable[[str], int] | None = None,
    ) -> None:
        self.used = used
        self.short: dict[str, dict[str, set[str]]] = {}  # slot -> short form -> values
        self.start: dict[str, dict[str, set[str]]] = {}  # slot -> first 4 letters -> values
        self.squeezed: dict[str, dict[str, set[str]]] = {}  # slot -> letters only -> values
        self.values = {slot: {v.strip().lower() for v in values} for slot, values in known.items()}
        for slot, values in known.items():
            short, start = self.short.setdefault(slot, {}), self.start.setdefault(slot, {})
            head = (heads or {}).get(slot, "")[:1]
            for value in values:
                first = initials(value)
                for form in {first, first + head, first + "c"} if first else ():
                    short.setdefault(form, set()).add(value)
                word = value.strip().lower()
                if len(word) >= 5 and word.isalpha():
                    start.setdefault(word[:4], set()).add(value)
                words = _WORD.findall(word)
                self.squeezed.setdefault(slot, {}).setdefault("".join(words), set()).add(value)
        by_slot = {slot: ValueWords.of(values) for slot, values in known.items()}
        self.own = {slot: v.own() for slot, v in by_slot.items()}
        self.owned = frozenset(w for own in self.own.values() for w in own)
        self.last = {slot: v.last() for slot, v in by_slot.items()}

    def of(self, token: str, slot: str) -> str | None:
        """The one known value of ``slot`` that ``token`` abbreviates, else None. The start
        of a word counts when the token shares more than half its letters with the value."""
        if token in self.values.get(slot, ()):
            return None  # a value itself
        same = self.squeezed.get(slot, {}).get("".join(_WORD.findall(token)), set())
        if len(same) == 1:  # the value itself but for its spaces and stops
            return next(iter(same))
        found = set(self.short.get(slot, {}).get(token, ()))
        found |= self.own.get(slot, {}).get(token, set())
        if len(token) >= 5:
            for value in self.start.get(slot, {}).get(token[:4], ()):
                if len(_prefix(token, value.lower())) * 2 > len(token):
                    found.add(value)
        if len(found) > 1 and self.used is not None:
            found = self._most_named(found)
        return found.pop() if len(found) == 1 else None

    def ending(self, token: str, slot: str) -> str | None:
        """The one known value of ``slot`` whose last word ``token`` is
        (``ValueWords.last``), when ``token`` is none itself: for a value the reader read,
        never a word found alone ("a different song to listen to" names no album ending in
        "Song")."""
        if token in self.values.get(slot, ()):
            return None
        found = self.last.get(slot, {}).get(token, set())
        return next(iter(found)) if len(found) == 1 else None

    def own_values(self, token: str, slot: str) -> AbstractSet[str]:
        """The values of ``slot`` whose own word ``token`` is."""
        return self.own.get(slot, {}).get(token, set())

    def owns(self, token: str) -> bool:
        """Whether ``token`` is a value's own word (``ValueWords.own``) for some slot: a whole
        word of the value, however common ("bedroom" of Bedroom speaker)."""
        return token in self.owned

    def _most_named(self, values: set[str]) -> set[str]:
        """The value whose least used word is used FAR_MORE times as often as any other's."""
        assert self.used is not None
        used = self.used
        named = sorted(
            ((min(used(w) for w in _WORD.findall(v.lower())), v) for v in values), reverse=True
        )
        (top, value), (second, _) = named[0], named[1]
        return {value} if top >= FAR_MORE * max(second, 1) else values


@dataclass(frozen=True)
class ValueWords:
    """A slot's values spelt as words, and how many values hold each word."""

    spelt: dict[str, list[str]]
    held: Counter[str]

    @classmethod
    def of(cls, values: Sequence[str]) -> ValueWords:
        spelt = {v: _WORD.findall(v.strip().lower()) for v in values}
        return cls(spelt, Counter(w for words in spelt.values() for w in set(words)))

    def last(self) -> dict[str, set[str]]:
        """The last word of each value of two words or more that no other value holds as a
        word: "vegas" of Las Vegas, "francisco" of San Francisco; not "park", which ends
        several."""
        return {
            words[-1]: {value}
            for value, words in self.spelt.items()
            if len(words) > 1 and self.held[words[-1]] == 1 and len(words[-1]) > 2
        }

    def own(self) -> dict[str, set[str]]:
        """A value's own word, for the values of two words or more that are one word but for
        words most of the slot's values hold: "united" of United Airlines ("airlines" is
        every airline's), "bedroom" of Bedroom speaker; none of Little Big Town."""
        common = {w for w, n in self.held.items() if n * 2 > len(self.spelt) > 2}
        own: dict[str, set[str]] = {}
        for value, words in self.spelt.items():
            rest = [w for w in words if w not in common]
            if len(words) > 1 and len(rest) == 1 and rest[0].isalpha() and len(rest[0]) > 2:
                own.setdefault(rest[0], set()).add(value)
        return own


def _prefix(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


class ValueAlias:
    """A value read that abbreviates one known value of its slot (``Aliases``) and is none
    itself: said as the user wrote it, its canonical value (what a call takes) the
    backend's ("sf": San Francisco, "nyc": New York)."""

    name = "value_alias"
    step = "acts"

    def applies(self, parts: Parts, r: Reading) -> bool:
        return r.predicted is not None and bool(r.read)

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        assert r.service is not None
        aliases = await parts.aliases(r.service)
        return r.with_acts([_spelt_out(a, aliases) for a in r.acts])


class AliasSearch:
    """A word that abbreviates one known value (``Aliases``) of a slot the intent takes and
    the turn left empty, read for that slot: said as the user wrote it, its canonical value
    the backend's."""

    name = "alias_search"
    step = "acts"

    def applies(self, parts: Parts, r: Reading) -> bool:
        return r.predicted is not None

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        assert r.service is not None
        aliases = await parts.aliases(r.service)
        said = " ".join(v.lower() for a in r.acts for v in a.values)
        tokens = [t for t in _WORD.findall(r.text.lower()) if len(t) >= 2 and t not in STOP]
        tokens = [t for t in tokens if t not in said and not t.isdigit() and _rare(t, parts)]
        open_slots = empty_inputs(parts, r)
        found: list[Action] = []
        for token in tokens:
            hits = [(s, aliases.of(token, s)) for s in open_slots]
            named = [(s, v) for s, v in hits if v is not None]
            if len(named) == 1:
                slot, value = named[0]
                found.append(act("INFORM", slot, [token], [value]))
                open_slots.remove(slot)
        return r.adding(found, [a.slot for a in found]) if found else r


class OwnWord:
    """A value named by its own word (``ValueWords.own``: "in the bedroom" for Bedroom speaker,
    "southwest if possible" for Southwest Airlines), for a slot the intent takes that the
    turn left empty, when the word is no other value's: said as the user wrote it, its
    canonical value the backend's. The reader scores a value by all of its words."""

    name = "own_word"
    step = "acts"

    def applies(self, parts: Parts, r: Reading) -> bool:
        return r.predicted is not None

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        assert r.service is not None
        aliases = await parts.aliases(r.service)
        said = {w for a in r.acts for v in a.values for w in _WORD.findall(v.lower())}
        words = [w for w in _WORD.findall(r.text.lower()) if w not in said and aliases.owns(w)]
        found: list[Action] = []
        for slot in sorted(empty_inputs(parts, r)):
            values = {(w, v) for w in words for v in aliases.own_values(w, slot)}
            if len({v for _, v in values}) == 1:
                word, value = values.pop()
                found.append(act("INFORM", slot, [word], [value]))
        return r.adding(found, [a.slot for a in found]) if found else r


COMMON = 1000  # a word used this often in SGD train's turns is itself, not a short form


def _rare(token: str, parts: Parts) -> bool:
    """Not a common word ("please" is no short form of Pleasanton)."""
    return parts.word_count(token) < COMMON


def _spelt_out(a: Action, aliases: AliasIndex) -> Action:
    """An INFORM whose one-word value abbreviates a known value, with that as canonical."""
    if a.act != "INFORM" or len(a.values) != 1 or a.canonical_values != a.values:
        return a
    said = a.values[0].strip().lower()
    value = aliases.of(said, a.slot) or aliases.ending(said, a.slot)
    return a if value is None else act("INFORM", a.slot, a.values, [value])


NAME_WORDS = frozenset({"name", "title", "label"})


class NamedValue:
    """A name the user gives after "call it", "named", "titled" ("an alarm at 7 called
    grocery run") for the one slot of the intent left empty whose description names a
    name, title or label and that takes free text. (The object of the intent's verb, "add
    lunch with sam that day", read the same way, cost train's held-out chat check 0.0037 of
    joint goal on fold 3: "get food together", "reserve will's"; stop 52.)"""

    name = "named_value"
    step = "acts"

    def applies(self, parts: Parts, r: Reading) -> bool:
        return r.predicted is not None and NAMED.search(r.text.lower()) is not None

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        service = r.service
        assert service is not None
        match = NAMED.search(r.text.lower())
        schema = parts.schemas[service]
        slots = [
            name
            for name in slots_of_type(parts, r, "text")
            if name not in r.filled
            and (spec := schema.slot(name)) is not None
            and not spec.is_categorical
            and NAME_WORDS & set(_WORD.findall(spec.description.lower()))
        ]
        if match is None or len(slots) != 1:
            return r
        start, end = match.span(1)
        value = r.text[start:end].strip()
        return r.adding([act("INFORM", slots[0], [value])], slots)


# English words that link a name to its value: "should be", "is at least", "of"
LINKING = frozenset(
    {"is", "be", "should", "would", "will", "must", "shall", "of", "at", "least", "most",
     "about", "around", "was", "are", "the", "a", "it", "its", "has", "have", "been",
     "exactly", "just", "only", "equal", "to"}
)  # fmt: skip


class SlotNamedBefore:
    """ "The star rating should be 4": a number said a few words after the whole name of a
    count slot of the intent or its near rivals (its name's words but "number" and "of":
    "star rating", "rooms", "party size") is that slot's, when its possible values hold it.
    The reader had given the 4 to the booking's number of nights, and the values read then
    chose the booking over the search (``intent_by_values``); so this runs before it, and the
    same number read for another slot goes. A free-text slot takes a decimal said after the
    last word of its description's head ("the rating is 4.3 or better" of "Review rating of
    the house", ``_decimal_after``)."""

    name = "slot_named_before"
    step = "read"

    def applies(self, parts: Parts, r: Reading) -> bool:
        return r.predicted is not None and NUMBER.search(r.text.lower()) is not None

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        service = r.service
        assert service is not None
        schema = parts.schemas[service]
        words = _WORD.findall(r.text.lower())
        stems = [stem(w) for w in words]
        found: dict[str, str] = {}
        for intent in (r.intent, *(n for _, n in r.near)):
            spec = schema.intent(intent)
            for name in (*spec.required_slots, *spec.optional_slots) if spec else ():
                slot = schema.slot(name)
                if slot is None or name in found:
                    continue
                if slot.is_categorical:
                    value = _named_number(words, stems, name, slot.possible_values)
                else:
                    value = _decimal_after(r.text.lower(), description_head(slot.description))
                if value is not None:
                    found[name] = value
        if not found:
            return r
        taken = set(found.values())
        read = [a for a in r.read if a.slot in found or not set(a.values) & taken]
        read = [a for a in read if a.slot not in found]
        read += [act("INFORM", slot, [value]) for slot, value in found.items()]
        return replace(r, read=tuple(read))


_DECIMAL = re.compile(r"(?<![\w.])(\d+\.\d+)(?![\w.])")


def _decimal_after(lower: str, head: Sequence[str]) -> str | None:
    """A decimal number ("4.3") said after the last word of a free-text slot's description
    head ("rating" of "Review rating of the house") with at most three linking words
    between: "the rating is 4.3 or better", "a rating of at least 4.5"."""
    if not head:
        return None
    last = stem(head[-1])
    if len(last) <= 3:
        return None
    for number in _DECIMAL.finditer(lower):
        for word in reversed(_WORD.findall(lower[: number.start()])[-4:]):
            if stem(word) == last:
                return number.group(1)
            if word not in LINKING:
                break
    return None


def _named_number(
    words: Sequence[str], stems: Sequence[str], slot: str, allowed: Sequence[str]
) -> str | None:
    """The number said after the slot's name (or its last word, "rating") with at most three
    linking words between ("should be", "of at least"), if its values hold it."""
    name = [stem(p) for p in slot.split("_") if p not in ("number", "of", "num")]
    if not name or not allowed or not all(v.isdigit() for v in allowed):
        return None
    for i in range(len(words)):
        if stems[i : i + len(name)] == name:
            size = len(name)
        elif stems[i] == name[-1] and len(name[-1]) > 3:  # "rating" of "star rating"
            size = 1
        else:
            continue
        for w in words[i + size : i + size + 4]:
            if w.isdigit() or w in NUMBER_WORDS:
                value = str(number_value(w))
                return value if value in allowed else None
            if w not in LINKING:  # "the star rating should be 4", not "rooms at hotel one"
                break
    return None


def _count_corrected(
    parts: Parts, r: Reading, read: list[Action], lower: str, cue: int
) -> list[Action]:
    """ "3 nights. no wait, 2 is enough": the one count read from before the correcting
    phrase takes the one bare number said after it (no word of another slot's description
    next to it: not "actually 2 rooms"; none inside a time or a name read: "make it for half
    past 1"), which is read for no other slot."""
    before = [
        (i, a)
        for i, a in enumerate(read)
        if a.act == "INFORM" and a.values and a.values[0].isdigit()
        and 0 <= lower.find(a.values[0]) < cue
    ]  # fmt: skip
    # not a number inside a time, a date or a name read ("make it for half past 1")
    named = [a for a in read if a.values and not a.values[0].isdigit()]
    after = list(NUMBER.finditer(unsaid(lower, named), cue))
    if len(before) != 1 or len(after) != 1:
        return read
    (i, counted), number = before[0], after[0]
    value = str(number_value(number.group(1)))
    beside = set(tokens(lower[number.end() :])[:1])
    others = {
        w for v in parts.views[r.service or ""] if v.name != counted.slot for w in v.description
    }
    if beside & others or value == counted.values[0]:
        return read
    corrected = act("INFORM", counted.slot, [value])
    return [corrected if n == i else a for n, a in enumerate(read) if a.values != [value]]


# English phrases that point forward to a corrected value ("instead of" points back: not one)
CORRECTING = re.compile(
    r"\b(?:make it|make that|change it to|change that to|move it to|switch it to|no wait|"
    r"wait no|i mean|or rather)\b"
)


class CorrectedValue:
    """ "oh wait i work on the 5th, make it the 6th": a date or a time read from before a
    correcting phrase ("make it", "change it to", "move it to", "no wait") gives way to the
    one of the same kind said after it, and a count to the bare number (``_count_corrected``:
    "3 nights. no wait, 2 is enough"). The reader took the first date of the turn."""

    name = "corrected_value"
    step = "read"

    def applies(self, parts: Parts, r: Reading) -> bool:
        return r.predicted is not None and CORRECTING.search(r.text.lower()) is not None

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        lower = r.text.lower()
        cue = list(CORRECTING.finditer(lower))[-1]
        read = list(r.read)
        for i, a in enumerate(read):
            if a.act != "INFORM" or not a.values:
                continue
            said = a.values[0].lower()
            at = lower.find(said)
            if at < 0 or at >= cue.start():
                continue
            for kind in (DATE, TIME):
                if not kind.fullmatch(said):
                    continue
                after = [m.group() for m in kind.finditer(lower, cue.end()) if m.group() != said]
                if after:
                    read[i] = act("INFORM", a.slot, [after[0]])
        return replace(r, read=tuple(_count_corrected(parts, r, read, lower, cue.end())))
