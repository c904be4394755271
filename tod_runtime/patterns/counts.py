"""``out_of_range``: a count the schema does not allow is said back, not dropped.

"book a table for 12" where the party may be 1 to 10: the understanding reads only the values
a categorical slot allows, so the 12 was lost, the intent's default (2) said in its place and
a table for 2 confirmed. A slot is a count when every value its schema allows is a whole
number, the least 0 or 1 (not a year). A number said is the count's when the system just
asked for it, when the word after it is one of the slot's description ("3 rooms") or names
people ("12 people", "5 of us"), or when the intent has this one count and the number follows
"for" or "of" with no other noun after it ("for 12 tomorrow"). Times, dates, prices, ordinals
and numbers inside a value read ("AMC NewPark 12") are not counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tod_runtime.dialogue.models import State, act
from tod_runtime.dialogue.refusal import Refusal, refusal_act
from tod_runtime.nlu.learned.text import STOP
from tod_runtime.nlu.rules import plain_words
from tod_runtime.nlu.values import DATE, TIME
from tod_runtime.patterns.base import PatternTurn
from tod_runtime.schema.models import IntentSchema, ServiceSchema, SlotSchema
from tod_runtime.values.numbers import TENS, UNITS

_NUMBER = re.compile(r"\b(\d{1,4}|" + "|".join([*UNITS, *TENS]) + r")\b")
_AFTER = frozenset({"for", "of"})
PERSONS = frozenset({"people", "person", "persons", "guests", "adults", "of"})  # "12 of us"


def _value(token: str) -> int:
    return int(token) if token.isdigit() else {**UNITS, **TENS}[token]


def _words(text: str) -> set[str]:
    """A description's content words, plural and singular ("rooms", "room")."""
    out = set(plain_words(text).split()) - STOP
    return out | {w[:-1] for w in out if w.endswith("s") and len(w) > 3} | {w + "s" for w in out}


def _allowed(slot: SlotSchema) -> list[int] | None:
    """The whole numbers a count slot allows, None when the slot is not a count."""
    values = [v for v in slot.possible_values if v.lower() != "dontcare"]
    if not slot.is_categorical or not values or not all(v.isdigit() for v in values):
        return None
    allowed = sorted(int(v) for v in values)
    return allowed if allowed[0] <= 1 else None  # counts start at 0 or 1; years do not


@dataclass(frozen=True)
class Counted:
    service: str
    slot: str
    said: int
    refusal: Refusal


class OutOfRange:
    """A count said outside the values its slot allows ("a table for 12", the party 1 to 10):
    the reply says the limit and asks for the slot; the state keeps what it held before."""

    name: str = "out_of_range"

    def _found(self, turn: PatternTurn) -> Counted | None:
        service = turn.service
        schema = turn.context.schemas.get(service) if service else None
        frame = turn.state.get(service) if service else None
        if service is None or schema is None or frame is None:
            return None
        counts = _counts(schema, schema.intent(frame.active_intent or ""))
        if not counts:
            return None
        asked = {a.slot for a in turn.previous(service) if a.act == "REQUEST" and a.slot}
        informed = {a.slot: a.values for a in turn.acts.get(service, []) if a.act == "INFORM"}
        text = plain_words(turn.text)
        taken = _taken(text, informed)
        for match in _NUMBER.finditer(text):
            if any(a <= match.start() < b for a, b in taken):
                continue
            before, after = text[: match.start()].split()[-1:], text[match.end() :].split()[:1]
            dated = any(a == match.end() + 1 for a, _ in taken)  # "for 12 tomorrow"
            slot = _whose(counts, asked, before, "" if dated or not after else after[0])
            if slot is None:
                continue
            said, allowed = _value(match.group(1)), counts[slot][0]
            if said in allowed or any(v.isdigit() for v in informed.get(slot, [])):
                continue  # in range, or the count was read ("two people, for 12 ...")
            return Counted(service, slot, said, _refusal(slot, said, allowed))
        return None

    def applies(self, turn: PatternTurn) -> bool:
        return self._found(turn) is not None

    def apply(self, turn: PatternTurn) -> PatternTurn:
        found = self._found(turn)
        assert found is not None
        acts = turn.acts_copy()
        acts[found.service] = [a for a in acts.get(found.service, []) if a.slot != found.slot]
        state = dict(turn.state)
        frame = state[found.service]
        before = (turn.context.state.get(found.service) or State()).slot_values.get(found.slot)
        values = {k: v for k, v in frame.slot_values.items() if k != found.slot}
        if before:
            values[found.slot] = before
        state[found.service] = frame.model_copy(update={"slot_values": values})
        answer = (refusal_act(found.refusal), act("REQUEST", found.slot))
        return turn.amended(acts=acts, state=state, answer=answer, answer_service=found.service)


def _taken(text: str, informed: dict[str, list[str]]) -> list[tuple[int, int]]:
    """The spans of ``text`` that are no count: times, dates and the values read ("for AMC
    NewPark 12")."""
    taken = [m.span() for m in (*TIME.finditer(text), *DATE.finditer(text))]
    for values in informed.values():
        for value in values:
            written = plain_words(value)
            at = text.find(written) if written else -1
            if at >= 0:
                taken.append((at, at + len(written)))
    return taken


def _refusal(slot: str, said: int, allowed: list[int]) -> Refusal:
    if said > allowed[-1]:
        return Refusal(slot=slot, reason="at_most", limit=str(allowed[-1]))
    return Refusal(slot=slot, reason="at_least", limit=str(allowed[0]))


def _counts(
    schema: ServiceSchema, intent: IntentSchema | None
) -> dict[str, tuple[list[int], set[str]]]:
    """The intent's count slots: the values each allows and its description's words."""
    if intent is None:
        return {}
    out = {}
    for name in (*intent.required_slots, *intent.optional_slots):
        slot = schema.slot(name)
        allowed = _allowed(slot) if slot is not None else None
        if slot is not None and allowed:
            out[name] = (allowed, _words(slot.description))
    return out


def _whose(
    counts: dict[str, tuple[list[int], set[str]]],
    asked: set[str],
    before: list[str],
    after: str,
) -> str | None:
    """The count slot a number said is for, None when it is for none of them. ``after`` is
    the word after the number, "" when none or a date or time follows."""
    named = [slot for slot, (_, words) in counts.items() if after in words]
    if named:
        return named[0]
    if before[:1] == ["at"] or (after and after not in STOP and after not in PERSONS):
        return None  # "at 12", "for 3 nights" (a count of something else)
    wanted = [slot for slot in counts if slot in asked]
    if len(wanted) == 1:
        return wanted[0]
    if len(counts) == 1 and (after in PERSONS or before[:1] and before[0] in _AFTER):
        return next(iter(counts))
    return None
