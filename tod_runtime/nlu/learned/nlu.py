"""The learned NLU. A turn flows: typo repair (``spelling.py``); the learned scorers choose the
frame (its service and active intent) and the requested slots; the value reader reads the
values (``values.py``), with the rules' value finder as a backstop for a slot the system just
asked for and the reader left empty; the rules NLU reads the dialogue acts (affirm, negate,
select, ...) for the chosen service.

Options (``[options.nlu]``): ``model``, a path to a model trained with ``tod train nlu``
(default: the one shipped in the package; a ``vocabulary.txt`` beside it is used for typo
repair, see ``spelling.py``); ``english_only`` as for the rules NLU.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from tod_runtime.components import ComponentContext
from tod_runtime.dialogue.context import TurnContext, UserActs
from tod_runtime.dialogue.models import Action, act
from tod_runtime.nlu.base import Unsure
from tod_runtime.nlu.learned.casual import Aliases
from tod_runtime.nlu.learned.features import (
    categories,
    service_description_words,
    slot_description_words,
)
from tod_runtime.nlu.learned.model import NLUModel, load_model
from tod_runtime.nlu.learned.reader import ValueReader
from tod_runtime.nlu.learned.reading import Ranked, Reading
from tod_runtime.nlu.learned.repairs import Repair, selected
from tod_runtime.nlu.learned.routing import KnownNames, family, listed_kinds
from tod_runtime.nlu.learned.scorer import Scorer, TurnView, view
from tod_runtime.nlu.learned.spelling import (
    VOCABULARY,
    Speller,
    one_word_values,
    read_vocabulary,
    service_words,
)
from tod_runtime.nlu.learned.text import STOP, tokens
from tod_runtime.nlu.learned.values import known_values, normalised, slot_views, value_turn
from tod_runtime.nlu.rules import RulesNLU, dedupe
from tod_runtime.values.dates import MONTHS, WEEKDAYS
from tod_runtime.values.numbers import TENS, UNITS

# words the value recognisers read (times, dates, counts): never "repaired" into another word
# ("at noon" had become "at soon": noon is rare in SGD's turns)
VALUE_WORDS = frozenset(
    {"noon", "midday", "midnight", "tonight", "today", "tomorrow", *WEEKDAYS, *MONTHS}
    | {*UNITS, *TENS}
)
_NUMBERS = frozenset({*UNITS, *TENS})


def _first_word(description: str) -> str:
    """The first content word of a description: an intent's verb ("Rent a movie")."""
    return next((w for w in tokens(description) if w not in STOP), "")


@lru_cache(maxsize=4)
def cached_model(path: str | None) -> NLUModel:
    return load_model(path)


@dataclass(frozen=True)
class Known:
    slots: Mapping[str, frozenset[str]]  # normalised value -> the slots it is a value of
    spelt: Mapping[tuple[str, str], str]  # (slot, normalised value) -> the backend's spelling


