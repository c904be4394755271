"""A question the state and the result on offer cannot answer, answered by a search of the
same service: mid-transfer "how much do I have in savings?" runs the balance check with the
account known; at a ticket confirmation "which theater is it?" runs the search that returns
the theater for the movie, date and city known. The open task is then resumed (its next
question, or its confirmation, asked again); a search that finds what the task still needs
(the hotel to book) offers its result with the answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from tod_runtime.dialogue.models import DONTCARE, Action, State, act
from tod_runtime.schema.models import IntentSchema, ServiceSchema
from tod_runtime.schema.roles import names_entity


def _held(state: State) -> set[str]:
    return {s for s, v in state.slot_values.items() if v and v[0] != DONTCARE}


def unanswered(state: State, entity: dict[str, str] | None, user: Sequence[Action]) -> list[str]:
    """The slots asked for that neither the state nor the result on offer tells; the result
    on offer tells nothing when the user named another value of it this turn ("is paper
    moons playing? how much is it?" with another film on offer)."""
    said = {a.slot: a.values[0].strip().lower() for a in user if a.act == "INFORM" and a.values}
    fits = entity is not None and all(
        entity[s].strip().lower() == v for s, v in said.items() if s in entity
    )
    told = set(entity or {}) if fits else set()
    return [s for s in state.requested_slots if s not in _held(state) and s not in told]


def search_for(
    schema: ServiceSchema, state: State, slots: Sequence[str], active: IntentSchema | None
) -> IntentSchema | None:
    """The service's search (not the task under way) that returns all of ``slots`` and
    whose required slots the state holds; of several, the one taking most of what the state
    holds (GetTimesForMovie, with the movie and date, rather than FindMovies with the city)."""
    held = _held(state)
    fits = [
        i
        for i in schema.intents
        if not i.is_transactional
        and (active is None or i.name != active.name)
        and set(slots) <= set(i.result_slots)
        and set(i.required_slots) <= held
    ]

    def takes(intent: IntentSchema) -> int:
        return len(held & {*intent.required_slots, *intent.optional_slots})

    return max(fits, key=takes, default=None)


def best_row(results: Sequence[dict[str, str]], state: State) -> dict[str, str]:
    """The result holding most of the state's values (the movie asked about), the first of
    equals."""

    def held(row: dict[str, str]) -> int:
        return sum(
            row[s].strip().lower() in {v.strip().lower() for v in values}
            for s, values in state.slot_values.items()
            if s in row
        )

    return max(results, key=held)


def is_lookup(schema: ServiceSchema, state: State, method: str) -> bool:
    """Whether a call of ``method`` answered a question beside the task under way: a search
    other than the active intent, made while slots were asked for."""
    intent = schema.intent(method)
    return (
        bool(state.requested_slots)
        and intent is not None
        and not intent.is_transactional
        and method != state.active_intent
        and schema.intent(state.active_intent) is not None
    )


def finds_for_task(schema: ServiceSchema, state: State, method: str) -> bool:
    """Whether the search finds something the task under way still needs (the hotel to
    book): then its result is offered, not just told about."""
    intent, task = schema.intent(method), schema.intent(state.active_intent)
    if intent is None or task is None:
        return False
    lacking = [s for s in task.required_slots if s not in _held(state)]
    return any(s in intent.result_slots for s in lacking)


def naming(schema: ServiceSchema, method: str, row: dict[str, str]) -> list[Action]:
    """The OFFER that names what the search found (its first result slot that is no input
    and names an entity, ``roles.names_entity``, else its first: the movie, not its price),
    said even when the user named it, so the answer says which one it is."""
    intent = schema.intent(method)
    if intent is None:
        return []
    names = [s for s in intent.found if names_entity(schema.slot(s))] or intent.found
    return [act("OFFER", s, [row[s]]) for s in names[:1] if s in row]
