"""User-side text for the user simulator: ``realise_user(acts, schema, rng)``.

The user templates are mined from SGD train's user turns by the same miner as the system's
(``tod train nlg`` writes ``user/``), keyed by user-act signature per service and
generically; a service without its own borrows from the closest mined service, and what no
template covers is composed from the schema's descriptions (``compose.compose_user``).
``rng`` chooses among equivalent templates, so a seeded simulator is reproducible.

The system's realiser is reused with the user's side of things (``UserWording``):

* a date is said as SGD's users say one, "March 8th" (after "the": "the 8th of March"), never
  with the weekday the system's replies carry ("Friday, March 8th": users seldom say it);
* a generic template is never used for a boolean: the generic label of every boolean slot is
  ``bool``, so "That's fine." (said to some question in SGD) would stand for any of them; nor
  for a slot whose label another slot of the service shares ("In {city}." for an origin city
  when the flight also has a destination city);
* a slot whose best match in a neighbour is a tie is not borrowed (``_untied``);
* a template that is a bare value ("{city}.", an answer to a question) is used only when the
  turn has that one act: among other acts, "I want to go to Chicago. San Francisco." leaves
  the reader guessing which slot the bare value fills;
* "dontcare" is never put into a template's value slot ("I want to pick it up at any."): it
  is said as SGD's users say it, naming the slot: "any {noun} is fine", "I don't care about
  the {noun}", "I don't mind whether ..." for a boolean;
* any of a key's templates is said, as often as SGD's users said it (``USER_CHOICES``), and
  templates in ``avoid`` are not (a user saying the same again says it otherwise).
"""

from __future__ import annotations

import random
import re
import zlib
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import cache

from tod_runtime.dialogue.models import DONTCARE, Action
from tod_runtime.nlg.compose import (
    YesNo,
    compose_user,
    description_phrase,
    join,
    lower_first,
    noun_phrase,
    upper_first,
    yes_no,
)
from tod_runtime.nlg.neighbours import Alignment, Profile, profile_of, words
from tod_runtime.nlg.realise import Realiser, Source
from tod_runtime.nlg.signature import INTENT_ACTS, PLACEHOLDER, Signature, is_bool, schema_info
from tod_runtime.nlg.store import TemplateSet
from tod_runtime.nlg.template import packaged
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.schema.roles import FUNCTION_WORDS
from tod_runtime.values.dates import MONTHS
from tod_runtime.values.say import ordinal

_ISO = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_MONTH = "|".join(m.capitalize() for m in MONTHS)
_THE_DATE = re.compile(rf"\bthe ({_MONTH}) (\d{{1,2}}(?:st|nd|rd|th))\b")
Say = Callable[[Action], str]
DANGLING = frozenset({"in", "at", "on", "for", "of", "to", "from", "by", "with", "which"})
_OR_NOT = re.compile(r"\bwhether or not\b", re.IGNORECASE)
_LETTER = re.compile(r"[A-Za-z]")
USER_CHOICES = 1_000
"""A user says any of a key's mined templates, as often as SGD train's users said it (its
count), not only the corpus choice the system's replies use (``nlg.template.CHOICES``)."""
DONTCARE_SAID = ("any {} is fine", "I don't care about the {}", "I have no preference for the {}")
"""How SGD train's users say that any value will do ("Any car is fine.", "I don't care about
the type of car.", "I have no preference over the airlines"): always naming the slot, for
they seldom say it alone."""


def say_user_date(value: str) -> str:
    """An ISO date as a user says it: "March 8th" (any month); anything else unchanged."""
    match = _ISO.match(value.strip())
    if not match:
        return value
    month, day = int(match[2]), int(match[3])
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return value
    return f"{MONTHS[month - 1].capitalize()} {ordinal(day)}"


def the_date(text: str) -> str:
    """ "on the March 8th" (a template said "on the {date}" of "8th") -> "on the 8th of
    March"."""
    return _THE_DATE.sub(lambda m: f"the {m[2]} of {m[1]}", text)


_THERE = re.compile(r"\bthere\b", re.IGNORECASE)
_THERE_IS = re.compile(
    r"\b(is|are|was|were|isn't|aren't)\s+there\b"
    r"|\bthere\s*(is|are|was|were|'s|will|would|any|might|should|must)\b",
    re.IGNORECASE,
)


def points_back(template: str) -> bool:
    """Whether a template says "there" of a place said before ("Find me a hotel there.";
    not "Is there anything else?")."""
    return bool(_THERE.search(_THERE_IS.sub(" ", template)))


def bare(template: str) -> bool:
    """Whether a template is nothing but its values ("{city}.", "{date}, {time}")."""
    return not _LETTER.search(PLACEHOLDER.sub("", template))


