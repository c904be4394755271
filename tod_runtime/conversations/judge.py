"""The pass rule of a conversation script (docs/conversations.md), applied to the turns a
runtime answered. A conversation passes when:

1. every ``expect`` is met by a call of that intent whose parameters equal the expected
   values (case-insensitive; numbers as numbers; ``*`` any value) and whose results are not
   empty;
2. every ``reply-has`` holds: the reply to that line states the slot's value for the entity
   under discussion (the result the user's line names, else the one the replies before it
   named last), as the results row has it (a clock time also as "7 pm" / "7:00 pm", an
   amount with or without "$" and thousands separators);
3. no transactional call succeeds that matches no ``expect``.

and tod-runtime's own directives hold (script.py): every ``expect-empty`` is met by a call
with those parameters that returned nothing; every ``reply-contains`` text is in the reply to
its line (case-insensitive, spaces collapsed); every ``reply-has-another`` slot's value, of a
result other than the entity under discussion before that line, is stated by its reply.

``judge`` returns the reasons a conversation failed, [] when it passed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tod_runtime.conversations.script import ANY, ExpectedCall, Script
from tod_runtime.dialogue.models import ServiceCall

Row = Mapping[str, str]


@dataclass(frozen=True)
class AnsweredTurn:
    """What the judge reads of one answered user line."""

    user: str
    reply: str
    service: str | None = None
    call: ServiceCall | None = None
    results: tuple[Row, ...] = ()
    transactional: bool = False


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", "").lstrip("$"))
    except ValueError:
        return None


def same_value(expected: str, actual: str) -> bool:
    """An expected parameter against the call's: ``*``, equal ignoring case and spacing,
    or equal as numbers ("4" and "4.0", "$1,200" and "1200")."""
    if expected == ANY:
        return True
    if _norm(expected) == _norm(actual):
        return True
    a, b = _number(expected), _number(actual)
    return a is not None and a == b


def same_call(expected: ExpectedCall, call: ServiceCall | None) -> bool:
    """Whether ``call`` is of the expected intent with (at least) the expected parameters."""
    if call is None or call.method != expected.method:
        return False
    return all(
        name in call.parameters and same_value(value, call.parameters[name])
        for name, value in expected.parameters
    )


def call_matches(expected: ExpectedCall, turn: AnsweredTurn) -> bool:
    """Whether the turn's call is the expected one (intent and parameters), with results."""
    return bool(turn.results) and same_call(expected, turn.call)


# ------------------------------------------------------------------ what a reply states


def _time_forms(value: str) -> list[str]:
    match = re.fullmatch(r"(\d{1,2}):(\d{2})", value.strip())
    if match is None:
        return []
    hour, minute = int(match.group(1)), match.group(2)
    half = "am" if hour < 12 else "pm"
    twelve = hour % 12 or 12
    forms = [f"{twelve}:{minute} {half}", f"{twelve}:{minute}{half}", value.strip()]
    if minute == "00":
        forms += [f"{twelve} {half}", f"{twelve}{half}"]
    if hour == 12 and minute == "00":
        forms.append("noon")
    return forms


_AMOUNT = re.compile(r"(?<=\d),(?=\d{3}\b)|\$")


def _plain(text: str) -> str:
    """Lower case, single spaces, no "$" and no thousands separators."""
    return _norm(_AMOUNT.sub("", text))


def _word_in(needle: str, hay: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(needle)}(?![\w])", hay) is not None


def states_value(reply: str, value: str) -> bool:
    """Whether the reply says ``value`` (a time also in its 12-hour forms, an amount with or
    without "$" and thousands separators; a number as a word boundary match)."""
    plain = _plain(reply)
    forms = [_plain(value), *(_norm(f) for f in _time_forms(value))]
    number = _number(value)
    if number is not None and number == int(number):
        forms.append(str(int(number)))
    return any(form and _word_in(form, plain) for form in forms)


