"""The rules tracker: SGD's state semantics, driven by the acts and the schema.

Per frame the state holds the active intent (from INFORM_INTENT, kept until another), this
turn's requested slots, and slot values as the user said them. Values the system put in front
of the user enter the state when the user accepts them: CONFIRM then AFFIRM (with the active
intent's optional slots, as the system confirmed them or by their schema default), a REQUEST
with one value ("is the location X?") then AFFIRM, OFFER then SELECT (or taking up the offered
intent). The required slots the system asked to confirm hold the confirmed values even when
the user does not affirm ("no, make it two people": every 4th file of SGD train, 1,314 of
1,314 such values of slots the user did not change were in the gold state). A slot the
system asks for without proposing a value leaves the state: it was not
there (every 4th file of SGD train: 6,134 of 6,140 such requests; the other 6 the user said
it again), and a value carried there was a mistake. The first value of a slot's list is the
best guess; other equivalent surface forms follow it. A new intent after a transactional one
keeps only the slots it takes. Values from other frames are carried by ``dst.carry``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from datetime import date

from pydantic import Field

from tod_runtime.components import ComponentContext, ComponentOptions
from tod_runtime.dialogue.context import DialogueState, TrackerInput, UserActs
from tod_runtime.dialogue.history import History, as_history, names_another
from tod_runtime.dialogue.models import (
    CLOSING_ACTS,
    DONTCARE,
    Action,
    State,
    Turn,
    found_nothing,
)
from tod_runtime.dst.carry import carry_over, held_slots, named_back, pointed
from tod_runtime.dst.learned.model import CarryModel, load_model
from tod_runtime.schema.models import IntentSchema, ServiceSchema
from tod_runtime.values.dates import parse_date
from tod_runtime.values.times import parse_time

ACCEPTS_OFFER = {"SELECT", "AFFIRM_INTENT", "INFORM_INTENT"}
REJECTS_OFFER = {"REQUEST_ALTS", "NEGATE"}


class RulesTrackerOptions(ComponentOptions):
    """``[options.tracker]`` of the ``rules`` tracker."""

    carry_model: str | None = Field(
        default=None,
        description="a carry-over model written by `tod train dst` (default: the shipped one)",
    )


class RulesTracker:
    """Options: ``RulesTrackerOptions``."""

    def __init__(self, ctx: ComponentContext) -> None:
        self.schemas: Mapping[str, ServiceSchema] = ctx.schemas
        path = ctx.settings(RulesTrackerOptions).carry_model
        self.carry = load_model(path or None)

    async def update(self, turn: TrackerInput) -> DialogueState:
        state, acts = turn.context.state, turn.user_acts
        history = turn.context.history
        return track(state, acts, history, self.schemas, carry=self.carry, said=turn.utterance)


def track(
    before: DialogueState,
    user_acts: UserActs,
    history: Sequence[Turn],
    schemas: Mapping[str, ServiceSchema],
    *,
    carry: CarryModel | bool = True,
    said: str = "",
) -> DialogueState:
    """The new state: a copy of ``before`` updated with this turn's acts. ``carry``: the
    carry-over model (True: the one shipped; False: carry nothing over). ``said``: the user's
    words, for what they point back at ("a ride there": ``carry.pointed``)."""
    model = load_model() if carry is True else carry or None
    state = {service: _copy(frame) for service, frame in before.items()}
    history = as_history(history)
    for service, acts in user_acts.items():
        is_new = service not in state
        frame = state.setdefault(service, State())
        schema = schemas.get(service)
        intent_before = frame.active_intent
        _apply(frame, acts, history, service, schema)
        if not is_new and frame.active_intent != intent_before:
            _leave_transaction(frame, schema, intent_before, acts)
        if model is None or schema is None:
            continue
        if is_new or frame.active_intent != intent_before:
            pointing = pointed(" ".join([*_said_to(history, service), said]))
            carry_over(
                frame, service, state, schemas, history,
                opening=is_new, model=model, pointing=pointing, named=named_back(said),
            )  # fmt: skip
        elif (held := held_slots(frame, schema, history, service))[0]:
            # Scored as when the frame opened: a late carry takes what the opening missed.
            carry_over(
                frame, service, state, schemas, history, opening=True, model=model, held=held
            )
    return state


def _said_to(history: History, service: str) -> list[str]:
    """What the user said to ``service`` in the turns since they last addressed another
    ("a hotel in chicago that night" opened a search that takes no date; "book it" then
    opens the booking, which takes the night pointed at); never back past the system's
    goodbye (the conversation before it is over: a session of hundreds of turns is not read
    again at every turn)."""
    said: list[str] = []
    for turn in reversed(history):
        if turn.speaker != "USER":
            if any(a.act == "GOODBYE" for f in turn.frames for a in f.actions):
                break
            continue
        if [f.service for f in turn.frames] != [service]:
            break
        said.append(turn.utterance)
    return said[::-1]


def _copy(state: State) -> State:
    return State(
        active_intent=state.active_intent,
        requested_slots=[],
        slot_values={k: list(v) for k, v in state.slot_values.items()},
    )


def put(frame: State, slot: str, values: Sequence[str], *, keep_known: bool = False) -> None:
    """Put ``values`` first for ``slot``; with ``keep_known`` keep the old variants after them
    (a system paraphrase of what the user said)."""
    new = [v for v in values if v]
    if not new:
        return
    merged = list(new)
    if keep_known:
        merged += [v for v in frame.slot_values.get(slot, []) if v not in merged]
    frame.slot_values[slot] = merged


def input_slots(schema: ServiceSchema | None) -> set[str]:
    if schema is None:
        return set()
    return {s for i in schema.intents for s in (*i.required_slots, *i.optional_slots)}


def enters_on_select(schema: ServiceSchema | None, slot: str) -> bool:
    """Does an offered value of ``slot`` become part of the goal when the user takes the offer?

    Slots some intent requires do, and optional slots with a real default; optional
    "dontcare" filters (a star rating, an album) and result-only slots do not.
    """
    if schema is None:
        return True
    return any(
        slot in i.required_slots or i.optional_slots.get(slot, DONTCARE) != DONTCARE
        for i in schema.intents
    )


@dataclass(frozen=True)
class Update:
    """What one user turn's rules read: the frame they update (in place), the user's acts
    in it, and the system's last acts in the service."""

    frame: State
    acts: Sequence[Action]
    history: History
    service: str
    schema: ServiceSchema | None
    kinds: frozenset[str]  # the user's act types
    sys_acts: Sequence[Action]
    sys_kinds: frozenset[str]  # the system's last act types in the service

    @classmethod
    def of(
        cls,
        frame: State,
        acts: Sequence[Action],
        history: History,
        service: str,
        schema: ServiceSchema | None,
    ) -> Update:
        sys_acts = history.last_system_acts(service)
        kinds = frozenset(a.act for a in acts)
        sys_kinds = frozenset(a.act for a in sys_acts)
        return cls(frame, acts, history, service, schema, kinds, sys_acts, sys_kinds)

    def system(self, kind: str) -> list[Action]:
        return [a for a in self.sys_acts if a.act == kind]

    def said(self, slot: str) -> str:
        return self.frame.slot_values.get(slot, [""])[0]