class LearnedNLU(RulesNLU):
    def __init__(self, ctx: ComponentContext) -> None:
        super().__init__(ctx)
        path = ctx.options.get("model")
        model = cached_model(str(path) if path else None)
        beside = Path(str(path)).with_name(VOCABULARY) if path else None
        self._vocabulary, self._talk = read_vocabulary(
            beside if beside and beside.exists() else None
        )
        self._speller: Speller | None = None
        self.scorer = Scorer(model, self.schemas, self._vocabulary)
        self.reader = ValueReader(model, (self._vocabulary, self._talk))
        self.repairs = selected(ctx.options)
        self.thresholds = model.thresholds
        self.views = {name: slot_views(schema) for name, schema in self.schemas.items()}
        self.verbs = {
            name: {i.name: _first_word(i.description) for i in schema.intents}
            for name, schema in self.schemas.items()
        }
        self.service_words = {
            name: service_description_words(schema) for name, schema in self.schemas.items()
        }
        # an intent's nouns: the head of its description without its verb ("hotel", "stay")
        # and its number words ("one-way flights": "that one" names no flight)
        self.nouns = {
            c: d.head - {self.verbs[c[0]][c[1]]} - _NUMBERS
            for c, d in self.scorer.intents
            if c is not None
        }
        self.all_nouns = frozenset(w for nouns in self.nouns.values() for w in nouns)
        # every description's words: the service's, its intents', its slots'
        self.described = {
            name: words | slot_description_words(self.schemas[name])
            for name, words in self.service_words.items()
        }
        # the values each service's categorical slots allow ("psychologist"), and their words
        self.categories = {name: categories(schema) for name, schema in self.schemas.items()}
        self.value_words = {
            name: frozenset(w for value in values for w in value.split())
            for name, values in self.categories.items()
        }
        # the words few services' descriptions hold (at most a quarter of them, or two): what
        # names one kind of task ("calendar", "bus"), not what any says ("book", "find")
        most = max(2, len(self.described) // 4)
        counts = Counter(w for words in self.described.values() for w in words)
        self.own_words = frozenset(w for w, n in counts.items() if n <= most)
        # each service with its sisters (``routing.family``)
        self.families = {name: family(self.schemas, name) for name in self.schemas}
        self._known: dict[str, Known] = {}
        self._aliases: dict[str, Aliases] = {}
        self._names: dict[str, KnownNames] = {}
        self._kinds: Mapping[str, AbstractSet[str]] | None = None

    async def _known_values(self, service: str) -> Known:
        """What the backend knows of the service's values, asked for once: normalised value
        -> its slots, and (slot, normalised value) -> the backend's own spelling."""
        if service not in self._known:
            entities = await self._entity_values(service)
            self._known[service] = Known(
                known_values(self.schemas[service], entities),
                {(slot, normalised(v)): v for slot, values in entities.items() for v in values},
            )
        return self._known[service]

    async def _spelling(self) -> Speller:
        """The typo repairer, knowing every service's words (built at the first turn)."""
        if self._speller is None:
            words: set[str] = set(VALUE_WORDS)
            values: set[str] = set()  # one-word values, for plurals in "-ies"
            for name, schema in self.schemas.items():
                entities = await self._entity_values(name)
                words |= service_words(schema, entities)
                values |= one_word_values(schema, entities)
            self._speller = Speller(self._vocabulary, words, values)
        return self._speller

    async def read_values(
        self, text: str, service: str, intents: Sequence[str], system: Sequence[Action]
    ) -> list[Action]:
        """INFORM acts for the values the reader finds (one per slot: a value the user spelt
        out wins over "dontcare"), among the slots ``intents`` take (all the service's when
        one of them is unknown)."""
        said = [(a.act, a.slot, a.values) for a in system]
        known = await self._known_values(service)
        turn = value_turn(text, said, known.slots)
        views = self.views[service]
        specs = [self.schemas[service].intent(i) for i in intents]
        takes = {s for spec in specs if spec for s in (*spec.required_slots, *spec.optional_slots)}
        if takes and None not in specs:
            views = [v for v in views if v.name in takes]
        acts, filled = [], set()
        for read in self.reader.read(turn, views):
            if read.slot not in filled:
                filled.add(read.slot)
                # a value the backend knows for the slot, as the backend writes it ("austin"
                # is said back as "Austin"; "shazam" is searched as "Shazam!")
                value = known.spelt.get((read.slot, normalised(read.value)), read.value)
                canonical = value if read.canonical == read.value else read.canonical
                acts.append(act("INFORM", read.slot, [value], [canonical]))
        return acts

    async def rule_values(self, text: str, service: str, slots: Sequence[str]) -> list[Action]:
        """The rules' value finder for ``slots``: known values, times, dates, numbers."""
        return await self._values(text, service, self.schemas[service], slots)

    def word_count(self, word: str) -> int:
        return self._talk.get(word, 0)

    async def known_values(self, service: str) -> Mapping[str, list[str]]:
        return await self._entity_values(service)

    async def known(self, service: str) -> Known:
        return await self._known_values(service)

    async def aliases(self, service: str) -> Aliases:
        if service not in self._aliases:
            heads = {v.name: v.description[0] for v in self.views[service] if v.description}
            self._aliases[service] = Aliases(
                await self._entity_values(service), heads, self.word_count
            )
        return self._aliases[service]

    async def kinds(self) -> Mapping[str, AbstractSet[str]]:
        if self._kinds is None:
            known = {name: await self._entity_values(name) for name in self.schemas}
            self._kinds = listed_kinds(self.schemas, known)
        return self._kinds

    async def known_names(self, service: str) -> KnownNames:
        if service not in self._names:
            known = await self._entity_values(service)
            self._names[service] = KnownNames(self.schemas[service], known, self.word_count)
        return self._names[service]

    def takes(self, service: str, intent: str, slots: AbstractSet[str]) -> int:
        spec = self.schemas[service].intent(intent)
        return len(slots & spec.inputs) if spec else 0

    async def _repair(self, step: str, r: Reading) -> Reading:
        """The reading after the repairs of ``step``, in order."""
        for repair in self._of_step(step):
            if repair.applies(self, r):
                r = await repair.apply(self, r)
        return r

    @property
    def repairs(self) -> tuple[Repair, ...]:
        return self._repairs

    @repairs.setter
    def repairs(self, repairs: tuple[Repair, ...]) -> None:
        """The repairs to run, in order, and with them each step's (``_of_step``)."""
        self._repairs = repairs
        self._by_step = {
            step: tuple(r for r in repairs if r.step == step) for step in {r.step for r in repairs}
        }

    def _of_step(self, step: str) -> tuple[Repair, ...]:
        """The repairs of ``step``, in order."""
        return self._by_step.get(step, ())

    async def parse(self, text: str, context: TurnContext) -> UserActs:
        r = await self._route(text, context)
        service = r.service
        if service is None or service not in self.schemas:
            return {}
        r = await self._repair("read", await self._read(r, service))
        r = await self._repair("acts", self._acts(r))
        acts = {service: dedupe(list(r.acts))} if r.acts else {}
        return Unsure(acts, r.choices) if r.choices else acts

    async def rank(self, text: str, turn: TurnView, context: TurnContext) -> Ranked:
        """The candidate frames of the turn (``text``, typos repaired), best first: the
        scorer's ranking. A subclass may re-rank them (plugins/encoder); the repairs of step
        ``route`` run after."""
        return tuple(self.scorer.rank(turn, context.schemas))

    async def _route(self, text: str, context: TurnContext) -> Reading:
        """The scorer's choice of frame, repaired (step ``route``)."""
        text = (await self._spelling()).correct(text)
        last = context.history.last_system_frame
        system = tuple(last.actions) if last else ()
        intents = {service: frame.active_intent for service, frame in context.state.items()}
        last_service = last.service if last else None
        turn = view(text, last_service, [(a.act, a.slot, a.values) for a in system], intents)
        ranked = await self.rank(text, turn, context)
        r = Reading(text, context, turn, last_service, system, intents, ranked, ranked[0][1])
        return await self._repair("route", r)

    async def _read(self, r: Reading, service: str) -> Reading:
        """The values read among the slots of the chosen intent and of the service's intents
        scored within ``intent_margin`` of it: a turn often opens one intent with values of
        its neighbour ("I'd like to find a hotel room ... a 4 star hotel" scored as the
        booking, which takes no star rating). Held-out replay on train, JGA: the chosen
        intent's slots only 0.7741, all the service's 0.8102, a margin of 12 logits 0.8173
        (docs/learned.md). And the probability that each slot is asked about."""
        said = tuple(r.context.history.last_system_acts(service))
        top = r.ranked[0][0]
        near = tuple(
            (top - score, c[1])
            for score, c in r.ranked[1:]
            if r.predicted and c and c[0] == service and top - score < self.thresholds.intent_margin
        )
        read = await self.read_values(r.text, service, [r.intent, *(n for _, n in near)], said)
        slot_acts: dict[str, list[str]] = {}
        for a in said:
            if a.slot:
                slot_acts.setdefault(a.slot, []).append(a.act)
        asks = self.scorer.request_probabilities(r.turn, service, slot_acts)
        requested = tuple(self.scorer.asked(asks))
        return replace(r, said=said, near=near, read=tuple(read), asks=asks, requested=requested)

    def _acts(self, r: Reading) -> Reading:
        """The turn's acts: the intent opened, the dialogue acts, requests and values."""
        acts: list[Action] = []
        if r.predicted and r.intents.get(r.predicted[0], "NONE") != r.predicted[1]:
            acts.append(act("INFORM_INTENT", "intent", [r.predicted[1]]))
        kinds: set[str] = {a.act for a in r.system}
        acts += self._dialogue_acts(r.text.lower(), kinds, r.same, bool(acts))
        acts += [act("REQUEST", s) for s in r.requested]
        acts += r.read
        return replace(r, acts=tuple(acts), filled=frozenset(a.slot for a in r.read))