def entity_under_discussion(rows: Sequence[Row], replies: Sequence[str]) -> Row | None:
    """Of the latest results, the row the system has been talking about: the newest reply
    that names a row by its naming values (words of at least three letters, not numbers or
    times, told apart from the other rows: a city all rows share names none) or by a clock
    time of its own ("Union Station at 8:20 am" among buses that all leave Union Station)
    names the row it states most naming values of, then most such times, then the first;
    with no such reply, the first row."""
    if not rows:
        return None

    def marks(row: Row) -> tuple[list[str], list[str]]:
        """The row's naming values and clock times, of those told apart from the others'."""
        own = [v for slot, v in row.items() if any(other.get(slot) != v for other in rows)]
        times = [v for v in own if _time_forms(v)]
        names = [
            v
            for v in own
            if len(v) >= 3
            and _number(v) is None
            and not _time_forms(v)
            and v.lower() not in ("true", "false")
        ]
        return names, times

    def stated(values: Sequence[str], text: str) -> int:
        return sum(states_value(text, v) for v in values)

    marked = [marks(row) for row in rows]
    for reply in reversed(replies):
        scores = [(stated(own, reply), stated(clock, reply)) for own, clock in marked]
        best = max(range(len(rows)), key=lambda i: (scores[i], -i))  # the first of equals
        if any(scores[best]):
            return rows[best]
    return rows[0]


# ------------------------------------------------------------------ the rule


def judge(script: Script, turns: Sequence[AnsweredTurn]) -> list[str]:
    """The reasons the conversation failed; [] when it passed."""
    calls = [f"{t.call.method}{dict(t.call.parameters)}" for t in turns if t.call]
    seen = "; ".join(calls) or "none"
    failures = [
        f"expected call {expected} {_why_unmet(expected, turns)} (calls made: {seen})"
        for expected in script.expects
        if not any(call_matches(expected, t) for t in turns)
    ]
    for turn in turns:
        call = turn.call
        if call is None or not (turn.transactional and turn.results):
            continue
        if not any(call_matches(e, turn) for e in script.expects):
            made = f"{call.method}{dict(call.parameters)}"
            failures.append(f"unwanted booking succeeded: {made} (after {turn.user!r})")
    failures += [
        f"expected call {expected} returning nothing not made (calls: {seen})"
        for expected in script.expect_empty
        if not any(same_call(expected, t.call) and not t.results for t in turns)
    ]
    failures += _replies(script, turns)
    return failures


def _why_unmet(expected: ExpectedCall, turns: Sequence[AnsweredTurn]) -> str:
    """ "returned nothing" when the call was made (or every call of its intent found
    nothing), else "not made"."""
    near = [t for t in turns if t.call and t.call.method == expected.method]
    made = any(same_call(expected, t.call) for t in near)
    return "returned nothing" if made or (near and all(not t.results for t in near)) else "not made"


def _replies(script: Script, turns: Sequence[AnsweredTurn]) -> list[str]:
    failures: list[str] = []
    rows: tuple[Row, ...] = ()
    since: list[str] = []
    for line, turn in zip(script.lines, turns, strict=False):
        before = entity_under_discussion(rows, since) if line.reply_another else None
        if turn.results:
            rows, since = turn.results, []
        since.append(turn.reply)
        # named by the user's line, else before this reply (the reply under judgement must
        # not choose its own entity): "is paper moons playing? how much is it?"
        talked = [*(since[:-1] or since), turn.user]
        entity = entity_under_discussion(rows, talked) if line.reply_has else None
        for slot in line.reply_has:
            value = entity.get(slot) if entity else None
            if value is None:
                failures.append(f"reply to {turn.user!r}: no result holds {slot} to state")
            elif not states_value(turn.reply, value):
                failures.append(
                    f"reply to {turn.user!r} does not state {slot}={value!r}: {turn.reply!r}"
                )
        failures += [
            f"reply to {turn.user!r} does not contain {text!r}: {turn.reply!r}"
            for text in line.reply_contains
            if _norm(text) not in _norm(turn.reply)
        ]
        failures += _another(turn, line.reply_another, rows, before)
    return failures


def _another(
    turn: AnsweredTurn, slots: Sequence[str], rows: Sequence[Row], before: Row | None
) -> list[str]:
    """``reply-has-another``: the reply states each slot's value of a result whose value
    differs from the entity under discussion before the line's."""
    failures: list[str] = []
    for slot in slots:
        old = _norm(before.get(slot, "")) if before else ""
        others = {r[slot] for r in rows if slot in r and _norm(r[slot]) != old}
        if not any(states_value(turn.reply, value) for value in others):
            failures.append(
                f"reply to {turn.user!r} states no other result's {slot}: {turn.reply!r}"
            )
    return failures