@dataclass(frozen=True)
class Rule:
    """One named rule of the tracker: when ``applies``, ``apply`` updates the frame."""

    name: str
    applies: Callable[[Update], bool]
    apply: Callable[[Update], None]


def _task_over(u: Update) -> None:
    u.frame.active_intent = "NONE"  # "no, that's all": the task is over


def _offered_intent(u: Update) -> None:
    for sys in u.system("OFFER_INTENT"):
        if sys.values:
            u.frame.active_intent = sys.values[0]


def _asked_slot_leaves(u: Update) -> None:
    # Asked for without a value, the slot was not in the state (SGD's systems ask only for
    # what they lack), unless the system said its search found nothing and asks which
    # constraint to change: that value stays until the user gives another ("what about
    # Austin?" keeps the cuisine the system asked about). After a refused booking the
    # detail asked about is cleared, so the same booking is not proposed again.
    for sys in u.system("REQUEST"):
        if sys.slot and not sys.values:
            u.frame.slot_values.pop(sys.slot, None)


def _intent_and_requests(u: Update) -> None:
    for act in u.acts:
        if act.act == "INFORM_INTENT" and act.values:
            u.frame.active_intent = act.values[0]
        elif act.act == "REQUEST" and act.slot and act.slot not in u.frame.requested_slots:
            u.frame.requested_slots.append(act.slot)


