"""Sister services share one world: a search that two services of a split offer under the same
intent name (Flights_1's and Flights_2's ``SearchOnewayFlight``) finds, in either service, the
rows both recorded, each in the service's own slot names. A flight Flights_2's recordings hold
(New York to Chicago on 2019-03-07) is then found, and can be reserved, on Flights_1, which
alone can reserve and never recorded it.

The slots of the two searches are paired one to one by their names and descriptions (content
words in common) and the values their recordings hold (the share of the smaller set of values
the other holds), within one value kind, best pairs first. The service's every required input
of the search must be paired, else the sister's rows are not taken. A row keeps its recorded
values (never another date or value); a slot the sister does not know is left out of the row
(a search or a booking constraining it does not find the row), and a row whose categorical
value the service does not allow is not taken. Only the searches' tables are shared: the
service's own entities (what the NLU knows) and its transactions' recordings are its own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping

from tod_runtime.schema.models import IntentSchema, ServiceSchema
from tod_runtime.schema.roles import FUNCTION_WORDS, NAMING
from tod_runtime.values.normalise import slot_kind

Rows = dict[str, dict[str, str]]  # canonical JSON -> row
PAIRED = 0.5  # the least score of a pair of slots
INFORMATIVE = 5  # values shared count for a pair when both slots recorded this many
_WORD = re.compile(r"[a-z]+")


def _words(schema: ServiceSchema, slot: str) -> frozenset[str]:
    spec = schema.slot(slot)
    text = slot.replace("_", " ") + " " + (spec.description if spec else "")
    return frozenset(w for w in _WORD.findall(text.lower()) if w not in FUNCTION_WORDS | {"the"})


def _values(rows: Iterable[Mapping[str, str]], slot: str) -> set[str]:
    return {row[slot].strip().lower() for row in rows if row.get(slot, "").strip()}


def _slots(intent: IntentSchema) -> list[str]:
    slots = [*intent.required_slots, *intent.optional_slots, *intent.result_slots]
    return list(dict.fromkeys(slots))


def pairing(
    own: tuple[ServiceSchema, IntentSchema, Rows], sister: tuple[ServiceSchema, IntentSchema, Rows]
) -> dict[str, str] | None:
    """The sister's slots paired with the service's (sister slot -> own slot), or None when a
    required input of the service's search has no pair."""
    (a, search_a, rows_a), (b, search_b, rows_b) = own, sister
    scored: list[tuple[float, str, str]] = []
    for slot_a in _slots(search_a):
        words_a, values_a = _words(a, slot_a), _values(rows_a.values(), slot_a)
        for slot_b in _slots(search_b):
            if slot_kind(a, slot_a) != slot_kind(b, slot_b):
                continue
            words_b, values_b = _words(b, slot_b), _values(rows_b.values(), slot_b)
            named = len(words_a & words_b) / max(1, len(words_a | words_b))
            fewer = min(len(values_a), len(values_b))  # yes/no, a few classes: not a sign
            shared = len(values_a & values_b) / fewer if fewer >= INFORMATIVE else 0.0
            score = 2.0 if slot_a == slot_b else named + shared
            if score >= PAIRED:
                scored.append((score, slot_a, slot_b))
    pairs: dict[str, str] = {}
    for _, slot_a, slot_b in sorted(scored, key=lambda s: -s[0]):
        if slot_b not in pairs and slot_a not in pairs.values():
            pairs[slot_b] = slot_a
    if not set(search_a.required_slots) <= set(pairs.values()):
        return None
    sister_of = {own_slot: sister_slot for sister_slot, own_slot in pairs.items()}
    for slot in _entity_slots(a, search_a):  # the same kind of thing: a salon is no dentist
        words = _words(a, slot) - NAMING
        if slot not in sister_of or not words & (_words(b, sister_of[slot]) - NAMING):
            return None
    return pairs


def _entity_slots(schema: ServiceSchema, search: IntentSchema) -> list[str]:
    """The slots a transaction of the service needs that the search returns (the hotel's
    name, the airline): what the search finds."""
    needed = {s for i in schema.intents if i.is_transactional for s in i.required_slots}
    return [s for s in search.result_slots if s in needed]


def _allowed(schema: ServiceSchema, row: Mapping[str, str]) -> bool:
    """Whether each categorical value of the row is one the service allows."""
    return all(
        spec is None or spec.allows(value)
        for slot, value in row.items()
        for spec in [schema.slot(slot)]
    )


def shared_rows(
    schemas: Mapping[str, ServiceSchema], by_method: Mapping[tuple[str, str], Rows]
) -> dict[tuple[str, str], list[dict[str, str]]]:
    """For each (service, search) with sisters, the rows its sisters recorded, in its slot
    names, that it did not record itself."""
    out: dict[tuple[str, str], list[dict[str, str]]] = {}
    for (service, method), rows in by_method.items():
        schema = schemas.get(service)
        intent = schema.intent(method) if schema else None
        if schema is None or intent is None or intent.is_transactional:
            continue
        for (other, other_method), other_rows in by_method.items():
            sister = schemas.get(other)
            if other == service or other_method != method or sister is None:
                continue
            other_intent = sister.intent(method)
            if other_intent is None or other_intent.is_transactional:
                continue
            pairs = pairing((schema, intent, rows), (sister, other_intent, other_rows))
            if pairs is None:
                continue
            for row in other_rows.values():
                renamed = {pairs[k]: v for k, v in row.items() if k in pairs}
                key = json.dumps(renamed, sort_keys=True)
                if key not in rows and _allowed(schema, renamed):
                    out.setdefault((service, method), []).append(renamed)
    return out
