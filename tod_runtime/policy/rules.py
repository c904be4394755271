"""The rules policy: SGD's system behaviour, driven by the schema and the state.

Around the tasks (``talk``): a greeting with what the system can do when nothing is understood
at the start, a fallback later ("sorry", and the open question again, or what the system can
do); a search without results told apart from a refused transaction, each with a way on,
and so is a request for another result when none is left (SGD's systems say NOTIFY_FAILURE,
REQ_MORE, which a service's wording of a refused booking would say).

Ask for the active intent's missing required slots (and when the user, asked once, still does
not give one that a search intent returns, such as a restaurant's name, run that search
instead); search when they are known and offer the results one by one (INFORM_COUNT with the
first; a search made again starts from the first result not offered before); confirm a
transaction's slots and optional defaults before calling it, then NOTIFY_SUCCESS or
NOTIFY_FAILURE; answer requests from the entity on offer; after a chosen search result, offer
the service's transactional intent; REQ_MORE when a task is done and GOODBYE when the user is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import date

from tod_runtime.backends.base import Backend, reference_date
from tod_runtime.components import ComponentContext
from tod_runtime.dialogue.context import PolicyInput, SystemPlan
from tod_runtime.dialogue.history import History
from tod_runtime.dialogue.models import DONTCARE, Action, Frame, ServiceCall, State, act
from tod_runtime.policy import lookup, talk
from tod_runtime.policy.history import (
    addressed_service,
    backend_value,
    call_parameters,
    entity_on_offer,
)
from tod_runtime.policy.options import RulesPolicyOptions
from tod_runtime.schema.loader import Schemas
from tod_runtime.schema.models import IntentSchema, ServiceSchema
from tod_runtime.schema.roles import names_entity

MAX_REQUESTS = 1  # SGD's system mostly asks for one slot at a time
MIN_IMPLYING = 2  # entities that must agree before a value they hold is implied
MAX_OFFERED_SLOTS = 3


class RulesPolicy:
    def __init__(self, ctx: ComponentContext) -> None:
        self.schemas: Schemas = ctx.schemas
        self.backend: Backend = ctx.backend
        self.say_booked = ctx.settings(RulesPolicyOptions).say_booked

    async def decide(self, turn: PolicyInput) -> SystemPlan:
        plan = await self._plan(turn)
        search = talk.search_of(turn, plan.service)
        return await talk.offering_options(plan, self.schemas, self.backend, search)

    async def _plan(self, turn: PolicyInput) -> SystemPlan:
        service = turn.active_service  # the second pass stays where the call was made
        if turn.service_call is None:
            service = addressed_service(turn.user_acts, service, turn.context.state)
        if service is None or service not in self.schemas:
            return SystemPlan(service or next(iter(self.schemas)), talk.opening(turn, self.schemas))
        schema = self.schemas[service]
        state = turn.context.state.get(service, State())
        history = turn.context.history
        today = reference_date(self.backend, service)
        acts = turn.user_acts.get(service, [])
        state = await implied(self.backend, service, schema, state, history, acts, today)
        if turn.service_call is not None:
            method = turn.service_call.method
            if turn.service_results and lookup.is_lookup(schema, state, method):
                return self.resumed(turn, service, state, today)
            return SystemPlan(service, after_call(turn, schema, state, self.say_booked))
        decision = _Decision(service, schema, state, history, turn, today)
        if not turn.user_acts:  # nothing understood
            previous = history.last_system_acts(service)
            finder = talk.lookup(schema, state, previous)
            if finder is not None:  # "Which hotel?" not answered: look one up
                return decision.find(finder)
            step = talk.next_step(schema, state, history)
            said = talk.fallback(self.schemas, previous, step)  # a confirmation: again in brief
            return SystemPlan(service, talk.brief_confirmation(said, schema))
        return decision.plan()

    def resumed(self, turn: PolicyInput, service: str, state: State, today: date) -> SystemPlan:
        """A search made to answer a question beside the task (``lookup``): the answer, then
        the task's open question again, as the turn without the question would have asked it
        (the system's last questions when that would be a call); a search that found what the
        task needs offers its result too."""
        assert turn.service_call is not None and turn.service_results
        schema = self.schemas[service]
        row = lookup.best_row(turn.service_results, state)
        answers = inform(row, state.requested_slots)
        method = turn.service_call.method
        if lookup.finds_for_task(schema, state, method):
            count = act("INFORM_COUNT", "count", [str(len(turn.service_results))])
            offered = [*lookup.naming(schema, method, row), *offer(row, schema, state)]
            offered = [a for a in offered if a.slot not in state.requested_slots]  # told below
            offered = [a for n, a in enumerate(offered) if a not in offered[:n]]
            return SystemPlan(service, [*offered, *answers, count])
        calm = state.model_copy(update={"requested_slots": []})
        context = replace(turn.context, state={**turn.context.state, service: calm})
        again = PolicyInput(context, turn.user_acts, service)
        plan = _Decision(service, schema, calm, context.history, again, today).plan()
        if plan.service_call is not None or not plan.actions:
            previous = turn.context.history.last_system_acts(service)
            plan = SystemPlan(service, [a for a in previous if a.act in talk.QUESTIONS])
        return SystemPlan(service, [*answers, *talk.brief_confirmation(plan.actions, schema)])


async def implied(
    backend: Backend,
    service: str,
    schema: ServiceSchema,
    state: State,
    history: History,
    acts: Sequence[Action],
    today: date,
) -> State:
    """``state`` with what the backend's entities imply: a search's missing required
    categorical slots take the one value that every entity the backend holds with the
    values the user gave the search's optional slots holds, when two or more do ("are there
    any baseball games in philadelphia next friday?": every event whose category is
    Baseball, in any city, is a sport, so the events are searched for rather than "What kind
    of events?" asked; a furnished flat implies no number of bedrooms). The tracked state is
    left as it is; the policy decides on this one."""
    intent = schema.intent(state.active_intent or "")
    if intent is None or intent.is_transactional:
        return state
    missing = [s for s in intent.required_slots if s not in state.slot_values]
    narrowed = [
        s for s in intent.optional_slots if state.slot_values.get(s, [DONTCARE])[0] != DONTCARE
    ]
    if not missing or not narrowed or not all(_categorical(schema, s) for s in missing):
        return state
    params = call_parameters(state, narrowed, schema, history, acts, today)
    rows = await backend.call(service, ServiceCall(method=intent.name, parameters=params))
    found: dict[str, list[str]] = {}
    for slot in missing:
        held = {row.get(slot) for row in rows}
        value = held.pop() if len(held) == 1 and len(rows) >= MIN_IMPLYING else None
        if not value:
            return state
        found[slot] = [value]
    return state.model_copy(update={"slot_values": {**state.slot_values, **found}})


def _categorical(schema: ServiceSchema, slot: str) -> bool:
    spec = schema.slot(slot)
    return spec is not None and spec.is_categorical


def after_call(
    turn: PolicyInput, schema: ServiceSchema, state: State, say_booked: bool = True
) -> list[Action]:
    assert turn.service_call is not None
    intent = schema.intent(turn.service_call.method)
    results = turn.service_results or []
    requested = [s for s in state.requested_slots]
    if intent is not None and intent.is_transactional:
        if not results:
            return talk.failed_transaction(intent, schema, state, turn.refusal)
        done = booked(intent, results[0]) if say_booked else []
        return [*inform(results[0], requested), act("NOTIFY_SUCCESS"), *done]
    if not results:
        if intent is None:
            return [act("NOTIFY_FAILURE")]
        previous = turn.context.history.last_system_acts(schema.service_name)
        return talk.no_results(intent, state, previous)
    fresh = results[turn.context.history.first_unoffered(schema.service_name, results)]
    # "whats their rating?" said with the search (answering "do you want to find a doctor
    # or a restaurant?"): the result offered, with what was asked of it
    offered = offer(fresh, schema, state)
    asked = [a for a in inform(fresh, requested) if a.slot not in {o.slot for o in offered}]
    return [*offered, *asked, *count_of(results, intent, schema)]


def count_of(
    results: list[dict[str, str]], intent: IntentSchema | None, schema: ServiceSchema
) -> list[Action]:
    """``INFORM_COUNT`` of a search's results, unless it found one row that names nothing (a
    balance, the weather: "I found 1 option" says nothing; SGD train's system said no count
    for 3,472 of 4,455 such results)."""
    found = intent.found if intent else []
    if len(results) == 1 and not any(names_entity(schema.slot(s)) for s in found):
        return []
    return [act("INFORM_COUNT", "count", [str(len(results))])]


def booked(intent: IntentSchema, row: dict[str, str]) -> list[Action]:
    """What a transaction did, for the NLG to say with its values ("I have reserved the table
    at Little Kitchen for 4 people ..."): ``NOTIFY_SUCCESS(slot=value)`` for each input of the
    intent its result row holds (M2M's form of the act; SGD's has no slot, and the bare act
    stays first)."""
    inputs = [*intent.required_slots, *intent.optional_slots]
    return [act("NOTIFY_SUCCESS", s, [row[s]]) for s in inputs if row.get(s, DONTCARE) != DONTCARE]


def inform(entity: dict[str, str], slots: Sequence[str]) -> list[Action]:
    return [act("INFORM", s, [entity[s]]) for s in slots if s in entity]


def offer(entity: dict[str, str], schema: ServiceSchema, state: State) -> list[Action]:
    """OFFER the slots that identify the entity: what the search finds (its first result slot
    that is not one of its inputs: the restaurant's or the car's name), then those a
    transaction needs that the user has not given, else the first result slots the user has
    not given; a slot a transaction needs that the user left open ("any hotel") first, so the
    entity is named."""
    found: list[str] = []
    if (search := schema.intent_map.get(state.active_intent)) is not None:
        found = search.found[:1]
    required = [s for i in schema.intents if i.is_transactional for s in i.required_slots]
    needed = [s for s in required if s in entity and s not in state.slot_values]
    left_open = [s for s in required if s in entity and state.slot_values.get(s) == [DONTCARE]]
    fresh = [s for s in entity if s not in state.slot_values]
    chosen = [s for s in found if s in entity and s not in state.slot_values]
    slots = list(dict.fromkeys([*left_open, *chosen, *(needed or fresh)]))[:MAX_OFFERED_SLOTS]
    return [act("OFFER", s, [entity[s]]) for s in slots]


class _Decision:
    """One first-pass decision; each rule is a method, tried in order."""

    def __init__(
        self,
        service: str,
        schema: ServiceSchema,
        state: State,
        history: History,
        turn: PolicyInput,
        today: date,
    ) -> None:
        self.service = service
        self.schema = schema
        self.state = state
        self.history = history
        self.acts = turn.user_acts.get(service, [])
        self.user = {a.act for a in self.acts}
        self.previous = history.last_system_acts(service)
        self.prev_kinds = {a.act for a in self.previous}
        self.intent: IntentSchema | None = schema.intent(state.active_intent)
        self.today = today  # the backend's reference date: what "today" means in a call
        self.schemas = turn.context.schemas

    def done(self, *actions: Action) -> SystemPlan:
        return SystemPlan(self.service, list(actions))

    def plan(self) -> SystemPlan:
        change = talk.what_to_change(self.acts, self.previous)
        if change is not None:  # "no" to a confirmation: what should change?
            return self.done(*change)
        more = talk.what_else(self.acts, self.previous, self.schemas)
        if more is not None:  # "yes" to "anything else?": what, then?
            return self.done(*more)
        if "GOODBYE" in self.user or self.user == {"NEGATE", "THANK_YOU"}:
            return self.done(act("GOODBYE"))  # "no thanks, that's all"
        if self.user <= {"THANK_YOU", "NEGATE", "NEGATE_INTENT"}:
            return self.done(act("REQ_MORE"))
        if self.intent is None:
            return self.done(act("REQ_MORE"))
        looked = self.look_up()
        if looked is not None:  # a question beside the task: a search of the service answers
            return looked
        missing = self.missing(self.intent) or self.unnamed(self.intent)
        if missing:
            finder = self.finder(missing[0])
            if finder is not None:  # asked already, and the user does not know: look it up
                return self.about_found(finder) or self.find(finder)
            # what the user asks of the result on offer is answered before the next question
            entity = entity_on_offer(self.history, self.service, self.state, self.acts) or {}
            answers = inform(entity, self.state.requested_slots)
            return self.done(*answers, *self.request(missing).actions)
        if self.intent.is_transactional:
            return self.transaction(entity_on_offer(self.history, self.service, self.state))
        search, shown = self.history.last_search(self.service)
        results = (search.service_results or []) if search else []
        return self.search(search, results, shown)

    def look_up(self) -> SystemPlan | None:
        """A call of the search that answers what was asked and nothing the state, the
        result on offer or what was booked tells (``lookup``); None when nothing such is
        asked, or the user also says yes (the booking's result answers)."""
        if "AFFIRM" in self.user or self.intent is None:  # a yes: the booking's result answers
            return None
        booked = self.history.last_success(self.service, self.intent.name)
        entity = entity_on_offer(self.history, self.service, self.state, self.acts)
        told = booked[1] if booked is not None else {}
        asked = [s for s in lookup.unanswered(self.state, entity, self.acts) if s not in told]
        search = lookup.search_for(self.schema, self.state, asked, self.intent) if asked else None
        return self.call(search, self.parameters(search)) if search is not None else None

    def finder(self, slot: str) -> IntentSchema | None:
        """A search intent that returns ``slot``, when the user was asked for it before and
        did not give it (say, a restaurant's name when they want any Italian place)."""
        if not self.history.asked(self.service, slot):
            return None
        return talk.finder(self.schema, slot)

    def about_found(self, finder: IntentSchema) -> SystemPlan | None:
        """What the user asks of the entities ``finder`` found and the system offered (its
        details, another one), answered as a search answers them, rather than the same
        search and offer again; None when the last search is not ``finder``'s or the user
        asks nothing of it."""
        search, shown = self.history.last_search(self.service)
        call = search.service_call if search is not None else None
        if search is None or call is None or call.method != finder.name:
            return None
        results = search.service_results or []
        entity = entity_on_offer(self.history, self.service, self.state)
        if "REQUEST_ALTS" in self.user:
            return self.another(finder, results, shown)
        answers = inform(entity, self.state.requested_slots) if entity is not None else []
        if answers:
            return self.done(*answers)
        if entity is not None and self.takes_offer(finder, call.parameters):
            assert self.intent is not None
            lacking = [*self.missing(self.intent), *self.unnamed(self.intent)]
            unknown = [s for s in lacking if s not in entity]
            if unknown:  # the entity settles what it names; the rest is asked for
                return self.request(unknown)
            return self.transaction(entity, {s: entity[s] for s in lacking})
        return None

    def another(
        self, searched: IntentSchema, results: list[dict[str, str]], shown: int
    ) -> SystemPlan:
        """Another result asked for: the next one, else nothing more, said as a search that
        found nothing (SGD's NOTIFY_FAILURE would read as a refused booking)."""
        if shown < len(results):
            return self.done(*offer(results[shown], self.schema, self.state))
        return self.done(*talk.no_results(searched, self.state, self.previous))

    def takes_offer(self, finder: IntentSchema, searched: dict[str, str]) -> bool:
        """Does the user go on with the entity on offer without naming it: they say something
        (the booking's details, its intent again), turn nothing down and change nothing the
        search was made with ("I'd like it from the 14th to the 15th" after "How about the
        Best Western?")."""
        if not self.acts or self.user & {"REQUEST_ALTS", "NEGATE", "NEGATE_INTENT"}:
            return False
        return self.parameters(finder) == searched

    def find(self, finder: IntentSchema) -> SystemPlan:
        """Search with ``finder`` from what the state holds, asking first for what it lacks."""
        missing = self.missing(finder)
        if missing:
            return self.request(missing)
        return self.call(finder, self.parameters(finder))

    def missing(self, intent: IntentSchema) -> list[str]:
        return [s for s in intent.required_slots if s not in self.state.slot_values]

    def unnamed(self, intent: IntentSchema) -> list[str]:
        """A transaction's required slots the user said "any" to that a search finds (any
        hotel: one must be found before it can be booked)."""
        if not intent.is_transactional:
            return []
        values = self.state.slot_values
        return [
            s
            for s in intent.required_slots
            if values.get(s, [""])[0] == DONTCARE and self.finder(s) is not None
        ]

    def request(self, slots: Sequence[str]) -> SystemPlan:
        return self.done(*(act("REQUEST", s) for s in slots[:MAX_REQUESTS]))

    def parameters(self, intent: IntentSchema) -> dict[str, str]:
        slots = [*intent.required_slots, *intent.optional_slots]
        return call_parameters(self.state, slots, self.schema, self.history, self.acts, self.today)

    def backend_value(self, values: Sequence[str], slot: str) -> str:
        return backend_value(values, slot, self.schema, self.history, self.acts, self.today)

    def call(self, intent: IntentSchema, params: dict[str, str]) -> SystemPlan:
        return SystemPlan(
            self.service, service_call=ServiceCall(method=intent.name, parameters=params)
        )

    def transaction(
        self, entity: dict[str, str] | None, taken: dict[str, str] | None = None
    ) -> SystemPlan:
        """Book: answer questions about the entity, confirm the slots, call on AFFIRM.
        ``taken``: values of the entity on offer the user went on with without naming them
        (not in the state yet; the state takes them when the user affirms)."""
        assert self.intent is not None
        taken = taken or {}
        booked = self.history.last_success(self.service, self.intent.name)
        if booked is not None and booked[0] == self.parameters(self.intent):
            if self.state.requested_slots:  # questions about what was just booked
                return self.done(*inform(booked[1], self.state.requested_slots))
            return self.done(act("REQ_MORE"))
        if booked is not None and self.user == {"INFORM"} and "NOTIFY_SUCCESS" in self.prev_kinds:
            # Details of what was just booked, changed without a word of booking again: no
            # SGD user does that (0 of train's user turns after a NOTIFY_SUCCESS hold an
            # INFORM without INFORM_INTENT there), so this is a misreading, most often of a
            # new task in another service: not understood, rather than a new booking to
            # confirm.
            return self.done(*talk.fallback(self.schemas, []))
        if "AFFIRM" in self.user and self.prev_kinds & {"CONFIRM", "OFFER"} and not self.changed():
            return self.call(self.intent, self.agreed(self.intent))
        answers = inform(entity, self.state.requested_slots) if entity is not None else []
        if answers and "CONFIRM" not in self.prev_kinds:
            return self.done(*answers)
        confirm = self.confirmation(self.intent, taken)
        if answers:  # a question while confirming: answered, and the confirmation in brief
            return self.done(*answers, *talk.brief_confirmation(confirm, self.schema))
        return self.done(*confirm)

    def changed(self) -> bool:
        """Whether the user, saying yes, gave another value for a detail the confirmation
        said ("ok take it from savings. it goes to her savings account" to "... to aunt
        Jenny's checking account"): then the booking is confirmed again, never made. Values
        compare in the backend's form ("friday" is the confirmed 2019-03-08)."""
        said = {
            a.slot: self.backend_value(a.canonical_values or a.values, a.slot).lower()
            for a in self.previous
            if a.act == "CONFIRM" and a.slot and (a.canonical_values or a.values)
        }
        return any(
            a.act == "INFORM"
            and a.slot in said
            and (a.canonical_values or a.values)
            and self.backend_value(a.canonical_values or a.values, a.slot).lower() != said[a.slot]
            for a in self.acts
        )

    def agreed(self, intent: IntentSchema) -> dict[str, str]:
        """The call's parameters once the user affirmed: the state's, what the confirmation
        just said (defaults included), and optional values agreed before a confirmation was
        made brief."""
        params = self.parameters(intent)
        for confirmed in self.previous:  # what the user just agreed to, e.g. defaults
            if confirmed.act == "CONFIRM" and confirmed.slot not in params:
                said = confirmed.canonical_values or confirmed.values
                params[confirmed.slot] = self.backend_value(said[:1], confirmed.slot)
        for slot in intent.optional_slots:  # agreed before a confirmation made brief
            agreed = self.history.confirmed(self.service, slot)
            if slot not in params and agreed and agreed[0] != DONTCARE:
                params[slot] = self.backend_value(agreed[:1], slot)
        return params

    def confirmation(self, intent: IntentSchema, taken: dict[str, str]) -> list[Action]:
        """A CONFIRM of each required slot, each optional one with a default or a value, and
        each value ``taken`` from the entity on offer."""
        slots = list(intent.required_slots)
        slots += [
            s
            for s, d in intent.optional_slots.items()
            if d != DONTCARE or s in self.state.slot_values
        ]
        confirm = []
        for slot in [*slots, *(s for s in taken if s not in slots)]:
            values = (
                [taken[slot]]
                if slot in taken
                else self.state.slot_values.get(slot) or [intent.optional_slots[slot]]
            )
            if values[0] != DONTCARE:
                exact = self.backend_value(values, slot)
                confirm.append(act("CONFIRM", slot, values[:1], [exact]))
        return confirm

    def picked(self, results: list[dict[str, str]]) -> tuple[dict[str, str], list[str]] | None:
        """The first result holding every value the user said this turn of a slot the
        search returns but does not take (a date among an artist's dates), compared in the
        backend's form, and those slots; None when nothing such was said or no result
        holds it."""
        assert self.intent is not None
        wanted = {
            a.slot: self.backend_value(self.state.slot_values[a.slot], a.slot).strip().lower()
            for a in self.acts
            if a.act == "INFORM"
            and a.slot in self.intent.found
            and self.state.slot_values.get(a.slot)
        }
        for row in results if wanted else []:
            if all(row.get(slot, "").strip().lower() == v for slot, v in wanted.items()):
                return row, list(wanted)
        return None

    def search(self, search: Frame | None, results: list[dict[str, str]], shown: int) -> SystemPlan:
        assert self.intent is not None
        params = self.parameters(self.intent)
        previous = search.service_call if search is not None else None
        if previous is None or previous.method != self.intent.name or previous.parameters != params:
            return self.call(self.intent, params)  # a new or changed search
        entity = entity_on_offer(self.history, self.service, self.state)
        if "REQUEST_ALTS" in self.user:
            return self.another(self.intent, results, shown)
        picked = self.picked(results)
        if picked is not None:  # "is there one on the 9th?": the result holding it
            row, slots = picked
            said = [act("OFFER", slot, [row[slot]]) for slot in slots]
            rest = [a for a in offer(row, self.schema, self.state) if a.slot not in slots]
            asked = inform(row, self.state.requested_slots)
            return self.done(*said, *rest, *asked)
        if self.state.requested_slots and entity is not None:
            return self.done(*inform(entity, self.state.requested_slots))
        if self.user & {"SELECT", "AFFIRM"} and entity is not None:
            offers = [i.name for i in self.schema.intents if i.is_transactional]
            if offers and "OFFER_INTENT" not in self.prev_kinds:
                return self.done(act("OFFER_INTENT", "intent", offers[:1]))
            return self.done(act("REQ_MORE"))
        if entity is not None and not self.user - {"THANK_YOU"}:
            return self.done(act("REQ_MORE"))
        if entity is not None and self.user == {"INFORM"}:
            # details that change nothing the search was made with ("any type is fine"):
            # the result on offer stands, offered again, not the next one
            return self.done(*offer(entity, self.schema, self.state))
        return self.call(self.intent, params)