def dontcare_phrase(schema: ServiceSchema | None, slot: str, choice: int = 0) -> str:
    """ "any cuisine is fine" (``choice`` among ``DONTCARE_SAID``), or for a boolean "I don't
    mind whether the hotel has wifi"."""
    spec = schema.slot(slot) if schema else None
    if spec is not None and _flag(schema, slot):
        said = statements(spec.description).yes.rstrip(".")
        if not said.endswith("?") and ":" not in said:
            return f"I don't mind whether {lower_first(said)}"
        return f"I don't mind about {lower_first(spec.description.rstrip('. '))}"
    return DONTCARE_SAID[choice % len(DONTCARE_SAID)].format(asked_about(schema, slot))


def statements(description: str) -> YesNo:
    """A boolean's question and statements (``compose.yes_no``), "whether or not" read as
    "whether" ("Whether or not smoking is allowed" -> "Is smoking allowed?")."""
    return yes_no(_OR_NOT.sub("whether", description))


def _flag(schema: ServiceSchema | None, slot: str) -> bool:
    spec = schema.slot(slot) if schema else None
    return spec is not None and {v.lower() for v in spec.possible_values} == {"true", "false"}


def asked_about(schema: ServiceSchema | None, slot: str) -> str:
    """What a user asks for: the description's head ("Address of the restaurant" ->
    "address"), or the description itself when the head is only "name" or "number" ("the
    name of the theatre"), which says nothing alone."""
    spec = schema.slot(slot) if schema else None
    said = noun_phrase(schema, slot)
    if spec is None or said.split()[-1:] not in (["name"], ["number"], ["type"]):
        return said
    return description_phrase(spec)


def informed(schema: ServiceSchema | None, slot: str, whole: bool) -> str:
    """What a user names when giving a value: the description's head without a dangling
    preposition ("City in which the journey originates" -> "city"), or with ``whole`` (the
    head is another slot's too) the description itself."""
    spec = schema.slot(slot) if schema else None
    if spec is None:
        return noun_phrase(schema, slot)
    if whole:
        return description_phrase(spec)
    words = noun_phrase(schema, slot).split()
    while len(words) > 1 and words[-1].lower() in DANGLING:
        words = words[:-1]
    return " ".join(words)


def counted(schema: ServiceSchema | None, slot: str) -> str | None:
    """ "nights" for "Number of nights of the stay": what a count slot counts, else None."""
    spec = schema.slot(slot) if schema else None
    words = spec.description.rstrip(". ").split() if spec else []
    if len(words) < 3 or [w.lower() for w in words[:2]] != ["number", "of"]:
        return None
    noun = []
    for word in words[2:]:
        if word.lower() in FUNCTION_WORDS:
            break
        noun.append(word.lower())
    return " ".join(noun) or None


_USERS = (  # a schema's "user" is the one speaking: what it says of them, said by them
    (re.compile(r"\b(?:the |a )?user's\b", re.IGNORECASE), "my"),
    (re.compile(r"\b(?:the )?user (has|wants|is)\b", re.IGNORECASE), "I \\1"),
    (re.compile(r"\b(for|to) the user\b", re.IGNORECASE), "\\1 me"),
)
_AGREE = {"I has": "I have", "I wants": "I want", "I is": "I am"}


def first_person(text: str) -> str:
    """A description's words about "the user" as the user says them ("Get the alarms user
    has already set" -> "get the alarms I have already set", "The user's account type" ->
    "my account type"); "another user" and "user rating" are someone else's."""
    for pattern, said in _USERS:
        text = pattern.sub(said, text)
    for wrong, right in _AGREE.items():
        text = text.replace(wrong, right)
    return upper_first(text) if text[:2] == "my" else text


def compose_said(kind: str, acts: Sequence[Action], schema: ServiceSchema | None, say: Say) -> str:
    """Acts no mined template covers, composed as a user would say them (``compose_user``'s
    wording but: a yes/no question for a boolean, "the name of the theatre" rather than "the
    name", "for 2 nights" for a count, the schema's "user" in the first person)."""
    return first_person(_composed(kind, acts, schema, say))


def _composed(kind: str, acts: Sequence[Action], schema: ServiceSchema | None, say: Say) -> str:
    if kind == "REQUEST":
        return _asked(acts, schema)
    if kind == "INFORM":
        return _wishes(acts, schema, say)
    return compose_user(kind, acts, schema, say)


def _asked(acts: Sequence[Action], schema: ServiceSchema | None) -> str:
    """The user's questions: the plain slots' in one, then each yes/no slot's."""
    specs = [schema.slot(a.slot) if schema else None for a in acts]
    flags = [
        statements(spec.description).question
        for a, spec in zip(acts, specs, strict=True)
        if spec is not None and _flag(schema, a.slot)
    ]
    plain = [asked_about(schema, a.slot) for a in acts if not _flag(schema, a.slot)]
    asked = []
    if plain:
        asked.append(
            f"What is the {plain[0]}?" if len(plain) == 1 else f"Can you tell me the {join(plain)}?"
        )
    return " ".join(asked + flags)