def _confirmed(u: Update) -> None:
    for sys in u.system("CONFIRM"):
        if sys.slot and u.said(sys.slot) != DONTCARE:  # "any" stays "any"
            put(u.frame, sys.slot, sys.values, keep_known=True)
    _fill_optional_defaults(u.frame, u.history, u.service, u.schema)


def _intent(u: Update) -> IntentSchema | None:
    return u.schema.intent(u.frame.active_intent) if u.schema else None


def _confirmed_required_stay(u: Update) -> None:
    # "No, make it two people": the required values the system confirmed were the state.
    intent = _intent(u)
    assert intent is not None
    for sys in u.system("CONFIRM"):
        if sys.slot in intent.required_slots and u.said(sys.slot) != DONTCARE:
            put(u.frame, sys.slot, sys.values, keep_known=True)


def _proposed_value_taken(u: Update) -> None:
    for sys in u.system("REQUEST"):
        if sys.slot and len(sys.values) == 1:
            put(u.frame, sys.slot, sys.values)


def _offer_after_failure_taken(u: Update) -> None:
    for sys in u.system("OFFER"):
        if sys.slot and enters_on_select(u.schema, sys.slot):
            put(u.frame, sys.slot, sys.values)


def _offer_taken(u: Update) -> None:
    offer = u.history.current_offer(u.service)
    if offer and names_another(u.acts, offer[0].slot, offer[0].values):
        return  # "is paper moons playing?" after Broken Compass was offered: not taken
    for position, sys in enumerate(offer):
        # The first offered slot names the entity: choosing it sets that slot when the
        # user could have asked for it (an input slot), whatever its default.
        named = position == 0 and sys.slot in input_slots(u.schema)
        several = len(sys.values) > 1  # "A, B or C?": the user must name one
        if not sys.slot or several or _chose_another(u, sys.slot):
            continue  # "the 5 pm show" said after the 2 pm one was offered: the user's choice
        if named or enters_on_select(u.schema, sys.slot):
            put(u.frame, sys.slot, sys.values)


def _chose_another(u: Update, slot: str) -> bool:
    """Whether the user, after the current offer was made, gave ``slot`` a value a result of
    the last search holds: a choice among the results, not a stray word ("akemi")."""
    said = u.history.told_since_offer(u.service, slot)
    if not said:
        return False
    search, _ = u.history.last_search(u.service)
    results = (search.service_results or []) if search is not None else []
    return any(_holds(str(r.get(slot, "")), said) for r in results)


def _holds(result: str, said: AbstractSet[str]) -> bool:
    """Whether a result's value is one the user said (lower case): as written, or as the
    clock time or the day it names ("5 pm" for 17:00; "march 8th" for 2019-03-08, read in
    the result's year: a relative day, "next friday", is not compared)."""
    value = result.strip().lower()
    if value in said:
        return True
    if re.fullmatch(r"\d{2}:\d{2}", value):
        return any(parse_time(v) == value for v in said)
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        year = date(int(value[:4]), 1, 1)
        return any((d := parse_date(v, year)) is not None and d.isoformat() == value for v in said)
    return False


