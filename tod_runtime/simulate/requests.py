"""Which result slots a simulated user asks about, as SGD's users ask: a rate per slot role,
counted on SGD train and shipped in ``request_rates.json``, never per service or slot name.

A slot's role is what its schema says of it, in any service: whether a transaction of the
service requires it (the entity's name, its date: what the system offers and books, which SGD's
users never ask about), its value type (``schema.roles``), and the head of its description (the
last word before the first function word: "Address of the dentist" -> address, "Contact number
for the doctor" -> number, "Boolean flag indicating ..." -> indicating). The rate is how often
SGD train's users asked about a slot of that role in a search they were in, among the
dialogues that did not constrain the slot; a role train never saw backs off to its booked flag
and value type. ``python scripts/request_rates.py SGD_DIR`` recounts the table.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path

from tod_runtime.dialogue.models import Dialogue
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.schema.roles import description_head, slot_roles

RATES_FILE = Path(__file__).parent / "request_rates.json"
PRIOR = 20.0  # dialogues' worth of weight the back-off rate gets beside a role's own counts

Counts = dict[str, list[int]]  # role key -> [asked, dialogues]


def role_keys(schema: ServiceSchema, slot: str) -> tuple[str, str]:
    """The slot's full role key and its back-off key."""
    booked = any(slot in i.required_slots for i in schema.intents if i.is_transactional)
    spec = schema.slot_map[slot]
    head = description_head(spec.description)
    kind = f"{'booked' if booked else 'free'} {slot_roles(schema)[slot].value_type}"
    return f"{kind} {head[-1] if head else '-'}", kind


def count(dialogues: Iterable[Dialogue], schemas: Mapping[str, ServiceSchema]) -> Counts:
    """[asked, dialogues] per role key (full and back-off) over SGD dialogues: each search
    intent a dialogue's user was in, each of its result slots the user did not constrain."""
    table: Counts = {}
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
                    elif a.act == "INFORM" and a.slot:
                        said.setdefault(frame.service, set()).add(a.slot)
        for service, names in intents.items():
            schema = schemas[service]
            for name in names:
                intent = schema.intent(name)
                if intent is None or intent.is_transactional:
                    continue
                for slot in intent.result_slots:
                    if slot in intent.required_slots or slot in said.get(service, set()):
                        continue
                    hit = int(slot in asked.get(service, set()))
                    for key in role_keys(schema, slot):
                        row = table.setdefault(key, [0, 0])
                        row[0] += hit
                        row[1] += 1
    return dict(sorted(table.items()))


@lru_cache(maxsize=1)
def shipped_counts() -> Mapping[str, list[int]]:
    data: dict[str, list[int]] = json.loads(RATES_FILE.read_text(encoding="utf-8"))["counts"]
    return data


def request_rate(
    schema: ServiceSchema, slot: str, counts: Mapping[str, list[int]] | None = None
) -> float:
    """How likely SGD's users are to ask about ``slot`` in a search of ``schema``."""
    table = shipped_counts() if counts is None else counts
    full, back = role_keys(schema, slot)
    b_asked, b_seen = table.get(back, [0, 0])
    base = (b_asked + 1) / (b_seen + 10)  # a kind never seen: a rate near 0.1
    asked, seen = table.get(full, [0, 0])
    return (asked + PRIOR * base) / (seen + PRIOR)
