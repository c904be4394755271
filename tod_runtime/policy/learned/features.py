"""What the learned policy sees of a turn: a ``Situation`` read from the policy's input, and
the hashed features of each candidate decision in it.

Candidates: ``CALL`` (make a service call now, first pass only), the slot-less system acts
(``GLOBAL_ACTS``) and, per slot of the service, REQUEST, CONFIRM, OFFER and INFORM. A slot
enters only through its schema and the dialogue: how the active intent takes it (required,
optional, a result only), whether it is filled, asked, offered, confirmed, requested by the
user, held by the entity on offer (and offered of the same search before in the dialogue, its
place among the search's outputs, moved by a transaction's result), its value type and
whether it is categorical; never through its name or its service's. So renaming every
service, intent and slot leaves every feature unchanged, and the model works on services it
never saw.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from tod_runtime.dialogue.context import PolicyInput
from tod_runtime.dialogue.history import History
from tod_runtime.dialogue.models import DONTCARE, Action, Frame, State
from tod_runtime.learning import content_words
from tod_runtime.policy.history import entity_on_offer
from tod_runtime.schema.models import IntentSchema, ServiceSchema
from tod_runtime.schema.roles import slot_roles

BITS = 18
GLOBAL_ACTS = (
    "REQ_MORE",
    "GOODBYE",
    "NOTIFY_SUCCESS",
    "NOTIFY_FAILURE",
    "INFORM_COUNT",
    "OFFER_INTENT",
)
SLOT_ACTS = ("REQUEST", "CONFIRM", "OFFER", "INFORM")
ENTITY_ACTS = frozenset({"OFFER", "INFORM"})
CALL = "CALL"
Candidate = tuple[str, str]  # (act or CALL, slot or "")


def _bucket(n: int, *edges: int) -> str:
    for edge in edges:
        if n <= edge:
            return str(edge)
    return f">{edges[-1]}"


def previous_state(history: History, service: str) -> State | None:
    """The service's state after the newest user turn in ``history`` that had a frame of it."""
    for turn in reversed(history):
        if turn.speaker != "USER":
            continue
        frame = turn.frame(service)
        if frame is not None and frame.state is not None:
            return frame.state
    return None