def _wishes(acts: Sequence[Action], schema: ServiceSchema | None, say: Say) -> str:
    """The user's values: counts with their unit first, then each value as a wish."""
    counts = [a for a in acts if counted(schema, a.slot) and (a.values or [""])[0].isdigit()]
    said = []
    if counts:
        numbers = [f"{say(a)} {counted(schema, a.slot)}" for a in counts]
        said.append(f"I need it for {join(numbers)}.")
    shared = _shared_labels(schema)
    clauses = []
    for a in acts:
        if a in counts:
            continue
        spec = schema.slot(a.slot) if schema else None
        if spec is not None and _flag(schema, a.slot):
            truth = statements(spec.description)
            true = (a.values or [""])[0].lower() == "true"
            clauses.append(lower_first((truth.yes if true else truth.no).rstrip(".")))
        else:
            clauses.append(f"the {informed(schema, a.slot, a.slot in shared)} should be {say(a)}")
    if clauses:
        said.append(upper_first(join(clauses)) + ".")
    return " ".join(said)


def _is_dontcare(action: Action) -> bool:
    values = action.values or action.canonical_values
    return action.act == "INFORM" and bool(values) and values[0] == DONTCARE


class UserWording(Realiser):
    """The mined-template realiser, with the user's ways of saying things (module doc)."""

    # SGD train's services at the text level (tod simulate --services ZIP:train --dialogues
    # 1000 --level text): success 0.627 with mixed-kind templates, 0.640 without
    mixed_kinds = False
    bare_values = True
    generic_questions = True
    every_value = False
    well_formed = False
    # the system's corpus-level choices (docs/nlg.md) were tuned on the system's replies
    brief_pieces = False

    def __init__(self, templates: TemplateSet, choices: int = USER_CHOICES) -> None:
        super().__init__(templates, compose_said, choices=choices, empty="Hello.")
        # templates not to say (those of the user's previous turn, when it says the same
        # acts again), and those said by the last ``realise``
        self.avoid: frozenset[str] = frozenset()
        self.used: set[str] = set()
        self._turn_acts = 0
        self._asked: list[frozenset[str]] = []  # a question's slots' own words, per slot
        # whether the dialogue has named a place "there" can point back to (a template
        # mined from a later turn, "Find me a hotel there.", opens no dialogue)
        self.place_said = True
        self._untied: dict[tuple[str, int], list[Alignment]] = {}

    @staticmethod
    def sayer(schema: ServiceSchema | None) -> Callable[[str, str], str]:
        say = Realiser.sayer(schema)
        slots = schema_info(schema)[0] if schema else {}

        def user_say(slot: str, value: str) -> str:
            info = slots.get(slot)
            if info is not None and info.kind == "date":
                return say_user_date(value)
            return say(slot, value)

        return user_say

    def neighbours(self, service: str, schema: ServiceSchema) -> list[Alignment]:
        """The closest services, without a slot whose match is a tie: "Date of check in"
        shares as many words with a neighbour's check-out date as with its check-in date
        ("in" and "out" are function words), and a user who says "I check out on the 4th"
        for a check-in date says something else than they mean."""
        key = (service, id(schema))
        found = self._untied.get(key)
        if found is None:
            mine = profile_of(schema)
            found = [
                _untied(a, mine, self.profiles[a.service])
                for a in super().neighbours(service, schema)
            ]
            self._untied[key] = found
        return found

    def sources(
        self,
        service: str,
        schema: ServiceSchema | None,
        say: Callable[[str, str], str],
        alike: frozenset[str] = frozenset(),
    ) -> list[Source]:
        found = []
        for source in super().sources(service, schema, say, alike):
            signature, fits = source.signature, source.fits
            if source.table is self.generic:
                signature = _generic_only(signature, _shared_labels(schema))
                fits = self._about_the_slot(fits)
            found.append(replace(source, signature=signature, fits=self._guard(fits)))
        return found

    def _choose(self, entries: Sequence[tuple[str, int]], digest: int) -> str:
        chosen = super()._choose(entries, digest)
        self.used.add(chosen)
        return chosen

    def _guard(self, fits: Callable[[str], bool]) -> Callable[[str], bool]:
        def guarded(template: str) -> bool:
            if template in self.avoid:
                return False
            if self._turn_acts > 1 and bare(template):
                return False
            if not self.place_said and points_back(template):
                return False
            return fits(template)

        return guarded

    def _about_the_slot(self, fits: Callable[[str], bool]) -> Callable[[str], bool]:
        """A generic question must name what it asks about: its labels are too coarse to
        ("How many stops are there?" is the generic question of a count, "Who directed it?"
        of a name, "Are pets allowed?" of a boolean), so each slot asked about must have a
        word of its own name or description in it ("What is the address?"); else the
        question is composed from the description."""

        def named(template: str) -> bool:
            if self._asked and not PLACEHOLDER.search(template):
                said = words(template)
                if not all(said & own for own in self._asked):
                    return False
            return fits(template)

        return named

    def realise(
        self,
        service: str,
        schema: ServiceSchema | None,
        actions: Sequence[Action],
        seed: int = 0,
    ) -> str:
        cares = [a for a in actions if not _is_dontcare(a)]
        loose = [a for a in actions if _is_dontcare(a)]
        self.used = set()
        self._turn_acts = len(cares)
        self._asked = []
        if cares and all(a.act == "REQUEST" for a in cares) and schema is not None:
            common = _common_words(schema)
            self._asked = [
                words(a.slot, spec.description) - common
                for a in cares
                if (spec := schema.slot(a.slot)) is not None
            ]
        text = super().realise(service, schema, cares, seed) if cares else ""
        if loose:
            choice = zlib.crc32(loose[0].slot.encode()) ^ seed
            phrases = [dontcare_phrase(schema, a.slot, choice) for a in loose]
            said = upper_first(" and ".join(phrases)) + "."
            text = f"{text} {said}".strip()
        return the_date(text) or self.empty