def _values_said(u: Update) -> None:
    for act in u.acts:
        if act.act in ("INFORM", "SELECT") and act.slot and act.values:
            put(u.frame, act.slot, _state_values(act, u.schema))


# The tracker's rules, in the order they run on a frame the user's acts address.
RULES: tuple[Rule, ...] = (
    Rule(
        "closing ends the task",
        lambda u: (
            bool(u.kinds)
            and u.kinds <= CLOSING_ACTS
            and bool(u.sys_kinds & {"REQ_MORE", "GOODBYE", "OFFER_INTENT"})
        ),
        _task_over,
    ),
    Rule("an offered intent taken up", lambda u: "AFFIRM_INTENT" in u.kinds, _offered_intent),
    Rule("a slot asked for leaves", lambda u: not found_nothing(u.sys_acts), _asked_slot_leaves),
    Rule("the intent and requests said", lambda u: True, _intent_and_requests),
    Rule(
        "a confirmation affirmed",
        lambda u: "AFFIRM" in u.kinds and "CONFIRM" in u.sys_kinds,
        _confirmed,
    ),
    Rule(
        "confirmed required values stay",
        lambda u: "CONFIRM" in u.sys_kinds and "AFFIRM" not in u.kinds and _intent(u) is not None,
        _confirmed_required_stay,
    ),
    Rule(  # "is the location X?" "yes"
        "a proposed value affirmed",
        lambda u: "AFFIRM" in u.kinds and "REQUEST" in u.sys_kinds,
        _proposed_value_taken,
    ),
    Rule(  # "yes, try that" after a failure
        "an offer affirmed",
        lambda u: "AFFIRM" in u.kinds and "OFFER" in u.sys_kinds,
        _offer_after_failure_taken,
    ),
    Rule(
        "the offer taken",
        lambda u: bool(u.kinds & ACCEPTS_OFFER) and not u.kinds & REJECTS_OFFER,
        _offer_taken,
    ),
    Rule("the values said", lambda u: True, _values_said),
)


def _apply(
    frame: State,
    acts: Sequence[Action],
    history: History,
    service: str,
    schema: ServiceSchema | None,
) -> None:
    update = Update.of(frame, acts, history, service, schema)
    for rule in RULES:
        if rule.applies(update):
            rule.apply(update)


def _leave_transaction(
    frame: State, schema: ServiceSchema | None, before: str, acts: Sequence[Action]
) -> None:
    """A new intent after a transactional one starts another task: the values only the
    transaction took (an amount, a recipient) leave the state, unless said this turn."""
    old = schema.intent(before) if schema else None
    new = schema.intent(frame.active_intent) if schema else None
    if old is None or new is None or not old.is_transactional:
        return
    takes = {*new.required_slots, *new.optional_slots}
    said = {a.slot for a in acts if a.act in ("INFORM", "SELECT")}
    for slot in list(frame.slot_values):
        if slot not in takes and slot not in said:
            del frame.slot_values[slot]


def _state_values(act: Action, schema: ServiceSchema | None) -> list[str]:
    """SGD's state semantics: a categorical slot holds one of its possible values (the act's
    canonical value, "1" for "one"), any other slot the words the user used."""
    spec = schema.slot(act.slot) if schema is not None else None
    if spec is not None and spec.is_categorical and act.canonical_values:
        return list(act.canonical_values)
    return list(act.values)


def _fill_optional_defaults(
    frame: State, history: History, service: str, schema: ServiceSchema | None
) -> None:
    """On confirmation the intent's optional slots take the value the system last asked to
    confirm for them (maybe turns ago), else the schema's default (never "dontcare")."""
    intent = schema.intent(frame.active_intent) if schema else None
    if intent is None:
        return
    for slot, default in intent.optional_slots.items():
        if slot in frame.slot_values:
            continue
        said = history.confirmed(service, slot)
        if said:
            put(frame, slot, said)
        elif default != DONTCARE:
            put(frame, slot, [default])