@dataclass
class Situation:
    """One decision point of the policy in ``service`` (``second``: after a service call)."""

    service: str
    schema: ServiceSchema
    state: State
    history: History
    user: list[Action]
    previous: list[Action]
    intent: IntentSchema | None
    second: bool
    results: list[dict[str, str]]  # the call's results (second pass) or the last search's
    shown: int  # entities of ``results`` offered so far (first pass)
    search: Frame | None
    transactional_call: bool = False
    called: str = ""  # the intent called (second pass)
    parameters: dict[str, str] = field(default_factory=dict)  # the call's (second pass)
    turns: int = 0
    other_user: list[str] = field(default_factory=list)
    switched: bool = False
    new_intent: bool = False

    @classmethod
    def of(cls, turn: PolicyInput, service: str, schema: ServiceSchema) -> Situation:
        state = turn.context.state.get(service, State())
        history = turn.context.history
        search, shown = history.last_search(service)
        second = turn.service_call is not None
        if second:
            assert turn.service_call is not None
            results = list(turn.service_results or [])
            called = schema.intent(turn.service_call.method)
            transactional = called is not None and called.is_transactional
            method = turn.service_call.method
        else:
            method = ""
            results = list(search.service_results or []) if search is not None else []
            transactional = False
        last = history.last_system_turn
        before = previous_state(history, service)
        return cls(
            service=service,
            schema=schema,
            state=state,
            history=history,
            user=list(turn.user_acts.get(service, [])),
            previous=history.last_system_acts(service),
            intent=schema.intent(state.active_intent),
            second=second,
            results=results,
            shown=shown,
            search=search,
            transactional_call=transactional,
            called=method,
            parameters=dict(turn.service_call.parameters) if turn.service_call else {},
            turns=len(history),
            other_user=sorted(
                {a.act for s, acts in turn.user_acts.items() if s != service for a in acts}
            ),
            switched=last is not None and last.frame(service) is None,
            new_intent=before is None or before.active_intent != state.active_intent,
        )

    # ------------------------------------------------------------ entities

    @cached_property
    def fresh(self) -> int:
        """The result a search's second pass offers: the first no offer named before (a
        transaction's: its first)."""
        if self.transactional_call or not self.results:
            return 0
        return self.history.first_unoffered(self.service, self.results)

    @cached_property
    def on_offer(self) -> dict[str, str] | None:
        """The result of the last search on offer (first pass)."""
        return entity_on_offer(self.history, self.service, self.state)

    def entity(self) -> dict[str, str] | None:
        """The entity the turn is about: the call's first result not offered before (second
        pass), else the one on offer, else a booked one."""
        if self.second:
            return self.results[self.fresh] if self.results else None
        if self.on_offer is not None:
            return self.on_offer
        if self.intent is not None:
            booked = self.history.last_success(self.service, self.intent.name)
            if booked is not None:
                return booked[1]
        return None

    def next_entity(self) -> dict[str, str] | None:
        """The entity an offer would name: the call's first result not offered before, else
        the next one."""
        if self.second:
            return self.results[self.fresh] if self.results else None
        if self.shown < len(self.results):
            return self.results[self.shown]
        return None

    def moved(self) -> list[str]:
        """The call's parameters its first result holds with another value: a transaction
        that answers with an alternative (another time, another date) instead of what was
        asked."""
        first = self.results[0] if self.second and self.results else {}
        return [
            k
            for k, v in self.parameters.items()
            if k in first and first[k].strip().lower() != v.strip().lower()
        ]

    def missing(self) -> list[str]:
        if self.intent is None:
            return []
        return [s for s in self.intent.required_slots if s not in self.state.slot_values]

    def defaults(self) -> dict[str, str]:
        if self.intent is None:
            return {}
        return {s: d for s, d in self.intent.optional_slots.items() if d != DONTCARE}


@dataclass
class Views:
    """The feature strings shared by every candidate of one situation."""

    situation: Situation
    common: list[str]
    keys: list[str]
    slots: dict[str, list[str]]
    words: dict[str, tuple[str, ...]]
    entity: dict[str, list[str]]


def _search_status(s: Situation) -> str:
    if s.second:
        return "second"
    if s.search is None or s.search.service_call is None:
        return "none"
    if s.intent is None or s.search.service_call.method != s.intent.name:
        return "other"
    return "same"


def views(s: Situation) -> Views:
    user = sorted({a.act for a in s.user})
    prev = sorted({a.act for a in s.previous})
    intent = "none" if s.intent is None else ("tr" if s.intent.is_transactional else "search")
    missing = s.missing()
    moved = s.moved()
    results = len(s.results)
    status = _search_status(s)
    exhausted = not s.second and s.shown >= results
    booked = (
        s.intent is not None
        and s.intent.is_transactional
        and s.history.last_success(s.service, s.intent.name) is not None
    )
    pass_ = "2" if s.second else "1"
    takes = s.intent.optional_slots if s.intent else {}
    optional = len([x for x in takes if x in s.state.slot_values])
    common = [
        "bias",
        f"pass={pass_}",
        f"int={intent}",
        f"int={intent}|pass={pass_}",
        f"new={s.new_intent}",
        f"U={'+'.join(user)}",
        f"P={'+'.join(prev)}",
        f"U={'+'.join(user)}|P={'+'.join(prev)}",
        f"miss={_bucket(len(missing), 0, 1, 2)}",
        f"opt={_bucket(optional, 0, 1)}",
        f"req={_bucket(len(s.state.requested_slots), 0, 1)}",
        f"res={_bucket(results, 0, 1, 3)}|st={status}",
        f"trcall={s.transactional_call}|res0={results == 0}",
        f"trcall={s.transactional_call}|moved={_bucket(len(moved), 0, 1)}",
        f"exh={exhausted}|st={status}",
        f"booked={booked}",
        f"pos={_bucket(s.turns, 0, 2, 6, 12)}",
        f"sw={s.switched}",
        f"other={'+'.join(s.other_user)}",
    ]
    common += [f"u:{a}" for a in user] + [f"p:{a}" for a in prev]
    common += [f"u:{a}|int={intent}|pass={pass_}" for a in user]
    common += [f"U={'+'.join(user)}|int={intent}|pass={pass_}|miss={len(missing) > 0}"]
    common += [f"U={'+'.join(user)}|st={status}|exh={exhausted}|res0={results == 0}"]
    keys = [
        f"k1:{intent}|{pass_}|{'+'.join(user)}",
        f"k2:{'+'.join(prev)}",
        f"k3:{status}|{_bucket(results, 0, 1)}|{s.transactional_call}|{booked}",
        f"k4:{intent}|{pass_}",
    ]
    slots = {slot: _slot_strings(s, slot, missing) for slot in _slots(s)}
    words = {slot: _words(s.schema, slot) for slot in slots}
    entity = {slot: _entity_strings(s, slot, _filled(s, slot), moved) for slot in slots}
    return Views(s, common, keys, slots, words, entity)


