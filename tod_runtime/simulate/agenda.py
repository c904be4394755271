"""The built-in simulated user (``schema``): plays a sampled ``Goal`` turn by turn.

It opens with the first task's intent and some of its constraints; answers a REQUEST with the
goal's value (``dontcare`` for a slot the goal does not constrain); checks an OFFER against
its constraints and asks for another (REQUEST_ALTS) when the entity does not meet them; asks
for the information it wants (REQUEST); takes up the transaction (INFORM_INTENT, or
AFFIRM_INTENT to an OFFER_INTENT); checks a CONFIRM and AFFIRMs, or NEGATEs and corrects the
values that differ (a value it said first on purpose, ``Task.change``, included); moves on to
the next task after NOTIFY_SUCCESS or NOTIFY_FAILURE; closes with GOODBYE. A system turn
still about the task before (its question asked again after the user moved on) is not
answered: the user says what it wants now again. What it compares
is in the backend's form (``values.normalise``), read against the backend's today.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from tod_runtime.dialogue.context import UserActs
from tod_runtime.dialogue.models import DONTCARE, Action, act, found_nothing
from tod_runtime.schema.loader import Schemas
from tod_runtime.simulate.base import Goal, SystemTurnView, Task

Same = Callable[[str, str, str, str], bool]  # same(service, slot, a, b)
STALL_LIMIT = 3  # system turns in a row that move nothing before the user gives up


@dataclass
class TaskProgress:
    phase: str = "search"  # search -> chosen -> book -> done
    entity: dict[str, str] = field(default_factory=dict)
    known: dict[str, str] = field(default_factory=dict)  # values the system told
    said: set[str] = field(default_factory=set)
    corrected: bool = False
    rejected: int = 0
    browsed: bool = False
    selected: bool = False


@dataclass
class AgendaUser:
    """One user with one goal; ``same`` compares two values of a slot in backend form."""

    goal: Goal
    schemas: Schemas
    rng: random.Random
    same: Same
    # a goodbye beside the closing NEGATE_INTENT or SELECT (SGD: 670 of 2,313 NEGATE_INTENTs)
    close_with_goodbye: float = 0.3
    inform_rate: float = 0.6  # constraints volunteered with the intent
    browse_rate: float = 0.2  # a fitting first offer, and the user asks what else there is
    select_rate: float = 0.5  # the entity taken on by SELECT (then the offered intent)
    index: int = 0
    progress: TaskProgress = field(default_factory=TaskProgress)
    stalled: int = 0
    last_said: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)
    finished: bool = False
    ended: str = ""
    system: SystemTurnView | None = None  # the system's last turn
    closing: int = 0  # closing turns said
    reopen: bool = False  # the task was called off mid-way: the next turn opens it again

    @property
    def task(self) -> Task | None:
        return self.goal.tasks[self.index] if self.index < len(self.goal.tasks) else None

    # ------------------------------------------------------------ turns

    def respond(self, system: SystemTurnView | None) -> UserActs:
        if self.finished:
            return {}
        if system is None or self.reopen:
            self.reopen, self.stalled, self.last_said = False, 0, []
            return self.open_task()
        self.system = system
        kinds = {a.act for a in system.actions}
        if "GOODBYE" in kinds:
            self.finished = True
            return {}
        task = self.task
        if task is None:
            return self.close()
        said = [a.key() for a in system.actions]
        self.stalled = self.stalled + 1 if said == self.last_said else 0
        self.last_said = said
        reply = self.react(task, system)
        if self.stalled >= STALL_LIMIT:  # the system says the same thing again and again
            self.finished = True
            self.ended = "user gave up (the system repeated itself)"
            return {}
        return reply

    def react(self, task: Task, system: SystemTurnView) -> UserActs:
        """The user's answer to a system turn in ``task``'s service: the first rule of
        ``REACTIONS`` that answers (in order; a rule may also note what it saw and pass)."""
        turn = Reading(task, list(system.actions), system.service)
        for reaction in REACTIONS:
            if reaction.applies(self, turn):
                answer = reaction.apply(self, turn)
                if answer is not None:
                    return answer
        return self.restate(task)

    # ------------------------------------------------------------ repairs (simulate.repairs)

    def restart_task(self) -> None:
        """The task was called off mid-way ("never mind"): the next turn starts it over."""
        self.reopen = True

    def change_of_mind(self, take: bool = False) -> Action | None:
        """The goal's value of a slot said wrong on purpose (``Task.change``) and not yet
        taken back, before the confirmation; ``take``: taken back now (the confirmation then
        finds nothing to correct)."""
        task = self.task
        if task is None or self.progress.corrected or self.progress.phase in ("book", "done"):
            return None
        for slot in task.change:
            if slot in self.progress.said:
                if take:
                    self.progress.corrected = True
                return act("INFORM", slot, [self.wanted(task)[slot]])
        return None

    # ------------------------------------------------------------ pieces

    def open_task(self) -> UserActs:
        task = self.task
        if task is None:
            return self.close()
        self.progress = TaskProgress()
        first = task.search or task.intent
        wants = task.search_constraints if task.search else task.constraints
        return {
            task.service: [
                act("INFORM_INTENT", "intent", [first]),
                *self.volunteer(task, wants, first),
            ]
        }

    def volunteer(self, task: Task, wants: dict[str, str], name: str) -> list[Action]:
        """``wants`` of intent ``name`` said unasked: every optional one (the system does not
        ask for those), some required ones; never a value left for carry-over."""
        intent = self.schemas[task.service].intent(name)
        optional = intent.optional_slots if intent is not None else {}
        out = []
        for slot, value in wants.items():
            if slot in task.carried or slot in self.progress.said:
                continue
            if slot in optional or slot in task.linked or self.rng.random() < self.inform_rate:
                out.append(self.inform(task, slot, value))
        return out

    def inform(self, task: Task, slot: str, value: str) -> Action:
        self.progress.said.add(slot)
        if slot in task.change and not self.progress.corrected:
            value = task.change[slot]
        return act("INFORM", slot, [value])

    def wanted(self, task: Task) -> dict[str, str]:
        return task.search_constraints | task.constraints

    def answer(self, task: Task, slots: list[str]) -> list[Action]:
        wanted = self.wanted(task)
        out = []
        for slot in slots:
            if slot in wanted:
                out.append(self.inform(task, slot, wanted[slot]))
            elif slot in self.progress.entity:
                out.append(act("INFORM", slot, [self.progress.entity[slot]]))
            else:
                out.append(act("INFORM", slot, [DONTCARE]))
        return out

    def check_confirm(self, task: Task, confirms: list[Action]) -> list[Action]:
        wanted = self.wanted(task)
        wrong = []
        for c in confirms:
            said = (c.canonical_values or c.values or [""])[0]
            goal = wanted.get(c.slot)
            if goal is not None and not self.same(task.service, c.slot, said, goal):
                wrong.append(c.slot)
        if not wrong:
            self.progress.phase = "book"
            return [act("AFFIRM")]
        self.progress.corrected = True
        return [act("NEGATE"), *(act("INFORM", s, [wanted[s]]) for s in wrong)]

    def meets(self, task: Task, entity: dict[str, str]) -> bool:
        wanted = task.search_constraints if task.search else task.constraints
        return all(
            self.same(task.service, slot, value, wanted[slot])
            for slot, value in entity.items()
            if slot in wanted and wanted[slot] != DONTCARE
        )

    def unsaid(self, task: Task) -> dict[str, str]:
        """Constraints of the current phase not said yet (a value left for carry-over is
        not the user's to say)."""
        searching = task.search is not None and self.progress.phase in ("search", "chosen")
        wants = task.search_constraints if searching else task.constraints
        said, carried = self.progress.said, task.carried
        return {s: v for s, v in wants.items() if s not in said and s not in carried}

    def pending(self, task: Task) -> list[str]:
        return [s for s in task.requests if s not in self.progress.known]

    def restate(self, task: Task) -> UserActs:
        """The system moved nothing: say the intent and what it lacks again."""
        intent = task.search if task.search and self.progress.phase == "search" else task.intent
        wants = (
            self.wanted(task)
            if self.progress.phase != "search"
            else (task.search_constraints if task.search else task.constraints)
        )
        acts = [act("INFORM_INTENT", "intent", [intent])]
        acts += [act("INFORM", s, [v]) for s, v in wants.items()]
        return {task.service: acts}

    def next_task(self) -> UserActs:
        self.index += 1
        if self.task is None:
            return self.close()
        return self.open_task()

    def close(self) -> UserActs:
        """Every task done: close as SGD's users do after what the system just said (SGD
        train's user turns): "no, thanks" to REQ_MORE ("anything else?"), NEGATE_INTENT to
        an offered intent (now and then with a goodbye), thanks to a booking (half the time
        with a goodbye), "that sounds good" to an entity offered or described (SELECT, now
        and then with a goodbye), else thanks and goodbye. A NEGATE is said only after a
        question (0 of SGD train's 8,593 user NEGATEs follow a bare OFFER); the system's
        REQ_MORE and GOODBYE follow as they do in SGD."""
        service = self.goal.tasks[-1].service
        kinds = {a.act for a in self.system.actions} if self.system is not None else set()
        self.closing += 1
        self.progress.phase = "closing"
        goodbye = [act("GOODBYE")] if self.rng.random() < self.close_with_goodbye else []
        if self.closing > 3:  # the system did not take the hint
            acts = [act("THANK_YOU"), act("GOODBYE")]
        elif "OFFER_INTENT" in kinds:
            acts = [act("NEGATE_INTENT"), *goodbye]
        elif "REQ_MORE" in kinds:
            acts = [act("NEGATE"), act("THANK_YOU")]
        elif "NOTIFY_SUCCESS" in kinds:
            acts = [act("THANK_YOU"), *([act("GOODBYE")] if self.rng.random() < 0.5 else [])]
        elif kinds & {"OFFER", "INFORM"} and "NOTIFY_FAILURE" not in kinds:
            acts = [act("SELECT"), *goodbye]
        else:
            acts = [act("THANK_YOU"), act("GOODBYE")]
        return {service: acts}


# ---------------------------------------------------------------- the reactions, in order


@dataclass
class Reading:
    """A system turn as the user reads it in one task; ``out`` collects acts a reaction says
    before a later one answers (a NEGATE_INTENT to an intent not wanted)."""

    task: Task
    acts: list[Action]
    service: str | None
    out: list[Action] = field(default_factory=list)

    @cached_property
    def kinds(self) -> frozenset[str]:
        return frozenset(a.act for a in self.acts)

    @cached_property
    def offer(self) -> dict[str, str]:
        return {a.slot: a.values[0] for a in self.acts if a.act == "OFFER" and a.slot and a.values}

    def reply(self, *acts: Action) -> UserActs:
        return {self.task.service: [*self.out, *acts]}


@dataclass(frozen=True)
class Reaction:
    """One named rule of the agenda user: when ``applies``, ``apply`` answers, or returns
    None to let the next rule answer."""

    name: str
    applies: Callable[[AgendaUser, Reading], bool]
    apply: Callable[[AgendaUser, Reading], UserActs | None]


def _note_told(u: AgendaUser, r: Reading) -> None:
    for a in r.acts:
        if a.act in ("INFORM", "OFFER") and a.slot and a.values:
            u.progress.known[a.slot] = a.values[0]


def _finish(u: AgendaUser, r: Reading) -> UserActs:
    u.progress.phase = "done"
    return u.next_task()


def _lone_transaction_offered(u: AgendaUser, r: Reading) -> UserActs | None:
    # a transaction wanted alone (set an alarm) and entities offered (the alarms there
    # are): not what was asked for, so the user says what they want again
    if "OFFER_INTENT" not in r.kinds and not any(a.act == "REQUEST" for a in r.acts):
        return u.restate(r.task)
    return None


def _lone_transaction(u: AgendaUser, r: Reading) -> bool:
    t = r.task
    return t.transactional and t.search is None and u.progress.phase == "search"


def _offer_considered(u: AgendaUser, r: Reading) -> UserActs | None:
    state, task = u.progress, r.task
    state.entity = r.offer
    unsaid = u.unsaid(task)
    if unsaid:  # a preference not said yet: say it before taking anything
        state.phase = "search"
        return r.reply(*(u.inform(task, s, v) for s, v in unsaid.items()))
    if not u.meets(task, r.offer):
        state.rejected += 1
        state.phase = "search"
        return r.reply(act("REQUEST_ALTS"))
    state.phase = "chosen"
    count = next((a.values[0] for a in r.acts if a.act == "INFORM_COUNT" and a.values), "")
    many = count.isdigit() and int(count) > 1
    if many and not state.browsed and u.rng.random() < u.browse_rate:
        state.browsed = True  # another option, to compare
        return r.reply(act("REQUEST_ALTS"))
    return None


def _intent_offered(u: AgendaUser, r: Reading) -> UserActs | None:
    task, state = r.task, u.progress
    wanted = [a for a in r.acts if a.act == "OFFER_INTENT" and a.values]
    if wanted and wanted[0].values[0] == task.intent and not u.pending(task):
        state.phase = "book"
        return r.reply(act("AFFIRM_INTENT"), *u.volunteer(task, task.constraints, task.intent))
    if not u.pending(task) and state.phase == "chosen" and task.search is None:
        return _finish(u, r)
    r.out.append(act("NEGATE_INTENT"))
    return None


def _requests_answered(u: AgendaUser, r: Reading) -> UserActs:
    requests = [a.slot for a in r.acts if a.act == "REQUEST" and a.slot]
    answers = u.answer(r.task, requests)
    extra = [u.inform(r.task, s, v) for s, v in u.unsaid(r.task).items() if s not in requests]
    return r.reply(*answers, *extra)


def _entity_chosen(u: AgendaUser, r: Reading) -> UserActs:
    task, state = r.task, u.progress
    pending = u.pending(task)
    if pending:
        return r.reply(*(act("REQUEST", s) for s in pending[:2]))
    if task.search is not None:  # take the entity on to the transaction
        if not state.selected and u.rng.random() < u.select_rate:
            state.selected = True  # "that one": the system offers the transaction
            return {task.service: [act("SELECT")]}
        state.phase = "book"
        return {
            task.service: [
                act("INFORM_INTENT", "intent", [task.intent]),
                *u.volunteer(task, task.constraints, task.intent),
            ]
        }
    return _finish(u, r)


REACTIONS: tuple[Reaction, ...] = (
    # still about the task before (its question again, after the user moved on): not this
    # task's question, so the user says what they want now again
    Reaction(
        "another service's turn",
        lambda u, r: r.service is not None and r.service != r.task.service,
        lambda u, r: u.restate(r.task),
    ),
    Reaction("what the system told noted", lambda u, r: True, _note_told),
    Reaction(
        "a confirmation checked",
        lambda u, r: "CONFIRM" in r.kinds,
        lambda u, r: {
            r.task.service: u.check_confirm(r.task, [a for a in r.acts if a.act == "CONFIRM"])
        },
    ),
    Reaction(  # booked, refused, or the search found nothing: the task is over
        "a notice ends the task",
        lambda u, r: bool(r.kinds & {"NOTIFY_SUCCESS", "NOTIFY_FAILURE"}),
        _finish,
    ),
    Reaction(  # nothing meets what it wants, as the goal foresaw: move on
        "nothing found, as foreseen",
        lambda u, r: (
            found_nothing(r.acts) and not r.task.achievable and u.progress.phase == "search"
        ),
        _finish,
    ),
    Reaction(
        "entities offered for a lone transaction",
        lambda u, r: bool(r.offer) and _lone_transaction(u, r),
        _lone_transaction_offered,
    ),
    Reaction(
        "an offer considered",
        lambda u, r: (
            bool(r.offer)
            and not _lone_transaction(u, r)
            and u.progress.phase in ("search", "chosen")
        ),
        _offer_considered,
    ),
    Reaction("an intent offered", lambda u, r: "OFFER_INTENT" in r.kinds, _intent_offered),
    Reaction(
        "requests answered",
        lambda u, r: any(a.act == "REQUEST" and a.slot for a in r.acts),
        _requests_answered,
    ),
    Reaction("the entity chosen", lambda u, r: u.progress.phase == "chosen", _entity_chosen),
    Reaction(
        "more wanted after the task",
        lambda u, r: "REQ_MORE" in r.kinds and u.progress.phase == "done",
        lambda u, r: u.next_task(),
    ),
    Reaction("acts said so far", lambda u, r: bool(r.out), lambda u, r: r.reply()),
)
