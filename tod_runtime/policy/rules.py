"""The rules policy: SGD's system behaviour, driven by the schema and the state.

Ask for the active intent's missing required slots; search when they are known and offer the
results one by one (INFORM_COUNT with the first); confirm a transaction's slots and optional
defaults before calling it, then NOTIFY_SUCCESS or NOTIFY_FAILURE; answer requests from the
entity on offer; after a chosen search result, offer the service's transactional intent;
REQ_MORE when a task is done and GOODBYE when the user is.
"""

from __future__ import annotations

from collections.abc import Sequence

from tod_runtime.dialogue.context import PolicyInput, SystemPlan
from tod_runtime.dialogue.models import DONTCARE, Action, ServiceCall, State, Turn
from tod_runtime.plugins import ComponentContext
from tod_runtime.policy.history import call_parameters, canonical, last_search, last_system_acts
from tod_runtime.schema.loader import Schemas
from tod_runtime.schema.models import IntentSchema, ServiceSchema

MAX_REQUESTS = 2  # SGD's system asks for at most two slots at a time
MAX_OFFERED_SLOTS = 3


def act(
    name: str, slot: str = "", values: Sequence[str] = (), exact: Sequence[str] | None = None
) -> Action:
    """An act; ``exact`` are the canonical values when they differ from ``values``."""
    canonical_values = list(values if exact is None else exact)
    return Action(act=name, slot=slot, values=list(values), canonical_values=canonical_values)  # type: ignore[arg-type]


class RulesPolicy:
    def __init__(self, ctx: ComponentContext) -> None:
        self.schemas: Schemas = ctx.schemas

    async def decide(self, turn: PolicyInput) -> SystemPlan:
        service = turn.active_service or next(reversed(turn.context.state), None)
        if service is None or service not in self.schemas:
            return SystemPlan(service or next(iter(self.schemas)), [act("REQ_MORE")])
        schema = self.schemas[service]
        state = turn.context.state.get(service, State())
        history = turn.context.history
        if turn.service_call is not None:
            return SystemPlan(service, after_call(turn, schema, state))
        return _Decision(service, schema, state, history, turn).plan()


def after_call(turn: PolicyInput, schema: ServiceSchema, state: State) -> list[Action]:
    assert turn.service_call is not None
    intent = schema.intent(turn.service_call.method)
    results = turn.service_results or []
    requested = [s for s in state.requested_slots]
    if intent is not None and intent.is_transactional:
        if not results:
            return [act("NOTIFY_FAILURE"), act("REQ_MORE")]
        return [*inform(results[0], requested), act("NOTIFY_SUCCESS")]
    if not results:
        return [act("NOTIFY_FAILURE")]
    return [*offer(results[0], schema, state), act("INFORM_COUNT", "count", [str(len(results))])]


def inform(entity: dict[str, str], slots: Sequence[str]) -> list[Action]:
    return [act("INFORM", s, [entity[s]]) for s in slots if s in entity]


def offer(entity: dict[str, str], schema: ServiceSchema, state: State) -> list[Action]:
    """OFFER the slots that identify the entity: those a transaction needs that the user has
    not given, else the first result slots the user has not given."""
    needed = [
        s
        for i in schema.intents
        if i.is_transactional
        for s in i.required_slots
        if s in entity and s not in state.slot_values
    ]
    fresh = [s for s in entity if s not in state.slot_values]
    slots = list(dict.fromkeys(needed or fresh))[:MAX_OFFERED_SLOTS]
    return [act("OFFER", s, [entity[s]]) for s in slots]


class _Decision:
    """One first-pass decision; each rule is a method, tried in order."""

    def __init__(
        self,
        service: str,
        schema: ServiceSchema,
        state: State,
        history: Sequence[Turn],
        turn: PolicyInput,
    ) -> None:
        self.service = service
        self.schema = schema
        self.state = state
        self.history = history
        self.acts = turn.user_acts.get(service, [])
        self.user = {a.act for a in self.acts}
        self.heard = bool(turn.user_acts)
        self.previous = last_system_acts(history, service)
        self.prev_kinds = {a.act for a in self.previous}
        self.intent: IntentSchema | None = schema.intent(state.active_intent)

    def done(self, *actions: Action) -> SystemPlan:
        return SystemPlan(self.service, list(actions))

    def plan(self) -> SystemPlan:
        if not self.heard:  # nothing understood: ask again
            return self.done(*(self.previous or [act("REQ_MORE")]))
        closing = self.user <= {"THANK_YOU", "NEGATE", "NEGATE_INTENT", "GOODBYE"}
        if "GOODBYE" in self.user or (closing and self.user & {"NEGATE", "NEGATE_INTENT"}):
            return self.done(act("GOODBYE"))
        search, shown = last_search(self.history, self.service)
        results = (search.service_results or []) if search else []
        entity = results[shown - 1] if 0 < shown <= len(results) else None
        if "REQUEST_ALTS" in self.user and search is not None:
            if shown < len(results):
                return self.done(*offer(results[shown], self.schema, self.state))
            return self.done(act("NOTIFY_FAILURE"), act("REQ_MORE"))
        if self.intent is None:
            return self.done(act("REQ_MORE"))
        missing = [s for s in self.intent.required_slots if s not in self.state.slot_values]
        if missing:
            return self.done(*(act("REQUEST", s) for s in missing[:MAX_REQUESTS]))
        if self.intent.is_transactional:
            return self.transaction(entity)
        return self.search(entity, search)

    def transaction(self, entity: dict[str, str] | None) -> SystemPlan:
        assert self.intent is not None
        if "AFFIRM" in self.user and "CONFIRM" in self.prev_kinds:
            slots = [*self.intent.required_slots, *self.intent.optional_slots]
            params = call_parameters(self.state, slots, self.schema, self.history, self.acts)
            for confirmed in self.previous:  # what the user just agreed to, e.g. defaults
                if confirmed.act == "CONFIRM" and confirmed.slot not in params:
                    params[confirmed.slot] = (confirmed.canonical_values or confirmed.values)[0]
            call = ServiceCall(method=self.intent.name, parameters=params)
            return SystemPlan(self.service, service_call=call)
        if self.state.requested_slots and entity is not None and "CONFIRM" not in self.prev_kinds:
            return self.done(*inform(entity, self.state.requested_slots))
        values = {s: self.state.slot_values[s][0] for s in self.intent.required_slots}
        for slot, default in self.intent.optional_slots.items():
            value = self.state.slot_values.get(slot, [default])[0]
            if value != DONTCARE:
                values[slot] = value
        return self.done(
            *(
                act(
                    "CONFIRM",
                    slot,
                    [value],
                    [canonical(value, slot, self.schema, self.history, self.acts)],
                )
                for slot, value in values.items()
            )
        )

    def search(self, entity: dict[str, str] | None, search: object) -> SystemPlan:
        assert self.intent is not None
        if self.state.requested_slots and entity is not None:
            return self.done(*inform(entity, self.state.requested_slots))
        if self.user & {"SELECT", "AFFIRM"} and entity is not None:
            offers = [i.name for i in self.schema.intents if i.is_transactional]
            if offers and "OFFER_INTENT" not in self.prev_kinds:
                return self.done(act("OFFER_INTENT", "intent", offers[:1]))
            return self.done(act("REQ_MORE"))
        if self.user <= {"THANK_YOU"}:
            return self.done(act("REQ_MORE"))
        slots = [*self.intent.required_slots, *self.intent.optional_slots]
        params = call_parameters(self.state, slots, self.schema, self.history, self.acts)
        return SystemPlan(
            self.service, service_call=ServiceCall(method=self.intent.name, parameters=params)
        )
