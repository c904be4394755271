"""The learned policy: the model scores every open decision (``features.candidates``); a
service call comes first when ``CALL`` wins, else the acts over their threshold are said (or,
with ``expected_f1``, the set of acts with the highest expected F1).
Values come from the state and the results as the rules policy takes them: a confirmed slot's
canonical value, an offered or informed slot's value in the entity, the count of results."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from tod_runtime.backends.base import Backend, reference_date
from tod_runtime.components import ComponentContext
from tod_runtime.dialogue.context import PolicyInput, SystemPlan
from tod_runtime.dialogue.models import CLOSING_ACTS, DONTCARE, Action, ServiceCall, act
from tod_runtime.policy import talk
from tod_runtime.policy.history import addressed_service, backend_value, call_parameters
from tod_runtime.policy.learned.features import (
    CALL,
    Candidate,
    Situation,
    candidates,
    hashed,
    searched_intent,
    strings,
    views,
)
from tod_runtime.policy.learned.model import PolicyModel, load_model
from tod_runtime.schema.models import IntentSchema, ServiceSchema

ORDER = {
    name: i
    for i, name in enumerate(
        [
            "NOTIFY_FAILURE",
            "NOTIFY_SUCCESS",
            "INFORM",
            "CONFIRM",
            "OFFER",
            "INFORM_COUNT",
            "REQUEST",
            "OFFER_INTENT",
            "REQ_MORE",
            "GOODBYE",
        ]
    )
}


class LearnedPolicy:
    def __init__(self, ctx: ComponentContext, model: PolicyModel | None = None) -> None:
        self.schemas: Mapping[str, ServiceSchema] = ctx.schemas
        self.backend: Backend = ctx.backend
        self.model = model or load_model(ctx.options.get("model") if ctx.options else None)

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
        today = reference_date(self.backend, service)
        if turn.service_call is None and not turn.user_acts:  # nothing understood
            previous = turn.context.history.last_system_acts(service)
            state = turn.context.state.get(service)
            if state is not None and talk.lookup(schema, state, previous) is not None:
                call = make_call(Situation.of(turn, service, schema), turn, today)
                if call is not None:  # "Which hotel?" not answered: look one up
                    return SystemPlan(service, service_call=call)
            step = talk.next_step(schema, state, turn.context.history)
            return SystemPlan(service, talk.fallback(self.schemas, previous, step))
        return decide(turn, service, schema, self.model, today)


def scores(situation: Situation, model: PolicyModel) -> dict[Candidate, float]:
    v = views(situation)
    return {c: model.probability(hashed(strings(v, c), model.bits)) for c in candidates(v)}


def decide(
    turn: PolicyInput, service: str, schema: ServiceSchema, model: PolicyModel, today: date
) -> SystemPlan:
    """The plan for one pass (sync: training scores it without an event loop)."""
    s = Situation.of(turn, service, schema)
    change = None if s.second else talk.what_to_change(s.user, s.previous)
    if change is not None:  # "no" to a confirmation: what should change? (not in SGD)
        return SystemPlan(service, change)
    more = None if s.second else talk.what_else(s.user, s.previous, turn.context.schemas)
    if more is not None:  # "yes" to "anything else?": what, then?
        return SystemPlan(service, more)
    if _takes_lookup(s):  # "ok, book it" to what a lookup found: confirm (not in SGD)
        assert s.intent is not None
        slots = [*s.intent.required_slots, *s.defaults()]
        confirm = [_confirm(s, slot, turn, today) for slot in dict.fromkeys(slots)]
        return SystemPlan(service, [a for a in confirm if a is not None])
    if s.second and not s.results and s.intent is not None:  # say why, and offer a way on
        called = schema.intent(turn.service_call.method) if turn.service_call else None
        if called is not None and called.is_transactional:
            refused = talk.failed_transaction(called, schema, s.state, turn.refusal)
            return SystemPlan(service, refused)
        if called is not None:
            return SystemPlan(service, talk.no_results(called, s.state))
    scored = scores(s, model)
    if not {a.act for a in s.user} & CLOSING_ACTS:  # goodbye only when the user closes
        scored.pop(("GOODBYE", ""), None)
    if scored.get((CALL, ""), 0.0) >= model.threshold(CALL):
        call = make_call(s, turn, today)
        if call is not None:
            return SystemPlan(service, service_call=call)
    acts = {c: p for c, p in scored.items() if c[0] != CALL}
    d = model.decisions
    if d.expected_f1:
        chosen = _expected_f1(acts, model.act_sets)
    else:
        chosen = [c for c, p in acts.items() if p >= model.act_threshold(c[0])]
    if not chosen and acts:
        chosen = [max(acts, key=lambda c: acts[c])]
    chosen += _offer_floor(s, scored, chosen, d.offer_floor)
    if d.offer_repeat:
        chosen = _offer_repeat(s, chosen)
    if d.confirm_complete:
        chosen = _confirm_complete(s, scored, chosen)
    chosen += _request_floor(scored, chosen, d.request_floor)
    if d.confirm_call:
        chosen += _confirm_call(s, chosen)
    chosen.sort(key=lambda c: (ORDER.get(c[0], 99), c[1]))
    actions = [a for c in chosen if (a := fill(s, c, turn, today)) is not None]
    return SystemPlan(service, actions or [act("REQ_MORE")])


def _expected_f1(scored: dict[Candidate, float], act_sets: list[frozenset[str]]) -> list[Candidate]:
    """The candidates whose set has the highest expected F1 when each is said by the system
    with its probability, independently: the k likeliest for the k maximising
    2 * (sum of their probabilities) / (k + sum of all probabilities), the ratio of the
    expected hits to the expected size of both sets (an uncertain act is said when saying
    it is likelier to help the turn's F1 than to hurt it). With ``act_sets``, the acts said
    are of the types of one of them (the set of the best such choice): never a success beside
    a failure, or a request beside an offer, which SGD's systems never say together."""
    ranked = sorted(scored, key=lambda c: -scored[c])
    total = sum(scored.values())
    best, chosen = 0.0, []
    anything = frozenset(c[0] for c in ranked)
    for kinds in act_sets or [anything]:
        hits, taken = 0.0, []
        for c in ranked:
            if c[0] not in kinds:
                continue
            hits += scored[c]
            taken.append(c)
            value = 2 * hits / (len(taken) + total)
            if value > best:
                best, chosen = value, list(taken)
    return chosen


def _offer_floor(
    s: Situation, scored: dict[Candidate, float], chosen: list[Candidate], ratio: float
) -> list[Candidate]:
    """A search that found something offers it: when no OFFER is over its threshold after a
    search with results, the OFFERs scored within ``ratio`` of the best one (none when
    ``ratio`` is 0)."""
    if not ratio or not s.second or s.transactional_call or not s.results:
        return []
    if any(c[0] == "OFFER" for c in chosen):
        return []
    offers = {c: p for c, p in scored.items() if c[0] == "OFFER"}
    if not offers:
        return []
    top = max(offers.values())
    return [c for c, p in offers.items() if p >= ratio * top]


def _offer_repeat(s: Situation, chosen: list[Candidate]) -> list[Candidate]:
    """An offer of a search's results names the slots the system offered of that search's
    results before in the dialogue (SGD's systems offer the same slots every time), when it
    offered any and the entity holds them; a first offer is left to the model."""
    if not any(c[0] == "OFFER" for c in chosen):
        return chosen
    searched = searched_intent(s)
    before = s.history.offered(s.service, searched.name) if searched is not None else None
    entity = s.next_entity() or {}
    slots = sorted(x for x in before or () if x in entity)
    if not slots:
        return chosen
    return [c for c in chosen if c[0] != "OFFER"] + [("OFFER", x) for x in slots]


def _confirm_complete(
    s: Situation, scored: dict[Candidate, float], chosen: list[Candidate]
) -> list[Candidate]:
    """No CONFIRM while a required slot of the transaction is missing: the likeliest REQUEST
    of a missing one instead, unless a REQUEST is said already (SGD's systems confirm once
    every required slot is filled; a service never seen in training had its account type
    confirmed before the recipient and the amount were asked for)."""
    missing = set(s.missing())
    if s.second or not missing or not any(c[0] == "CONFIRM" for c in chosen):
        return chosen
    chosen = [c for c in chosen if c[0] != "CONFIRM"]
    asks = {c: p for c, p in scored.items() if c[0] == "REQUEST" and c[1] in missing}
    if asks and not any(c[0] == "REQUEST" for c in chosen):
        chosen.append(max(asks, key=lambda c: asks[c]))
    return chosen


def _request_floor(
    scored: dict[Candidate, float], chosen: list[Candidate], ratio: float
) -> list[Candidate]:
    """When a REQUEST is said, the other REQUESTs scored within ``ratio`` of the best one
    (SGD's systems ask for one missing slot or several, so their scores sit near the
    threshold, and which side of it they fall on changed from one training to the next)."""
    if not ratio or not any(c[0] == "REQUEST" for c in chosen):
        return []
    asks = {c: p for c, p in scored.items() if c[0] == "REQUEST"}
    top = max(asks.values())
    return [c for c, p in asks.items() if p >= ratio * top and c not in chosen]


def _confirm_call(s: Situation, chosen: list[Candidate]) -> list[Candidate]:
    """When a transaction is first confirmed, every value its call takes that the user did
    not leave open: the required slots and the optional ones with a default of their own
    (filled or not), once none of the required slots is missing. An optional slot whose
    default is dontcare is left to the model (SGD's systems do not confirm it); a later
    confirmation (after the user changed a value) names what the model chooses."""
    intent = s.intent
    if s.second or intent is None or not intent.is_transactional or s.missing():
        return []
    if not any(c[0] == "CONFIRM" for c in chosen):
        return []
    slots = [*intent.required_slots, *s.defaults()]
    if any(s.history.confirmed(s.service, slot) for slot in slots):
        return []
    known = [x for x in slots if x in s.state.slot_values or x in s.defaults()]
    return [("CONFIRM", x) for x in known if ("CONFIRM", x) not in chosen]


def _takes_lookup(s: Situation) -> bool:
    """Whether the user goes on with the entity a lookup offered (``talk.lookup``: the search
    made because they did not name what the transaction needs): the transaction lacks
    nothing, the last system turn offered that search's results, and they select or agree.
    SGD's users switch to the search instead (no such turn in train), so imitation answered
    "Is there anything else I can help you with?"."""
    intent, search = s.intent, s.search
    if s.second or intent is None or not intent.is_transactional or s.missing():
        return False
    if not s.user or {a.act for a in s.user} - {"SELECT", "AFFIRM"}:
        return False
    if search is None or search.service_call is None:
        return False
    searched = s.schema.intent(search.service_call.method)
    return (
        searched is not None
        and not searched.is_transactional
        and any(a.act == "OFFER" for a in s.previous)
        and any(slot in searched.result_slots for slot in intent.required_slots)
    )


def finder(s: Situation) -> IntentSchema | None:
    """A search intent that returns the first missing slot the user was asked for already."""
    missing = s.missing()
    if not missing or not s.history.asked(s.service, missing[0]):
        return None
    return talk.finder(s.schema, missing[0])


def make_call(s: Situation, turn: PolicyInput, today: date) -> ServiceCall | None:
    intent = s.intent
    if intent is None:
        return None
    if s.missing():
        intent = finder(s)
        if intent is None or any(r not in s.state.slot_values for r in intent.required_slots):
            return None
    acts = turn.user_acts.get(s.service, [])
    slots = [*intent.required_slots, *intent.optional_slots]
    params = call_parameters(s.state, slots, s.schema, s.history, acts, today)
    if intent.is_transactional:
        for confirmed in s.previous:  # what the user just agreed to, e.g. defaults
            if (
                confirmed.act == "CONFIRM"
                and confirmed.slot in slots
                and confirmed.slot not in params
            ):
                said = confirmed.canonical_values or confirmed.values
                params[confirmed.slot] = backend_value(
                    said[:1], confirmed.slot, s.schema, s.history, acts, today
                )
    return ServiceCall(method=intent.name, parameters=params)


def _confirm(s: Situation, slot: str, turn: PolicyInput, today: date) -> Action | None:
    values = s.state.slot_values.get(slot) or [s.defaults().get(slot, "")]
    if not values[0] or values[0] == DONTCARE:
        return None
    acts = turn.user_acts.get(s.service, [])
    exact = backend_value(values, slot, s.schema, s.history, acts, today)
    return act("CONFIRM", slot, values[:1], [exact])


def fill(s: Situation, candidate: Candidate, turn: PolicyInput, today: date) -> Action | None:
    name, slot = candidate
    if name == "REQUEST":
        return act("REQUEST", slot)
    if name == "CONFIRM":
        return _confirm(s, slot, turn, today)
    if name == "OFFER":
        entity = s.next_entity() or {}
        return act("OFFER", slot, [entity[slot]]) if slot in entity else None
    if name == "INFORM":
        entity = s.entity() or {}
        return act("INFORM", slot, [entity[slot]]) if slot in entity else None
    if name == "INFORM_COUNT":
        return act("INFORM_COUNT", "count", [str(len(s.results))]) if s.results else None
    if name == "OFFER_INTENT":
        offers = [
            i.name
            for i in s.schema.intents
            if i.is_transactional and (s.intent is None or i.name != s.intent.name)
        ]
        return act("OFFER_INTENT", "intent", offers[:1]) if offers else None
    if name in ("REQ_MORE", "GOODBYE", "NOTIFY_SUCCESS", "NOTIFY_FAILURE"):
        return act(name)  # type: ignore[arg-type]
    return None
