"""A turn that asks for what one service's search tells: "will it rain in seattle tomorrow?"
names the weather's precipitation ("The possibility of rain or snow"), a detail no other
service finds. SGD's users open with the service's own words ("what's the weather"), so the
scorer ranks such a turn low everywhere and picks by its values (a city and a date: a hotel).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from tod_runtime.nlu.learned.reading import Parts, Reading
from tod_runtime.nlu.learned.scorer import Intent
from tod_runtime.nlu.learned.text import QUESTION_WORDS, STOP, question_cues, tokens
from tod_runtime.schema.models import ServiceSchema

RARE = 2  # a word more services' schemas say ("available", "time") tells none of them
MIN_STEM = 4
ASKING = STOP | set(QUESTION_WORDS)  # words of asking, not of what is asked for


def _content(text: str) -> set[str]:
    return {w for w in tokens(text) if w not in ASKING and not w.isdigit()}


def _alike(said: str, word: str) -> bool:
    """The word a description says, or a form of it said with an ending ("windy" says
    "wind"; "possible" does not say "possibility")."""
    return said == word or (len(word) >= MIN_STEM and said.startswith(word) and len(said) - len(word) <= 3)


@dataclass(frozen=True)
class Details:
    """A service's words: those naming only what its searches return and take no input for
    (``found``: word -> the searches; not a word of the service's or its intents'
    descriptions or of an input: "movie" names the movie service, not a detail of it), those
    of every slot (``all``), and every word its schema says (``said``)."""

    found: Mapping[str, frozenset[str]]
    all: frozenset[str]
    said: frozenset[str]


def details(schema: ServiceSchema) -> Details:
    def words(name: str) -> set[str]:
        spec = schema.slot(name)
        return _content(f"{name.replace('_', ' ')} {spec.description if spec else ''}")

    inputs = {s for i in schema.intents for s in (*i.required_slots, *i.optional_slots)}
    said = " ".join([schema.description, *(i.description for i in schema.intents)])
    named = set(tokens(said)).union(*(words(s) for s in inputs))
    found: dict[str, set[str]] = {}
    for intent in schema.intents:
        if intent.is_transactional:
            continue
        for slot in intent.result_slots:
            if slot not in inputs:
                for word in words(slot) - named:
                    found.setdefault(word, set()).add(intent.name)
    every = {w for slot in schema.slots for w in words(slot.name)}
    found_in = {w: frozenset(i) for w, i in found.items()}
    return Details(found_in, frozenset(every), frozenset(every | _content(said)))


def _details(schema: ServiceSchema) -> Details:
    return schema.derived("result_words.details", lambda: details(schema))


class ResultWords:
    """At an opening the scorer is unsure of (its best logit below 0) that asks (a question
    word or mark), the words that name details a search finds, that one or two services'
    schemas say and none of the chosen service's slots ("rain", "windy"), move the turn to
    the search naming most of them (of equals, the best-ranked)."""

    name = "result_words"
    step = "route"

    def applies(self, parts: Parts, r: Reading) -> bool:
        if not r.ranked or r.ranked[0][0] >= 0 or not r.opening or len(r.context.schemas) < 2:
            return False
        return bool(question_cues(r.text, tokens(r.text)))

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        schemas = r.context.schemas
        chosen = r.predicted[0] if r.predicted else None
        own = _details(schemas[chosen]).all if chosen in schemas else frozenset()
        said = {w for w in _content(r.text) if not any(_alike(w, o) for o in own)}
        if not said:
            return r
        every = [_details(schema).said for schema in schemas.values()]
        said = {w for w in said if sum(any(_alike(w, o) for o in e) for e in every) <= RARE}
        named: dict[str, set[Intent]] = {}  # word -> the searches whose details it names
        for service, schema in schemas.items():
            if service == chosen:
                continue
            for word, searches in _details(schema).found.items():
                for w in said:
                    if _alike(w, word):
                        named.setdefault(w, set()).update((service, s) for s in searches)
        votes: dict[Intent, int] = {}
        for found in named.values():
            for intent in found:
                votes[intent] = votes.get(intent, 0) + 1
        if not votes:
            return r
        order = {intent: k for k, (_, intent) in enumerate(r.ranked) if intent is not None}
        best = max(votes, key=lambda i: (votes[i], -order.get(i, len(order))))
        return replace(r, predicted=best)
