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

    @property
    def task(self) -> Task | None:
        return self.goal.tasks[self.index] if self.index < len(self.goal.tasks) else None

    # ------------------------------------------------------------ turns

    def respond(self, system: SystemTurnView | None) -> UserActs:
        if self.finished:
            return {}
        if system is None:
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
        acts = [a for a in system.actions]
        kinds = {a.act for a in acts}
        service = task.service
        state = self.progress
        if system.service is not None and system.service != service:
            # still about the task before (its question again, after the user moved on):
            # not this task's question, so the user says what they want now again
            return self.restate(task)
        for a in acts:
            if a.act in ("INFORM", "OFFER") and a.slot and a.values:
                state.known[a.slot] = a.values[0]
        out: list[Action] = []
        if "CONFIRM" in kinds:
            return {service: self.check_confirm(task, [a for a in acts if a.act == "CONFIRM"])}
        if "NOTIFY_SUCCESS" in kinds or "NOTIFY_FAILURE" in kinds:
            if task.search is None or state.phase == "book" or "NOTIFY_SUCCESS" in kinds:
                state.phase = "done"
                return self.next_task()
            state.phase = "done"  # the search found nothing
            return self.next_task()
        none = found_nothing(acts)
        if none and not task.achievable and state.phase == "search":
            state.phase = "done"  # nothing meets what it wants, as the goal foresaw: move on
            return self.next_task()
        offer = {a.slot: a.values[0] for a in acts if a.act == "OFFER" and a.slot and a.values}
        if offer and task.transactional and task.search is None and state.phase == "search":
            # a transaction wanted alone (set an alarm) and entities offered (the alarms
            # there are): not what was asked for, so the user says what they want again
            if "OFFER_INTENT" not in kinds and not any(a.act == "REQUEST" for a in acts):
                return self.restate(task)
        elif offer and state.phase in ("search", "chosen"):
            state.entity = offer
            unsaid = self.unsaid(task)
            if unsaid:  # a preference not said yet: say it before taking anything
                state.phase = "search"
                return {service: [self.inform(task, s, v) for s, v in unsaid.items()]}
            if not self.meets(task, offer):
                state.rejected += 1
                state.phase = "search"
                return {service: [act("REQUEST_ALTS")]}
            state.phase = "chosen"
            count = next((a.values[0] for a in acts if a.act == "INFORM_COUNT" and a.values), "")
            many = count.isdigit() and int(count) > 1
            if many and not state.browsed and self.rng.random() < self.browse_rate:
                state.browsed = True  # another option, to compare
                return {service: [act("REQUEST_ALTS")]}
        if "OFFER_INTENT" in kinds:
            wanted = [a for a in acts if a.act == "OFFER_INTENT" and a.values]
            if wanted and wanted[0].values[0] == task.intent and not self.pending(task):
                state.phase = "book"
                return {
                    service: [
                        act("AFFIRM_INTENT"),
                        *self.volunteer(task, task.constraints, task.intent),
                    ]
                }
            if not self.pending(task) and state.phase == "chosen" and task.search is None:
                state.phase = "done"
                return self.next_task()
            out.append(act("NEGATE_INTENT"))
        requests = [a.slot for a in acts if a.act == "REQUEST" and a.slot]
        if requests:
            answers = self.answer(task, requests)
            extra = [
                self.inform(task, s, v) for s, v in self.unsaid(task).items() if s not in requests
            ]
            return {service: [*out, *answers, *extra]}
        if state.phase == "chosen":
            pending = self.pending(task)
            if pending:
                return {service: [*out, *(act("REQUEST", s) for s in pending[:2])]}
            if task.search is not None:  # take the entity on to the transaction
                if not state.selected and self.rng.random() < self.select_rate:
                    state.selected = True  # "that one": the system offers the transaction
                    return {service: [act("SELECT")]}
                state.phase = "book"
                return {
                    service: [
                        act("INFORM_INTENT", "intent", [task.intent]),
                        *self.volunteer(task, task.constraints, task.intent),
                    ]
                }
            state.phase = "done"
            return self.next_task()
        if "REQ_MORE" in kinds and state.phase == "done":
            return self.next_task()
        if out:
            return {service: out}
        return self.restate(task)

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
