"""Templates of the nearest mined service, for a service that has none of its own.

Each per-service template file carries a *profile* of its service's schema: the service's
description and each slot's kind and description and each intent's description. A service
without templates is aligned with every profiled service by those texts alone (never by the
service's name): each of its slots goes to the source slot of the same kind whose name and
description share the most words (Jaccard over content words; a word in many of either
service's slots, "account" or "transfer" in a bank's, counts a quarter: it says which service
more than which slot; slots alike in content words are told apart by all their words, "check
in" from "check out"), each intent likewise, and the services' closeness is the mean of the
slot matches and the descriptions' overlap. The
generator then looks its acts up in the closest services' tables with the slots renamed.

The same texts say which words belong to a service (``vocabulary``: the words of its name,
description, slots and intents). A *service word* is a schema word that the mined templates
of the services whose schemas have it use at least ``LIFT`` times as often as their share
of the services would give ("movie", "table", "ticket", "hotel"; not "you", "find" or
"location", which every kind of service's replies say): a template used for another
service than its own (borrowed, or generic) may carry one only when that service's
vocabulary has it too (``realise``), so a hotel is never offered as "a movie called 45 Park
Lane". ``tod train nlg`` lists them in ``_generic.json``.

Not every word of a kind of service is in its schema: Weather_1's says "weather", its
replies "forecast", "percent" and "degree". An *owned word* (``owned_words``) is a word that
people, on either side of the mined turns, say for a few services only (at most
``MAX_OWNERS`` of them make ``OWNED_SHARE`` of its uses) and that is not general English
(fewer than ``GENERAL`` of the services' turns say it at all): those few are its owners. A
template carrying one may be said for another service only when its owners include that
service or a neighbour it borrows from (``realise``): "Forecast for {date}." is a weather
service's, never an event's.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from tod_runtime.nlg.compose import UNITS
from tod_runtime.nlg.signature import PLACEHOLDER, schema_info
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.schema.roles import FUNCTION_WORDS

_WORD = re.compile(r"[a-z]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")  # "ReserveRestaurant" -> "Reserve Restaurant"
STOP = FUNCTION_WORDS | {"the", "a", "an", "in", "any", "this", "it", "its", "their", "number"}
STOP |= {"not", "no", "up", "out", "off"}  # English particles, never a service's own words
MIN_SLOT = 0.05  # a slot match below this is no match
MIN_BOOL = 0.2  # ... for a boolean, whose templates' words are what it says
RELATIVE = 0.75  # a neighbour this much less close than the closest is left out
MIN_SERVICE = 0.12  # a service below this closeness is not a neighbour
CLOSE = 0.3  # acts without slots are borrowed only from a neighbour this close
NEIGHBOURS = 3
LIFT = 2.0  # how much more the owners of a service word use it than the others
COMMON_WEIGHT = 0.25  # a word of many of a service's slots counts this much in a slot match
MIN_USES = 10  # a word the templates say fewer times is not judged an owned word
OWNED_SHARE = 0.95  # an owned word's owners make this share of its uses ...
MAX_OWNERS = 3  # ... and are at most this many (SGD train's kinds have up to 3 services)
GENERAL = 0.25  # a word this share of the services or more say is general English


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
        for word in _WORD.findall(_CAMEL.sub(" ", text).lower()):
            if word not in STOP:
                found.add(_stem(word))
    return frozenset(found)


def all_words(*texts: str) -> frozenset[str]:
    """Every word of ``texts``, function words and particles too ("check in" and "check out"
    differ only there): ``align``'s tie-break between slots whose content words are alike."""
    return frozenset(_stem(w) for t in texts for w in _WORD.findall(_CAMEL.sub(" ", t).lower()))


def vocabulary(service: str, profile: Profile) -> frozenset[str]:
    """The words of a service's name, description, slots and intents."""
    return words(
        service,
        profile.description,
        *(f"{slot} {description}" for slot, (_, description) in profile.slots.items()),
        *(f"{intent} {description}" for intent, description in profile.intents.items()),
    )


def service_words(
    vocabularies: Mapping[str, frozenset[str]], usage: Mapping[str, Mapping[str, int]]
) -> frozenset[str]:
    """The service words of some services' ``vocabularies``, by ``usage``: each service's
    templates and how often people wrote them (a word no template says is left out)."""
    used: Counter[str] = Counter()
    owned: Counter[str] = Counter()
    for service, templates in usage.items():
        vocab = vocabularies.get(service, frozenset())
        for template, n in templates.items():
            for word in template_words(template):
                used[word] += n
                if word in vocab:
                    owned[word] += n
    owners = Counter(w for vocab in vocabularies.values() for w in vocab)
    share = {w: n / len(vocabularies) for w, n in owners.items()}
    return frozenset(w for w in owners if used[w] and owned[w] >= LIFT * share[w] * used[w])


def word_uses(templates: Mapping[str, int]) -> Counter[str]:
    """How often a service's ``templates`` (template -> times written) say each word."""
    uses: Counter[str] = Counter()
    for template, n in templates.items():
        for word in template_words(template):
            uses[word] += n
    return uses


