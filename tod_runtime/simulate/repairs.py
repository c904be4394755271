"""What people do that SGD's users never do, for the text-level simulated user
(``tod simulate --level text --repairs``): each a named move with a rate, played before the
user's own next turn. The user then goes on with its goal, so a dialogue succeeds only if the
system took the detour and came back: a greeting that starts no task, asking for the last
reply again, a question about the entity on offer while details are collected, "anything
else?" or "anything cheaper?" after an offer, an acknowledgement, calling the task off mid-way
("never mind") and starting it over, taking back a wrong value before the confirmation
("actually, 7 pm"), and the turn typed in lower case with a typo.

The words are a few fixed English phrases (what the conversation patterns must understand on
any schema), never a service's values.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from tod_runtime.dialogue.models import Action
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.simulate.base import SystemTurnView

GREETINGS = ("hi there", "hello", "hey", "good morning", "hi!")
REPEATS = ("sorry?", "what did you say?", "sorry, come again?", "can you repeat that?")
ANOTHER = ("anything else?", "any others?", "something else?", "another one?")
ACKS = ("ok", "okay great", "sounds good", "cool")
QUESTIONS = ("what's the {}?", "and the {}?", "whats the {} of it", "can you tell me the {}?")
CANCELS = ("never mind, forget it", "forget it", "cancel that", "actually, never mind")
CHANGES = ("actually, {}", "sorry, i meant {}", "wait, make that {}")
# what a comparative compares (words of a result slot's name or description) and how it is said
REFINES: tuple[tuple[frozenset[str], tuple[str, ...]], ...] = (
    (frozenset({"price", "cost", "fare", "rent", "fee"}),
     ("anything cheaper?", "is there a cheaper one?", "something less expensive?")),
    (frozenset({"time"}), ("a later one?", "anything later?", "is there a later one?")),
)  # fmt: skip
REPAIRS = (
    "greeting", "repeat", "digression", "another", "refine", "acknowledge", "cancel",
    "change_mind", "casual",
)  # fmt: skip


@runtime_checkable
class Repairing(Protocol):
    """A simulated user that can call its task off and start it over, and take back a value
    it said wrong on purpose (the ``schema`` simulator's ``AgendaUser``)."""

    def restart_task(self) -> None:
        """Its next turn opens the current task again, from nothing."""
        ...

    def change_of_mind(self, take: bool = False) -> Action | None:
        """The INFORM that takes back a wrong value said for the current task before its
        confirmation (None: none to take back); ``take``: it is said now."""
        ...


@dataclass
class RepairRates:
    """How often each move is made where it fits (0 to 1)."""

    rates: dict[str, float] = field(default_factory=lambda: dict.fromkeys(REPAIRS, 0.25))

    @classmethod
    def every(cls, rate: float) -> RepairRates:
        return cls(dict.fromkeys(REPAIRS, rate))


@dataclass(frozen=True)
class Detour:
    """A turn the user says before its own; ``resumes``: the user answers the system's
    reply to it (the system moved on: another result), not the reply before."""

    name: str
    text: str
    resumes: bool = False
    say: Action | None = None  # an act the user's own words realise, into ``text``'s {}


def _slot_words(schema: ServiceSchema, slot: str) -> str:
    return slot.replace("_", " ")


def _refinements(schema: ServiceSchema) -> list[str]:
    """How "a better one" can be asked for on this service: a comparative whose concept a
    search's result slot names in its name or description."""
    results = {s for i in schema.intents if not i.is_transactional for s in i.result_slots}
    words = set()
    for slot in schema.slots:
        if slot.name in results:
            words |= {*slot.name.split("_"), *slot.description.lower().split()}
    return [text for concept, said in REFINES if concept & words for text in said]


def detour(
    view: SystemTurnView | None,
    schema: ServiceSchema | None,
    rng: random.Random,
    rates: RepairRates,
    asked: set[str],
    user: object = None,
) -> Detour | None:
    """The move made before the user's next turn, if any (at most one a turn, each kind at
    most once a dialogue: ``asked`` holds those made). Calling the task off and taking a
    value back need a ``Repairing`` user."""

    def chance(name: str) -> bool:
        return name not in asked and rng.random() < rates.rates.get(name, 0.0)

    if view is None:
        return Detour("greeting", rng.choice(GREETINGS)) if chance("greeting") else None
    kinds = {a.act for a in view.actions}
    offered = [a for a in view.actions if a.act == "OFFER"]
    moves: list[tuple[str, Callable[[], Detour]]] = [
        ("repeat", lambda: Detour("repeat", rng.choice(REPEATS))),
    ]
    if offered and "REQUEST" not in kinds:
        moves.append(("another", lambda: Detour("another", rng.choice(ANOTHER), resumes=True)))
        refine = _refinements(schema) if schema is not None else []
        if refine:
            moves.append(("refine", lambda: Detour("refine", rng.choice(refine), resumes=True)))
    if isinstance(user, Repairing) and "REQUEST" in kinds:
        moves.append(("cancel", lambda: Detour("cancel", rng.choice(CANCELS), resumes=True)))
        taken_back = user.change_of_mind()
        if taken_back is not None:
            change = Detour("change_mind", rng.choice(CHANGES), say=taken_back)
            moves.append(("change_mind", lambda: change))
    if schema is not None and kinds & {"REQUEST", "CONFIRM"}:
        result_slots = sorted({s for i in schema.intents for s in i.result_slots})
        said = {a.slot for a in view.actions}
        candidates = [s for s in result_slots if s not in said]
        if candidates:
            slot = rng.choice(candidates)
            text = rng.choice(QUESTIONS).format(_slot_words(schema, slot))
            moves.append(("digression", lambda: Detour("digression", text)))
    if kinds & {"INFORM", "NOTIFY_SUCCESS"} and not kinds & {"REQUEST", "CONFIRM", "OFFER"}:
        moves.append(("acknowledge", lambda: Detour("acknowledge", rng.choice(ACKS))))
    rng.shuffle(moves)
    for name, make in moves:
        if chance(name):
            asked.add(name)
            return make()
    return None


def casual(text: str, rng: random.Random, rate: float) -> str:
    """The turn as many people type it: lower case, sometimes a letter dropped from a long
    word (not from digits)."""
    if rng.random() >= rate:
        return text
    words = text.lower().split()
    long = [i for i, w in enumerate(words) if len(w) > 5 and w.isalpha()]
    if long and rng.random() < 0.5:
        i = rng.choice(long)
        j = rng.randrange(1, len(words[i]) - 1)
        words[i] = words[i][:j] + words[i][j + 1 :]
    return " ".join(words)
