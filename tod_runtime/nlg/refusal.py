"""The reason a service refused a call, said in one sentence ("Sorry, they can take at most 4
people."), from the refusal act (``dialogue.refusal``: ``NOTIFY_FAILURE(slot=limit)`` with its
reason) and the slot's description; the question that follows it is the generator's as usual.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tod_runtime.dialogue.models import Action
from tod_runtime.dialogue.refusal import Refusal, refusal_of
from tod_runtime.nlg.compose import short_noun_phrase
from tod_runtime.schema.models import ServiceSchema

Say = Callable[[str, str], str]  # (slot, value) -> the value as said

COUNTED = "number of "


def _counted(noun: str, limit: str) -> str:
    """What a count counts ("number of people" -> "people"; one: "room"), else ""."""
    if not noun.startswith(COUNTED):
        return ""
    things = noun[len(COUNTED) :]
    return things[:-1] if limit == "1" and things.endswith("s") else things


def refusal_sentence(refusal: Refusal, schema: ServiceSchema | None, say: Say) -> str:
    """One sentence saying why the service refused."""
    noun = short_noun_phrase(schema, refusal.slot)
    limit = say(refusal.slot, refusal.limit) if refusal.limit else ""
    things = _counted(noun, refusal.limit)
    if refusal.reason == "at_most" and limit:
        if things:
            return f"Sorry, they can take at most {limit} {things}."
        return f"Sorry, the {noun} can be at most {limit}."
    if refusal.reason == "at_least" and limit:
        if things:
            return f"Sorry, they need at least {limit} {things}."
        return f"Sorry, the {noun} must be at least {limit}."
    if refusal.reason == "none_left":
        return f"Sorry, there are no {things} left." if things else "Sorry, none are left."
    if refusal.reason == "closed" and limit:
        return f"Sorry, they close at {limit}."
    if refusal.reason == "opens" and limit:
        return f"Sorry, they open at {limit}."
    if refusal.reason == "not_offered":
        return "Sorry, they do not offer that."
    if refusal.reason == "missing":
        return f"I still need the {noun}."
    if refusal.reason == "unreadable":
        return f"Sorry, I could not read that {noun}."
    return f"Sorry, I could not find one with that {noun}."


def split_refusals(actions: Sequence[Action]) -> tuple[list[Refusal], list[Action]]:
    """The refusals a frame's acts say, and the other acts."""
    found: list[Refusal] = []
    rest: list[Action] = []
    for action in actions:
        refusal = refusal_of(action)
        if refusal is None:
            rest.append(action)
        else:
            found.append(refusal)
    return found, rest