def owned_words(
    uses: Mapping[str, Mapping[str, int]], known: frozenset[str] = frozenset()
) -> dict[str, frozenset[str]]:
    """The owned words of ``uses`` (service -> word -> uses, ``word_uses``), each with its
    owners (the services making ``OWNED_SHARE`` of its uses, most first); words in
    ``known`` (the service words) left out."""
    per_word: dict[str, Counter[str]] = {}
    for service, counts in uses.items():
        for word, n in counts.items():
            per_word.setdefault(word, Counter())[service] += n
    general = GENERAL * len(uses)
    found: dict[str, frozenset[str]] = {}
    for word, per in per_word.items():
        total = sum(per.values())
        if word in known or total < MIN_USES or len(per) >= general:
            continue
        owners: list[str] = []
        covered = 0
        for service, n in sorted(per.items(), key=lambda p: (-p[1], p[0])):
            owners.append(service)
            covered += n
            if covered >= OWNED_SHARE * total:
                break
        if len(owners) <= MAX_OWNERS:
            found[word] = frozenset(owners)
    return found


def template_words(template: str) -> frozenset[str]:
    return words(PLACEHOLDER.sub(" ", template))


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def _weighted_jaccard(a: frozenset[str], b: frozenset[str], common: frozenset[str]) -> float:
    """Jaccard with the ``common`` words (``_common``) weighing ``COMMON_WEIGHT``."""

    def weight(ws: frozenset[str]) -> float:
        return sum(COMMON_WEIGHT if w in common else 1.0 for w in ws)

    union = weight(a | b)
    return weight(a & b) / union if union else 0.0


@dataclass(frozen=True)
class Alignment:
    service: str
    score: float
    slots: dict[str, str]  # target slot -> source slot
    intents: dict[str, str]  # target intent -> source intent


def _common(profile: Profile) -> frozenset[str]:
    """Words in a third or more of a service's slot descriptions ("restaurant", "hotel"):
    they say which service, not which slot."""
    counts: dict[str, int] = {}
    for _, description in profile.slots.values():
        for word in words(description):
            counts[word] = counts.get(word, 0) + 1
    limit = max(2, len(profile.slots) / 3)
    return frozenset(w for w, n in counts.items() if n >= limit)


def counted_kind(kind: str, description: str) -> str:
    """A slot's kind for matching: a text whose description ends in a unit ("Length of stay
    in days") is a count (of days), as "Number of days in the reservation" is."""
    tail = description.lower().rstrip(". ").split()[-2:]
    return "count" if kind == "text" and tail[:1] == ["in"] and tail[-1:][0] in UNITS else kind


def align(target: Profile, source_name: str, source: Profile) -> Alignment:
    mine_common, theirs_common = _common(target), _common(source)
    common = mine_common | theirs_common
    pairs = []
    for slot, (text_kind, description) in target.slots.items():
        kind = counted_kind(text_kind, description)
        mine = words(slot, description)
        every = all_words(slot, description)
        for other, (other_kind, other_description) in source.slots.items():
            if counted_kind(other_kind, other_description) == kind:
                theirs = words(other, other_description)
                tie = _jaccard(every, all_words(other, other_description))
                pairs.append((_weighted_jaccard(mine, theirs, common), tie, slot, other))
    slot_map: dict[str, str] = {}
    best: dict[str, float] = {}
    # one-to-one, best pairs first; equal pairs told apart by all their words
    for score, _, slot, other in sorted(pairs, reverse=True):
        least = MIN_BOOL if target.slots[slot][0] == "bool" else MIN_SLOT
        if score >= least and slot not in slot_map and other not in slot_map.values():
            slot_map[slot], best[slot] = other, score
    _pair_the_last_of_a_kind(target, source, slot_map)
    intent_map: dict[str, str] = {}
    for intent, description in target.intents.items():
        mine = words(intent, description) - mine_common
        ranked = sorted(
            ((_jaccard(mine, words(o, d) - theirs_common), o) for o, d in source.intents.items()),
            reverse=True,
        )
        if ranked and ranked[0][0] > 0:
            intent_map[intent] = ranked[0][1]
    slot_score = sum(best.values()) / max(len(target.slots), 1)
    service_score = _jaccard(words(target.description), words(source.description))
    return Alignment(source_name, (slot_score + service_score) / 2, slot_map, intent_map)


SINGLE_KINDS = frozenset({"number", "count", "date", "time", "amount"})


def _pair_the_last_of_a_kind(target: Profile, source: Profile, slot_map: dict[str, str]) -> None:
    """A slot of a number, date, time or amount kind left unmatched pairs with the source's
    one unmatched slot of its kind when each is the only one left of that kind on its side
    (a restaurant's "Number of seats to reserve" and "Party size for a reservation": no
    word in common, the same part in a booking). Not counted in the services' closeness."""
    taken = set(slot_map.values())
    for kind in SINGLE_KINDS:
        mine = [s for s, (k, d) in target.slots.items() if counted_kind(k, d) == kind]
        theirs = [s for s, (k, d) in source.slots.items() if counted_kind(k, d) == kind]
        mine = [s for s in mine if s not in slot_map]
        theirs = [s for s in theirs if s not in taken]
        if len(mine) == 1 and len(theirs) == 1:
            slot_map[mine[0]] = theirs[0]


def neighbours(target: Profile, sources: Mapping[str, Profile]) -> list[Alignment]:
    """The closest profiled services, best first."""
    found = [align(target, name, profile) for name, profile in sorted(sources.items())]
    found.sort(key=lambda a: -a.score)
    top = found[0].score if found else 0.0
    found = [a for a in found if a.score >= max(MIN_SERVICE, RELATIVE * top)]
    return found[:NEIGHBOURS]
