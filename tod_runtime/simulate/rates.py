"""How often SGD's users ask about a result slot, and say an optional constraint of a
search, per slot role: counted on SGD train and shipped in ``rates.json``, never per service
or slot name, so a simulated user wants what SGD's users want of any service.

A slot's role is what its schema says of it, in any service: whether a transaction of the
service takes it (the entity's name, its date, the subtitles of a rental: what the system
offers and books or the user sets, which SGD's users never ask about), its value type
(``schema.roles``), and the head of its description (the last word before the first
function word: "Address of the dentist" -> address, "Contact number
for the doctor" -> number, "Boolean flag indicating ..." -> indicating; "Whether ..." has
none, and its role is its kind's).

- ``asked``: among the dialogues whose user was in a search and did not constrain one of its
  result slots, how often they asked about it;
- ``said``: among the dialogues whose user was in a search, how often they gave one of its
  optional slots a value (not "dontcare").

A role train never saw backs off to its booked flag and value type.
``python scripts/user_rates.py SGD_DIR`` recounts the table.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Literal

from tod_runtime.dialogue.models import DONTCARE, Dialogue
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.schema.roles import description_head, slot_roles

RATES_FILE = Path(__file__).parent / "rates.json"
PRIOR = 20.0  # dialogues' worth of weight the back-off rate gets beside a role's own counts

Counts = dict[str, list[int]]  # role key -> [hits, dialogues]
Table = Literal["asked", "said"]


def role_keys(schema: ServiceSchema, slot: str) -> tuple[str, str]:
    """The slot's full role key and its back-off key."""
    booked = any(
        slot in i.required_slots or slot in i.optional_slots
        for i in schema.intents
        if i.is_transactional
    )
    spec = schema.slot_map[slot]
    head = description_head(spec.description)
    kind = f"{'booked' if booked else 'free'} {slot_roles(schema)[slot].value_type}"
    # no head ("Whether the flight is refundable"): the kind alone says what the slot is
    return (f"{kind} {head[-1]}" if head else kind), kind


def _add(table: Counts, schema: ServiceSchema, slot: str, hit: bool) -> None:
    for key in dict.fromkeys(role_keys(schema, slot)):  # once when the two are one
        row = table.setdefault(key, [0, 0])
        row[0] += int(hit)
        row[1] += 1


def count(
    dialogues: Iterable[Dialogue], schemas: Mapping[str, ServiceSchema]
) -> dict[Table, Counts]:
    """The ``asked`` and ``said`` tables (module doc) over SGD dialogues."""
    asked_table: Counts = {}
    said_table: Counts = {}
    for dialogue in dialogues:
        intents: dict[str, set[str]] = {}
        asked: dict[str, set[str]] = {}
        said: dict[str, set[str]] = {}
        for turn in dialogue.turns:
            if turn.speaker != "USER":
                continue
            for frame in turn.frames:
                if frame.state is not None and frame.state.active_intent != "NONE":
                    intents.setdefault(frame.service, set()).add(frame.state.active_intent)
                for a in frame.actions:
                    if a.act == "REQUEST" and a.slot:
                        asked.setdefault(frame.service, set()).add(a.slot)
                    elif a.act == "INFORM" and a.slot and a.values[:1] != [DONTCARE]:
                        said.setdefault(frame.service, set()).add(a.slot)
        for service, names in intents.items():
            schema = schemas[service]
            given = said.get(service, set())
            for name in names:
                intent = schema.intent(name)
                if intent is None or intent.is_transactional:
                    continue
                for slot in intent.optional_slots:
                    _add(said_table, schema, slot, slot in given)
                for slot in intent.result_slots:
                    if slot in intent.required_slots or slot in given:
                        continue
                    _add(asked_table, schema, slot, slot in asked.get(service, set()))
    return {"asked": dict(sorted(asked_table.items())), "said": dict(sorted(said_table.items()))}


@lru_cache(maxsize=1)
def shipped() -> Mapping[str, Mapping[str, list[int]]]:
    data: dict[str, dict[str, list[int]]] = json.loads(RATES_FILE.read_text(encoding="utf-8"))
    return data


def rate(
    table: Table,
    schema: ServiceSchema,
    slot: str,
    counts: Mapping[str, list[int]] | None = None,
) -> float:
    """How likely SGD's users are to ask about ``slot`` (``asked``) or to say a value of it
    (``said``) in a search of ``schema``."""
    found = shipped()[table] if counts is None else counts
    full, back = role_keys(schema, slot)
    b_hits, b_seen = found.get(back, [0, 0])
    base = (b_hits + 1) / (b_seen + 10)  # a kind never seen: a rate near 0.1
    hits, seen = found.get(full, [0, 0])
    return (hits + PRIOR * base) / (seen + PRIOR)


def request_rate(schema: ServiceSchema, slot: str) -> float:
    """How likely SGD's users are to ask about result slot ``slot`` in a search."""
    return rate("asked", schema, slot)


def say_rate(schema: ServiceSchema, slot: str) -> float:
    """How likely SGD's users are to give optional slot ``slot`` of a search a value."""
    return rate("said", schema, slot)
