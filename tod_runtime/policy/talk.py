"""The conversation around the tasks, shared by the policies and driven by the schemas only.

* Nothing understood at the start: ``GREETING`` with what the system can do (every service's
  intents, by their schema descriptions).
* Nothing understood later: ``FALLBACK`` ("sorry, I did not get that") and the previous
  question again when one is open; with no question open, ``FALLBACK`` with what the system
  can do (this is also the answer to an out-of-domain request, which the NLU leaves empty).
* A search with no results: ``INFORM_COUNT(count=0)`` and a REQUEST of the constraint to
  relax (an optional one the user set, else the last required one), proposing the values the
  search finds without it (``found_without``) — told apart from a failed
  transaction: ``NOTIFY_FAILURE`` and a REQUEST of a detail the user can change (a booking
  detail that is not the entity's identity), so an alternative is on offer; when the backend
  said why (a ``Refusal``), ``NOTIFY_FAILURE(slot=limit)`` with its reason and a REQUEST of
  the input that broke the limit.
* Nothing understood in answer to a question for a detail a search finds ("Which hotel do
  you want to stay at?"): the user does not know one (a name they knew they would have
  said), so the search that finds it is made and its results offered (``lookup``).
* A bare "no" to a confirmation: a REQUEST of every slot that was confirmed, with its
  confirmed value, so the user says what to change and the rest stays (SGD's users always say
  it with the "no", so imitation has nothing to learn); an answer naming one of them without
  its new value ("the time"): a REQUEST of that slot.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import zip_longest

from tod_runtime.backends.base import Backend
from tod_runtime.dialogue.context import PolicyInput, SystemPlan
from tod_runtime.dialogue.history import History
from tod_runtime.dialogue.models import (
    DONTCARE,
    Action,
    ServiceCall,
    State,
    act,
    change_asks,
    found_nothing,
)
from tod_runtime.dialogue.refusal import Refusal, refusal_act
from tod_runtime.policy.history import entity_on_offer
from tod_runtime.schema.models import IntentSchema, ServiceSchema
from tod_runtime.schema.roles import slot_roles

QUESTIONS = frozenset({"REQUEST", "CONFIRM", "OFFER", "OFFER_INTENT"})


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text else text


def capabilities(schemas: Mapping[str, ServiceSchema]) -> tuple[list[str], list[str]]:
    """(descriptions, names) of every intent of every service, in schema order."""
    described = [
        (_lower_first(i.description.rstrip(".")) or i.name, i.name)
        for schema in schemas.values()
        for i in schema.intents
    ]
    return [d for d, _ in described], [n for _, n in described]


MAX_SUGGESTIONS = 3  # what the system can do, said in one breath


def first_tasks(
    schemas: Mapping[str, ServiceSchema], limit: int = MAX_SUGGESTIONS
) -> tuple[list[str], list[str]]:
    """(descriptions, names) of at most ``limit`` intents, the services' first ones first
    (then their second ones, ...), one of each name (sister services' "FindBus" once): what
    the system can do when nothing says which of it is wanted."""
    rounds = zip_longest(*(schema.intents for schema in schemas.values()))
    named: dict[str, IntentSchema] = {}
    for intent in (i for intents in rounds for i in intents if i is not None):
        named.setdefault(intent.name.lower().rstrip("s"), intent)
    chosen = list(named.values())[:limit]
    return [task_phrase(i) for i in chosen], [i.name for i in chosen]


def task_phrase(intent: IntentSchema) -> str:
    """An intent as a thing the system can do: its description without the final stop, in
    lower case at first ("find a restaurant to eat at"), else its name."""
    return _lower_first(intent.description.rstrip(". ") or intent.name)


def greeting(schemas: Mapping[str, ServiceSchema]) -> Action:
    described, names = capabilities(schemas)
    return act("GREETING", "intent", described, names)


# a question for a slot the service knows at most this many values of lists them
OPTIONS_LISTED = 10


def fallback(
    schemas: Mapping[str, ServiceSchema],
    previous: Sequence[Action],
    next_step: Sequence[Action] = (),
) -> list[Action]:
    """What to say when nothing was understood, mid-dialogue: the question open again, else
    the task's ``next_step`` (``next_step``), else what the system can do."""
    questions = [a for a in previous if a.act in QUESTIONS]
    if questions:
        return [act("FALLBACK"), *questions]
    if next_step:
        return [act("FALLBACK"), *next_step]
    described, names = capabilities(schemas)
    return [act("FALLBACK", "intent", described, names)]


def next_step(schema: ServiceSchema, state: State | None, history: History) -> list[Action]:
    """The question a search's result on offer leads to ("Would you like to schedule a
    visit?"): nothing understood after a question about it was answered is no reason to
    list every service ("ok i want to go see it" after "is it furnished?")."""
    search = schema.intent(state.active_intent) if state is not None else None
    offers = [i.name for i in schema.intents if i.is_transactional]
    if state is None or search is None or search.is_transactional or not offers:
        return []
    if entity_on_offer(history, schema.service_name, state) is None:
        return []
    return [act("OFFER_INTENT", "intent", offers[:1])]


def brief_confirmation(actions: Sequence[Action], schema: ServiceSchema | None) -> list[Action]:
    """A confirmation asked again after an answer, in one short sentence: of its CONFIRM
    acts, only the one naming what is booked (a slot whose name, or the start of whose
    description, says it is a name: the movie, the restaurant), else the first; the other
    acts as they are. What the user agreed to before stays agreed (``History.confirmed``)."""
    confirms = [a for a in actions if a.act == "CONFIRM" and a.slot]
    if len(confirms) < 2:
        return list(actions)

    def names(action: Action) -> bool:
        slot = schema.slot(action.slot) if schema is not None else None
        described = slot.description.lower().split()[:3] if slot is not None else []
        return "name" in {*action.slot.split("_"), *described}

    keep = next((a for a in confirms if names(a)), confirms[0])
    return [a for a in actions if a.act != "CONFIRM" or a is keep]


def finder(schema: ServiceSchema, slot: str) -> IntentSchema | None:
    """The service's first search intent that returns ``slot`` (a hotel's name)."""
    return next(
        (i for i in schema.intents if not i.is_transactional and slot in i.result_slots), None
    )


def lookup(schema: ServiceSchema, state: State, previous: Sequence[Action]) -> IntentSchema | None:
    """When nothing was understood in answer to ``previous``: the search to make instead of
    asking again, if the question was for a required slot of the active transaction that a
    search finds and the user has not given ("Which hotel?" answered "something cheap",
    "I don't know"); else None."""
    intent = schema.intent(state.active_intent)
    if intent is None or not intent.is_transactional:
        return None
    asked = [
        a.slot
        for a in previous
        if a.act == "REQUEST"
        and a.slot in intent.required_slots
        and a.slot not in state.slot_values
    ]
    return next((f for s in asked if (f := finder(schema, s)) is not None), None)


def needs_options(actions: Sequence[Action]) -> bool:
    """Whether the turn says it did not understand or found nothing and asks one question:
    the one turn where the values a service knows are worth listing (``with_options``)."""
    said = any(a.act == "FALLBACK" and not a.slot for a in actions) or found_nothing(actions)
    return said and len([a for a in actions if a.act == "REQUEST"]) == 1


def with_options(
    actions: Sequence[Action],
    schema: ServiceSchema,
    known: Mapping[str, Sequence[str]],
    found: Mapping[str, Sequence[str]] | None = None,
) -> list[Action]:
    """The turn's question proposing the values the service knows of its slot (a categorical
    slot's possible values, else its backend's values; not a yes/no, a number, a date or a
    time, and only when there are at most ``OPTIONS_LISTED``), when ``needs_options``: after
    "Sorry, I did not get that" or "I found nothing" the user learns what the service knows
    ("I'd like sushi": Japanese; a city with no cinema: the cities with one). ``found``: the
    values the search finds with its other constraints kept (``found_without``), proposed
    first, even one ("no Italian place in San Francisco": the cuisines it has)."""
    if not needs_options(actions):
        return list(actions)
    return [_with_options(a, schema, known, found or {}) for a in actions]


def search_of(turn: PolicyInput, service: str) -> ServiceCall | None:
    """The search a turn's answer is about: the call it just made, else the service's last."""
    if turn.service_call is not None:
        return turn.service_call
    frame, _ = turn.context.history.last_search(service)
    return frame.service_call if frame is not None else None


async def found_without(
    actions: Sequence[Action], service: str, search: ServiceCall, backend: Backend
) -> dict[str, list[str]]:
    """After "I found nothing" (or nothing more) and a question for one of the search's
    constraints: that slot's values among what the search finds without it, the value it was
    made with left out (empty when the search finds nothing without it either, or the backend
    refuses the call, say for a required parameter left out)."""
    asked = [a.slot for a in actions if a.act == "REQUEST"]
    if not found_nothing(actions) or len(asked) != 1 or asked[0] not in search.parameters:
        return {}
    slot = asked[0]
    tried = search.parameters[slot].strip().lower()
    others = {k: v for k, v in search.parameters.items() if k != slot}
    try:
        rows = await backend.call(service, ServiceCall(method=search.method, parameters=others))
    except Exception:  # a suggestion only: a backend that refuses the call costs none of the turn
        return {}
    values = [r[slot] for r in rows if slot in r and r[slot].strip().lower() != tried]
    return {slot: list(dict.fromkeys(values))}


async def offering_options(
    plan: SystemPlan,
    schemas: Mapping[str, ServiceSchema],
    backend: Backend | None,
    search: ServiceCall | None = None,
) -> SystemPlan:
    """``plan`` with its question proposing the values the service knows (``with_options``),
    or, after a ``search`` that found nothing (more), the values it finds with its other
    constraints kept; the backend asked only for a turn that needs them."""
    schema = schemas.get(plan.service)
    if schema is None or not needs_options(plan.actions):
        return plan
    known, found = {}, {}
    if backend is not None:
        known = await backend.entity_values(plan.service)
        if search is not None:
            found = await found_without(plan.actions, plan.service, search, backend)
    return replace(plan, actions=with_options(plan.actions, schema, known, found))


def _with_options(
    question: Action,
    schema: ServiceSchema,
    known: Mapping[str, Sequence[str]],
    found: Mapping[str, Sequence[str]],
) -> Action:
    slot = schema.slot(question.slot) if question.act == "REQUEST" else None
    if slot is None or question.values or slot_roles(schema)[slot.name].value_type != "text":
        return question
    values = list(found.get(slot.name, ()))
    if not values:
        values = list(slot.possible_values if slot.is_categorical else known.get(slot.name, ()))
        if len(values) < 2:
            return question
    if len(values) > OPTIONS_LISTED:
        return question
    return act("REQUEST", slot.name, values)


def opening(turn: PolicyInput, schemas: Mapping[str, ServiceSchema]) -> list[Action]:
    """No task yet: a greeting at the start, else "sorry", both with what the system can do."""
    if not turn.user_acts and not turn.context.history:
        return [greeting(schemas)]
    if not turn.user_acts:
        return fallback(schemas, [])
    return [act("REQ_MORE")]


def _set_by_user(state: State, slots: Sequence[str]) -> list[str]:
    return [s for s in slots if state.slot_values.get(s) and state.slot_values[s][0] != DONTCARE]


def no_results(intent: IntentSchema, state: State, previous: Sequence[Action] = ()) -> list[Action]:
    """A search that found nothing: say so, and ask about the constraint to relax (the last
    optional one the user set, else the last required one). When the system had just said
    so and asked about one (``previous``), and the user kept it, the one before it is asked
    about (round the list): asking for the same slot again gets the same answer, and the
    same nothing."""
    candidates = _set_by_user(state, [*intent.required_slots, *intent.optional_slots])
    if not candidates:
        return [act("INFORM_COUNT", "count", ["0"])]
    again = found_nothing(previous)
    asked = [a.slot for a in previous if a.act == "REQUEST" and a.slot in candidates]
    relax = candidates[candidates.index(asked[0]) - 1] if again and asked else candidates[-1]
    return [act("INFORM_COUNT", "count", ["0"]), act("REQUEST", relax)]


def failed_transaction(
    intent: IntentSchema, schema: ServiceSchema, state: State, refusal: Refusal | None = None
) -> list[Action]:
    """A transaction the service refused: say so, and ask for a detail to change. With the
    service's reason (``refusal``), say it and ask for the input that broke the limit ("They
    can seat at most 4. How many people?"); without one, ask for a time or date first, else
    the last booking detail that no search returns."""
    if refusal is not None and refusal.slot in schema.slot_map:
        return [refusal_act(refusal), act("REQUEST", refusal.slot)]
    found = {s for i in schema.intents if not i.is_transactional for s in i.result_slots}
    details = [
        s
        for s in [*intent.required_slots, *intent.optional_slots]
        if s not in found or slot_roles(schema)[s].value_type in ("time", "date")
    ]
    timed = [s for s in details if slot_roles(schema)[s].value_type in ("time", "date")]
    change = timed[:1] or details[-1:]
    return [act("NOTIFY_FAILURE"), *(act("REQUEST", s) for s in change)]


def what_else(
    user: Sequence[Action], previous: Sequence[Action], schemas: Mapping[str, ServiceSchema]
) -> list[Action] | None:
    """A bare "yes" to "anything else?": ask what, with a few things the system can do (a
    REQ_MORE over the first intents, ``first_tasks``: never the whole list); None in every
    other case."""
    if [a.act for a in user] != ["AFFIRM"] or "REQ_MORE" not in {a.act for a in previous}:
        return None
    described, names = first_tasks(schemas)
    return [act("REQ_MORE", "intent", described, names)]


def what_to_change(user: Sequence[Action], previous: Sequence[Action]) -> list[Action] | None:
    """A bare NEGATE to a CONFIRM: ask which of the confirmed details to change (a REQUEST of
    each confirmed slot proposing its confirmed value, so the state keeps what the user does
    not change). The answer naming one of them without a new value ("the time, please": the
    NLU reads it as a REQUEST of that slot): ask for its new value. None in every other
    case."""
    asked = {a.slot for a in change_asks(previous)}
    named = [a.slot for a in user if a.act == "REQUEST"]
    if asked and len(named) == 1 and named[0] in asked and all(a.act != "INFORM" for a in user):
        return [act("REQUEST", named[0])]
    if not user or any(a.act != "NEGATE" for a in user):
        return None
    confirmed = {a.slot: a for a in previous if a.act == "CONFIRM" and a.slot}
    if not confirmed:
        return None
    return [act("REQUEST", s, a.values, a.canonical_values) for s, a in confirmed.items()]
