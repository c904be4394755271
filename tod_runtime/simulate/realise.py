"""User acts as text, for the text level, behind the ``UserRealiser`` Protocol.

``MinedRealiser`` (the default, ``--wording mined``) says acts with the user templates mined
from SGD train's user turns (``nlg.user``), borrowed from the closest mined service for a
service never seen and composed from its schema where no template fits. ``SchemaRealiser``
(``--wording schema``) words every act from the schema alone (an intent's description, a
slot's description, the value in a spoken form: ``2019-03-08`` -> "March 8th", ``18:30`` ->
"6:30 pm", a boolean as its description's statement: "The hotel offers free wifi."),
choosing among a few phrasings with the dialogue's random generator.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from datetime import date

from tod_runtime.dialogue.models import DONTCARE, Action
from tod_runtime.nlg.compose import lower_first as first_lower
from tod_runtime.nlg.compose import noun_phrase, upper_first, yes_no
from tod_runtime.nlg.user import default_user_wording, dontcare_phrase, realise_user
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.values.normalise import slot_kind

MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip

FIXED: dict[str, tuple[str, ...]] = {
    "AFFIRM": ("Yes, that's right.", "Yes please.", "Sounds good."),
    "NEGATE": ("No.", "No, not quite."),
    "AFFIRM_INTENT": ("Yes, please do that.", "Sure, go ahead."),
    "NEGATE_INTENT": ("No, not now.", "No thanks, not right now."),
    "SELECT": ("That one sounds good.", "I'll take that one."),
    "REQUEST_ALTS": ("Can you find something else?", "Anything else available?"),
    "THANK_YOU": ("Thank you.", "Thanks a lot."),
    "GOODBYE": ("Goodbye.", "That's all, bye."),
}
_WORD = re.compile(r"[A-Za-z']+")


def ordinal(day: int) -> str:
    suffix = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def spoken(value: str, kind: str) -> str:
    """A backend-form value as a person would say it."""
    if kind == "date":
        try:
            day = date.fromisoformat(value)
        except ValueError:
            return value
        return f"{MONTHS[day.month - 1]} {ordinal(day.day)}"
    if kind == "time":
        match = re.fullmatch(r"(\d{1,2}):(\d{2})", value.strip())
        if not match:
            return value
        hour, minute = int(match.group(1)), int(match.group(2))
        half = "am" if hour < 12 else "pm"
        shown = hour % 12 or 12
        return f"{shown} {half}" if minute == 0 else f"{shown}:{minute:02d} {half}"
    return value


RELATIVE = frozenset({"where", "which", "that", "who", "when"})
DANGLING = frozenset({"in", "at", "on", "for", "of", "to", "from", "by", "with"})


def short_description(description: str) -> str:
    """A slot's description up to its first relative word ("City where the restaurant is
    located" -> "city"), lower-cased at the start."""
    words = description.rstrip(".").split()
    for i, word in enumerate(words[1:], start=1):
        if word.lower() in RELATIVE:
            words = words[:i]
            while len(words) > 1 and words[-1].lower() in DANGLING:  # "city in which" -> "city"
                words = words[:-1]
            break
    return lower_first(" ".join(words))


def lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text else text


class SchemaRealiser:
    """Words user acts from the schema's descriptions and the values (any service)."""

    def realise(self, acts: Sequence[Action], schema: ServiceSchema, rng: random.Random) -> str:
        alone = len(acts) == 1  # one value on its own: most often an answer to a question
        parts = [self.one(a, schema, rng, alone) for a in acts]
        return " ".join(p for p in parts if p) or "Hello."

    def one(self, action: Action, schema: ServiceSchema, rng: random.Random, alone: bool) -> str:
        name = action.act
        if name in FIXED:
            return rng.choice(FIXED[name])
        if name == "INFORM_INTENT":
            intent = schema.intent(action.values[0]) if action.values else None
            what = lower_first(intent.description) if intent else "get some help"
            return rng.choice(("I'd like to {}.", "Can you help me {}?", "I want to {}.")).format(
                what.rstrip(".")
            )
        spec = schema.slot(action.slot)
        about = short_description(spec.description) if spec else noun_phrase(schema, action.slot)
        kind = slot_kind(schema, action.slot)
        if name == "REQUEST":
            if spec is not None and kind == "bool":
                return yes_no(spec.description).question
            return rng.choice(("What is the {}?", "Can you tell me the {}?")).format(about)
        if name == "INFORM" and action.values:
            value = action.values[0]
            if value == DONTCARE:
                return upper_first(dontcare_phrase(schema, action.slot)) + "."
            if kind == "bool" and spec is not None:
                said = yes_no(spec.description)
                statement = said.yes if value.lower() == "true" else said.no
                return rng.choice((statement, f"I'd like it if {first_lower(statement)}"))
            words = spoken(value, kind)
            if alone:
                return rng.choice(("{}.", "{}, please.", "The {1} is {0}.")).format(words, about)
            return f"The {about} is {words}."
        return ""


class MinedRealiser:
    """User templates mined from SGD train's user turns (``tod train nlg``), composed from the
    schema's descriptions where none fits (``nlg.user``). ``place_said`` (set by the runner
    before each turn): whether the dialogue has named a place "there" can mean (a later task's
    turn), else no template saying "there" of a place is used.

    A user who says the same acts again (the system asked again, or did not understand)
    says them otherwise, as people do: not with a template said for them in the turns
    before (another of the service's, a neighbour's, a generic one, else composed).
    ``new_dialogue()`` forgets what was said."""

    place_said: bool = True

    def __init__(self) -> None:
        self._last: list[tuple[str, str, tuple[str, ...]]] = []
        self._said: frozenset[str] = frozenset()

    def new_dialogue(self) -> None:
        self._last, self._said = [], frozenset()

    def realise(self, acts: Sequence[Action], schema: ServiceSchema, rng: random.Random) -> str:
        said = [a.key() for a in acts]
        avoid = self._said if said == self._last else frozenset()
        wording = default_user_wording()
        text = realise_user(acts, schema, rng, wording, self.place_said, avoid)
        self._last, self._said = said, avoid | frozenset(wording.used)
        return text