def _untied(alignment: Alignment, mine: Profile, theirs: Profile) -> Alignment:
    """``alignment`` without the slots whose best match in ``theirs`` is shared by two."""
    kept = {}
    for slot, other in alignment.slots.items():
        kind, description = mine.slots[slot]
        said = words(slot, description)
        scores = sorted(
            (_jaccard(said, words(o, d)) for o, (k, d) in theirs.slots.items() if k == kind),
            reverse=True,
        )
        if len(scores) < 2 or scores[0] > scores[1]:
            kept[slot] = other
    return replace(alignment, slots=kept)


def _common_words(schema: ServiceSchema) -> frozenset[str]:
    """Words in a third or more of a service's slot descriptions ("restaurant", "event"):
    they say which service, not which slot."""
    counts: dict[str, int] = {}
    for slot in schema.slots:
        for word in words(slot.description):
            counts[word] = counts.get(word, 0) + 1
    limit = max(2, len(schema.slots) / 3)
    return frozenset(w for w, n in counts.items() if n >= limit)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def _shared_labels(schema: ServiceSchema | None) -> frozenset[str]:
    """The slots whose generic label another slot of one of their intents has too (a
    flight's origin and destination cities are both ``city``): a generic template cannot say
    which one it is."""
    if schema is None:
        return frozenset()
    slots = schema_info(schema)[0]
    shared: set[str] = set()
    for intent in schema.intents:
        names = [*intent.required_slots, *intent.optional_slots]
        labels = [slots[n].label for n in names if n in slots]
        shared |= {n for n in names if n in slots and labels.count(slots[n].label) > 1}
    return frozenset(shared)


def _generic_only(
    signature: Callable[[Sequence[Action]], Signature | None], shared: frozenset[str]
) -> Callable[[Sequence[Action]], Signature | None]:
    """A generic table's signature, refusing a boolean's value (every boolean is labelled
    ``bool``) and a slot whose label another slot shares."""

    def keyed(actions: Sequence[Action]) -> Signature | None:
        for a in actions:
            if a.slot in shared and a.act not in INTENT_ACTS:
                return None
            if a.act != "REQUEST" and a.values[:1] and is_bool(a.values[0]):
                return None
        return signature(actions)

    return keyed


@cache
def default_user_wording() -> UserWording:
    """The realiser of the user templates shipped in the package (built once)."""
    return user_realiser(packaged("user"))


def user_realiser(templates: TemplateSet, choices: int = USER_CHOICES) -> UserWording:
    """A realiser of user acts over ``templates`` (e.g. ``store.read_side(DIR, "user")``)."""
    return UserWording(templates, choices=choices)


def realise_user(
    acts: Sequence[Action],
    schema: ServiceSchema,
    rng: random.Random,
    realiser: Realiser | None = None,
    place_said: bool = True,
    avoid: frozenset[str] = frozenset(),
) -> str:
    """What a user would say for ``acts`` to ``schema``'s service; ``place_said``: whether
    the dialogue has named a place that "there" could mean; ``avoid``: templates not to use
    (a user saying the same again says it otherwise; ``UserWording.used`` holds those the
    call used)."""
    chosen = realiser or default_user_wording()
    if isinstance(chosen, UserWording):
        chosen.place_said = place_said
        chosen.avoid = avoid
    return chosen.realise(schema.service_name, schema, acts, seed=rng.getrandbits(32))
