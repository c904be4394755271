"""What the policy reads back about values: the canonical form of a state slot's values and
the call parameters built from the state, in the backend's form (``values.normalise``).
Everything about the past comes from ``History``."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date

from tod_runtime.dialogue.history import History
from tod_runtime.dialogue.models import DONTCARE, Action, State
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.values.normalise import normalise_value, slot_kind
from tod_runtime.values.numbers import parse_count
from tod_runtime.values.times import parse_time


def _scan(
    values: Sequence[str], slot: str, acts: Sequence[Action]
) -> tuple[str | None, str | None]:
    """(canonical form from an act of ``slot``, from an act of any slot) in ``acts``."""
    fallback = None
    for act in acts:
        if not act.canonical_values:
            continue
        for value in values:
            if value in act.values:
                found = act.canonical_values[act.values.index(value)]
                if act.slot == slot:
                    return found, fallback
                fallback = fallback or found
    return None, fallback


def canonical(
    values: Sequence[str],
    slot: str,
    schema: ServiceSchema,
    history: History,
    current: Sequence[Action] = (),
) -> str:
    """The canonical form of a state slot (its equivalent ``values``, best first): a
    categorical slot's possible value, else the canonical value the newest act naming one of
    the values gave (this turn's ``current`` acts first; an act of another slot, as when a
    value was carried over from another service, if no act of this slot did), else the value
    itself."""
    spec = schema.slot(slot)
    if spec is not None and spec.is_categorical:
        for value in values:
            for possible in spec.possible_values:
                if possible.lower() == value.lower():
                    return possible
    now, now_any = _scan(values, slot, current)
    if now is not None:
        return now
    earlier = history.canonical(values, slot)
    if earlier is not None:
        return earlier
    return now_any or history.canonical(values, None) or values[0]


def backend_value(
    values: Sequence[str],
    slot: str,
    schema: ServiceSchema,
    history: History,
    current: Sequence[Action],
    today: date,
) -> str:
    """The canonical form of a state slot, in the form the service's backend takes it ("next
    Friday" -> "2019-03-08" when the backend's today is 2019-03-01; "6pm" -> "18:00")."""
    value = canonical(values, slot, schema, history, current)
    return normalise_value(value, slot_kind(schema, slot), today)


def call_parameters(
    state: State,
    slots: Sequence[str],
    schema: ServiceSchema,
    history: History,
    current: Sequence[Action],
    today: date,
) -> dict[str, str]:
    """Call parameters from the state, canonical and in the backend's form (dates read
    against ``today``, the backend's reference date); "dontcare" slots are left out."""
    return {
        slot: backend_value(state.slot_values[slot], slot, schema, history, current, today)
        for slot in slots
        if state.slot_values.get(slot) and state.slot_values[slot][0] != DONTCARE
    }


def addressed_service(
    user_acts: Mapping[str, Sequence[Action]], active: str | None, state: Mapping[str, State]
) -> str | None:
    """The service the system answers: when the user spoke to several, the one they opened a
    task in (INFORM_INTENT: "yes, that one; now find me a house there"), else ``active``
    (the pipeline's choice), else the newest frame of the state."""
    if len(user_acts) > 1:
        for service, acts in reversed(list(user_acts.items())):
            if any(a.act == "INFORM_INTENT" for a in acts):
                return service
    return active or next(reversed(list(state)), None)


def _contradicts(result: str, said: Sequence[str]) -> bool:
    """Whether a result's clock time is none of the state's values of its slot read as times
    ("5pm" against 14:00; an hour without "am" or "pm" may be either); False when the state
    has none, or when either is no time (a count the user gives, "1 room", says how many to
    book, not which result: a hotel's recorded rooms are no choice)."""
    if not said or not re.fullmatch(r"\d{2}:\d{2}", result):
        return False
    hour, minute = int(result[:2]), result[3:]
    either = {result, f"{(hour + 12) % 24:02d}:{minute}"}
    read = [parse_time(v) for v in said]
    return all(r is not None for r in read) and not either & set(read)


def entity_on_offer(
    history: History, service: str, state: State, said: Sequence[Action] = ()
) -> dict[str, str] | None:
    """The result of the last search that is on offer: of the results the newest offer named
    (several when it listed them, "A, B or C"), the one holding most of the state's values
    (the one the user took), else the first; when that one's time contradicts the state's,
    the first result of the search that contradicts none ("the 5pm one" with the 2 pm show
    on offer). When it contradicts a value the user ``said`` this turn (not a bare number: how
    many to book) and another result of the search holds every such value, that one ("is
    paper moons playing?" with Broken Compass on offer). None before any offer."""
    search, _ = history.last_search(service)
    results = (search.service_results or []) if search is not None else []
    named = [results[i] for i in history.on_offer(service) if i < len(results)]
    if not named:
        return None

    def held(result: dict[str, str]) -> int:
        return sum(
            value.strip().lower() in {v.strip().lower() for v in state.slot_values.get(slot, [])}
            for slot, value in result.items()
        )

    def contradicted(result: dict[str, str]) -> bool:
        return any(_contradicts(v, state.slot_values.get(s, [])) for s, v in result.items())

    best = max(named, key=held)  # the first of equals
    if contradicted(best):  # "the 5pm one" of two shows, the 2 pm one on offer
        best = next((r for r in results if not contradicted(r)), best)
    told = {
        a.slot: {v.strip().lower() for v in (*a.values, *a.canonical_values)}
        for a in said
        if a.act == "INFORM" and a.values and parse_count(a.values[0]) != a.values[0].strip()
    }  # a number said is how many to book ("1 room"), not which result

    def holds(result: dict[str, str]) -> bool:
        return all(result[s].strip().lower() in vs for s, vs in told.items() if s in result)

    if holds(best):
        return best
    return next((r for r in results if any(s in r for s in told) and holds(r)), best)
