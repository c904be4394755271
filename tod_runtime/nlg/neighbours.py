"""Templates of the nearest mined service, for a service that has none of its own.

Each per-service template file carries a *profile* of its service's schema: the service's
description and each slot's kind and description and each intent's description. A service
without templates is aligned with every profiled service by those texts alone (never by the
service's name): each of its slots goes to the source slot of the same kind whose name and
description share the most words (Jaccard over content words), each intent likewise, and the
services' closeness is the mean of the slot matches and the descriptions' overlap. The
generator then looks its acts up in the closest services' tables with the slots renamed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from tod_runtime.nlg.signature import schema_info
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.schema.roles import FUNCTION_WORDS

_WORD = re.compile(r"[a-z]+")
STOP = FUNCTION_WORDS | {"the", "a", "an", "in", "any", "this", "it", "its", "their", "number"}
MIN_SLOT = 0.25  # a slot match below this is no match
MIN_SERVICE = 0.15  # a service below this closeness is not a neighbour
CLOSE = 0.3  # acts without slots are borrowed only from a neighbour this close
NEIGHBOURS = 3


@dataclass(frozen=True)
class Profile:
    description: str
    slots: dict[str, tuple[str, str]]  # slot -> (kind, description)
    intents: dict[str, str]  # intent -> description

    def to_json(self) -> dict[str, object]:
        return {
            "description": self.description,
            "slots": {k: list(v) for k, v in self.slots.items()},
            "intents": self.intents,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Profile:
        slots = data.get("slots", {})
        intents = data.get("intents", {})
        if not isinstance(slots, dict) or not isinstance(intents, dict):
            raise ValueError("profile: slots and intents are objects")
        return cls(
            str(data.get("description", "")),
            {str(k): (str(v[0]), str(v[1])) for k, v in slots.items()},
            {str(k): str(v) for k, v in intents.items()},
        )


def profile_of(schema: ServiceSchema) -> Profile:
    slots, _ = schema_info(schema)
    return Profile(
        schema.description,
        {s.name: (slots[s.name].kind, s.description) for s in schema.slots},
        {i.name: i.description for i in schema.intents},
    )


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def words(*texts: str) -> frozenset[str]:
    found = set()
    for text in texts:
        for word in _WORD.findall(text.lower().replace("_", " ")):
            if word not in STOP:
                found.add(_stem(word))
    return frozenset(found)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


@dataclass(frozen=True)
class Alignment:
    service: str
    score: float
    slots: dict[str, str]  # target slot -> source slot
    intents: dict[str, str]  # target intent -> source intent


def align(target: Profile, source_name: str, source: Profile) -> Alignment:
    slot_map: dict[str, str] = {}
    scores = []
    source_words = {s: (k, words(s, d)) for s, (k, d) in source.slots.items()}
    for slot, (kind, description) in target.slots.items():
        mine = words(slot, description)
        best, best_score = "", 0.0
        for other, (other_kind, theirs) in source_words.items():
            if other_kind != kind:
                continue
            score = _jaccard(mine, theirs)
            if score > best_score:
                best, best_score = other, score
        if best_score >= MIN_SLOT:
            slot_map[slot] = best
        scores.append(best_score)
    intent_map: dict[str, str] = {}
    for intent, description in target.intents.items():
        mine = words(intent, description)
        ranked = sorted(
            ((_jaccard(mine, words(o, d)), o) for o, d in source.intents.items()), reverse=True
        )
        if ranked and ranked[0][0] > 0:
            intent_map[intent] = ranked[0][1]
    slot_score = sum(scores) / len(scores) if scores else 0.0
    service_score = _jaccard(words(target.description), words(source.description))
    return Alignment(source_name, (slot_score + service_score) / 2, slot_map, intent_map)


def neighbours(target: Profile, sources: Mapping[str, Profile]) -> list[Alignment]:
    """The closest profiled services, best first."""
    found = [align(target, name, profile) for name, profile in sorted(sources.items())]
    found = [a for a in found if a.score >= MIN_SERVICE]
    found.sort(key=lambda a: -a.score)
    return found[:NEIGHBOURS]