def _words(schema: ServiceSchema, slot: str) -> tuple[str, ...]:
    """The content words of the slot's description (never its name), once per schema."""
    return schema.derived(
        f"policy.learned.words.{slot}",
        lambda: tuple(content_words(schema.slot_map[slot].description)),
    )


def _slots(s: Situation) -> list[str]:
    return [slot.name for slot in s.schema.slots]


def _filled(s: Situation, slot: str) -> str:
    values = s.state.slot_values.get(slot)
    return "dc" if values and values[0] == DONTCARE else ("yes" if values else "no")


def _slot_strings(s: Situation, slot: str, missing: Sequence[str]) -> list[str]:
    intent = s.intent
    if intent is None:
        takes = "none"
    elif slot in intent.required_slots:
        takes = "req"
    elif slot in intent.optional_slots:
        takes = "opt"
    elif slot in intent.result_slots:
        takes = "res"
    else:
        takes = "no"
    spec = s.schema.slot_map[slot]
    values = s.state.slot_values.get(slot)
    filled = _filled(s, slot)
    user_on = sorted({a.act for a in s.user if a.slot == slot})
    prev_on = sorted({a.act for a in s.previous if a.slot == slot})
    entity = s.entity() or {}
    upcoming = s.next_entity() or {}
    in_tr = any(i.is_transactional and slot in i.required_slots for i in s.schema.intents)
    same = (
        bool(values)
        and slot in entity
        and entity[slot].lower() in {v.lower() for v in values or []}
    )
    out = [
        f"t={takes}",
        f"f={filled}",
        f"t={takes}|f={filled}",
        f"u={'+'.join(user_on)}",
        f"p={'+'.join(prev_on)}",
        f"asked={s.history.asked(s.service, slot)}",
        f"rq={slot in s.state.requested_slots}",
        f"ent={slot in entity}|nxt={slot in upcoming}",
        f"same={same}",
        f"tr={in_tr}|f={filled}",
        f"vt={slot_roles(s.schema)[slot].value_type}|cat={spec.is_categorical}",
        f"dflt={slot in s.defaults()}",
        f"conf={bool(s.history.confirmed(s.service, slot))}",
    ]
    if slot in missing:
        index = list(missing).index(slot)
        out.append(f"miss={_bucket(index, 0, 1)}")
        out.append(f"miss={_bucket(index, 0, 1)}|of={_bucket(len(missing), 1, 2)}")
    if intent is not None and slot in intent.required_slots:
        out.append(f"ri={_bucket(intent.required_slots.index(slot), 0, 1, 2)}")
    return out


