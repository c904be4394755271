"""Sister services share one world: a search that two services of a split offer under the same
intent name (Flights_1's and Flights_2's ``SearchOnewayFlight``) finds, in either service, the
rows both recorded, each in the service's own slot names. A flight Flights_2's recordings hold
(New York to Chicago on 2019-03-07) is then found, and can be reserved, on Flights_1, which
alone can reserve and never recorded it.

The slots of the two searches are paired one to one by their names and descriptions (content
words in common) and their values (the share of the smaller set of values the other holds: a
categorical slot's possible values, else what its recordings hold), within one value kind,
best pairs first; two slots whose values are known and disjoint are no pair, whatever their
names (Events_1's ``category``, Music or Sports, is Events_2's ``event_type``, not its
``category``, which holds Football and Rock). The service's every required input
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
from dataclasses import dataclass

from tod_runtime.dialogue.refusal import Provider
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


def _known(schema: ServiceSchema, slot: str, rows: Rows) -> tuple[set[str], bool]:
    """A slot's values, and whether they say what the slot holds: a categorical slot's
    possible values (not a yes/no flag's), else its recordings' when there are
    ``INFORMATIVE`` of them."""
    spec = schema.slot(slot)
    if spec is not None and spec.is_categorical:
        values = {v.lower() for v in spec.possible_values}
        return values, len(values) > 1 and values != {"true", "false"}
    values = _values(rows.values(), slot)
    return values, len(values) >= INFORMATIVE


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
        words_a, (values_a, says_a) = _words(a, slot_a), _known(a, slot_a, rows_a)
        for slot_b in _slots(search_b):
            if slot_kind(a, slot_a) != slot_kind(b, slot_b):
                continue
            words_b, (values_b, says_b) = _words(b, slot_b), _known(b, slot_b, rows_b)
            named = len(words_a & words_b) / max(1, len(words_a | words_b))
            shared = 0.0
            if says_a and says_b:  # yes/no, a few recorded classes: not a sign
                shared = len(values_a & values_b) / min(len(values_a), len(values_b))
                if not shared:
                    continue  # the same name, other things
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
        if slot_kind(a, slot) != "text" or _known(a, slot, rows_a)[1] and slot in sister_of:
            continue  # a date, a count, a class paired by its values says no kind
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


@dataclass(frozen=True)
class SharedRow:
    """A row a sister recorded, in the service's slot names; ``slots``: the service's slot
    -> the sister's."""

    row: dict[str, str]
    sister: str
    slots: Mapping[str, str]


def shared_rows(
    schemas: Mapping[str, ServiceSchema], by_method: Mapping[tuple[str, str], Rows]
) -> dict[tuple[str, str], list[SharedRow]]:
    """For each (service, search) with sisters, the rows its sisters recorded, in its slot
    names, that it did not record itself."""
    out: dict[tuple[str, str], list[SharedRow]] = {}
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
            theirs = {own: slot for slot, own in pairs.items()}
            for row in other_rows.values():
                renamed = {pairs[k]: v for k, v in row.items() if k in pairs}
                key = json.dumps(renamed, sort_keys=True)
                if key not in rows and _allowed(schema, renamed):
                    out.setdefault((service, method), []).append(SharedRow(renamed, other, theirs))
    return out


def provider(
    schemas: Mapping[str, ServiceSchema], service: str, shared: SharedRow
) -> Provider | None:
    """The sister that recorded ``shared``, the rows a search of ``service`` found, when it
    offers every transaction the service offers (where the task goes on): the service the
    user's item belongs to."""
    mine, theirs = schemas[service], schemas[shared.sister]
    wanted = {i.name for i in mine.intents if i.is_transactional}
    if not wanted <= {i.name for i in theirs.intents if i.is_transactional}:
        return None
    return Provider(service=shared.sister, slots=dict(shared.slots))