def searched_intent(s: Situation) -> IntentSchema | None:
    """The search intent whose results the turn is about (the call's, else the last one's)."""
    if s.second:
        called = s.schema.intent(s.called)
        return called if called is not None and not called.is_transactional else None
    if s.search is None or s.search.service_call is None:
        return None
    return s.schema.intent(s.search.service_call.method)


def _entity_strings(s: Situation, slot: str, filled: str, moved: Sequence[str]) -> list[str]:
    """What the results say of the slot, as any service's results would: whether its values
    tell the results apart (all different, some, all the same, a single result), and whether
    it is one of the searched intent's outputs (a result slot that is not an input), with how
    many outputs that intent has."""
    values = [r[slot].lower() for r in s.results if slot in r]
    if not values:
        spread = "absent"
    elif len(s.results) == 1:
        spread = "one"
    else:
        distinct = len(set(values))
        spread = "all" if distinct == len(values) else ("same" if distinct == 1 else "some")
    searched = searched_intent(s)
    inputs = set(searched.required_slots) | set(searched.optional_slots) if searched else set()
    outputs = [x for x in searched.result_slots if x not in inputs] if searched else []
    output = "none" if searched is None else str(slot in outputs)
    free = [x for x in outputs if not s.schema.slot_map[x].is_categorical]
    rank = (  # its place among the free-text outputs: the first is often the entity's name
        "none"
        if slot not in outputs
        else "cat"
        if s.schema.slot_map[slot].is_categorical
        else _bucket(free.index(slot), 0, 1)
    )
    before = s.history.offered(s.service, searched.name) if searched is not None else None
    habit = "none" if before is None else str(slot in before)  # the service's own habit
    return [
        f"spread={spread}",
        f"spread={spread}|f={filled}",
        f"out={output}|f={filled}",
        f"out={output}|spread={spread}|of={_bucket(len(outputs), 2, 4, 8)}",
        f"before={habit}",
        f"before={habit}|out={output}",
        f"moved={slot in moved}|trcall={s.transactional_call}",
        f"rank={rank}",
        f"rank={rank}|f={filled}|of={_bucket(len(free), 1, 3)}",
    ]


def candidates(v: Views) -> list[Candidate]:
    """The decisions open in this situation: acts whose values can be filled."""
    s = v.situation
    out: list[Candidate] = [] if s.second else [(CALL, "")]
    out += [(a, "") for a in GLOBAL_ACTS]
    entity, upcoming = s.entity() or {}, s.next_entity() or {}
    defaults = s.defaults()
    takes = set(s.intent.required_slots) | set(s.intent.optional_slots) if s.intent else set()
    for slot in v.slots:
        if slot in takes:
            out.append(("REQUEST", slot))
        if slot in takes and (slot in s.state.slot_values or slot in defaults):
            out.append(("CONFIRM", slot))
        if slot in upcoming:
            out.append(("OFFER", slot))
        if slot in entity:
            out.append(("INFORM", slot))
    return out


def strings(v: Views, candidate: Candidate) -> list[str]:
    name, slot = candidate
    out = [f"{name}|{c}" for c in v.common]
    if slot:
        local = v.slots[slot]
        out += [f"{name}|s|{f}" for f in local]
        out += [f"{name}|s|{f}|{k}" for f in local for k in v.keys]
        if name in ENTITY_ACTS:  # what the results say of the slot, for acts that name them
            out += [f"{name}|e|{f}" for f in v.entity[slot]]
            out += [f"{name}|e|{f}|{v.keys[3]}" for f in v.entity[slot]]
        head = local[0]  # how the intent takes the slot
        for word in v.words[slot]:
            out += [f"{name}|w|{word}", f"{name}|w|{word}|{head}", f"{name}|w|{word}|{v.keys[3]}"]
    return out


def hashed(items: Iterable[str], bits: int = BITS) -> tuple[int, ...]:
    mask = (1 << bits) - 1
    return tuple(sorted({zlib.crc32(s.encode()) & mask for s in items}))
