"""Did a simulated dialogue reach its goal? Judged from the transcript (an SGD dialogue) and
the goal alone, whatever policy ran.

A task succeeds when:

* a search: the last call of the search intent returned entities, an entity meeting every
  constraint was offered (a constraint the call carried, or one it left out that the
  offered entity's result row has all the same), and every requested slot was told; for a
  search that cannot be met, the call returned nothing and the system said so
  (NOTIFY_FAILURE, or a count of 0);
* a transaction: the last call of it carried every goal value, and the search constraints
  it takes; the search that found the entity carried the others (or the booked entity's
  row in its results has them); the call ended in NOTIFY_SUCCESS with results; for one the
  backend refuses, the system said NOTIFY_FAILURE; requested slots told, as for a search.
  So success is what the booked or found entity is, not the path to it: a fare class
  missed at the search and corrected at the confirmation is a booking that meets the goal.

The first unmet condition is the task's failure reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from tod_runtime.dialogue.models import Dialogue, Frame, found_nothing
from tod_runtime.simulate.base import Goal, Task

Same = Callable[[str, str, str, str], bool]


@dataclass
class TaskVerdict:
    service: str
    intent: str
    success: bool
    reason: str = ""
    requested: int = 0
    told: int = 0
    booked: bool | None = None  # for an achievable transaction: did it succeed


@dataclass
class Verdict:
    success: bool
    tasks: list[TaskVerdict] = field(default_factory=list)

    @property
    def reason(self) -> str:
        return next((t.reason for t in self.tasks if not t.success), "")


def _system_frames(dialogue: Dialogue, service: str) -> list[Frame]:
    return [
        f for t in dialogue.turns if t.speaker == "SYSTEM" for f in t.frames if f.service == service
    ]


def judge(dialogue: Dialogue, goal: Goal, same: Same, ended: str = "") -> Verdict:
    """``ended``: why the dialogue stopped early (a stage error, the turn limit), if it did."""
    verdicts = [judge_task(dialogue, task, same) for task in goal.tasks]
    if ended:
        for v in verdicts:
            if not v.success and not v.reason.startswith(ended):
                v.reason = f"{ended}: {v.reason}"
    return Verdict(all(v.success for v in verdicts), verdicts)


def judge_task(dialogue: Dialogue, task: Task, same: Same) -> TaskVerdict:
    """The task's verdict: the first of ``CHECKS`` that decides (a failure's reason, or
    success) ends the judging."""
    e = Evidence(task, same, _system_frames(dialogue, task.service))
    verdict = e.verdict
    verdict.told = sum(1 for s in task.requests if s in e.told)
    if task.transactional and task.achievable:
        verdict.booked = False
    for check in CHECKS:
        if not check.applies(e):
            continue
        outcome = check.decide(e)
        if outcome is not None:
            verdict.success, verdict.reason = outcome == SUCCESS, outcome
            return verdict
    raise AssertionError("the last check always decides")  # pragma: no cover


SUCCESS = ""  # a check's outcome when the task succeeded; else a failure's reason


@dataclass
class Evidence:
    """What the judge reads of one task's service in the transcript."""

    task: Task
    same: Same
    frames: list[Frame]
    verdict: TaskVerdict = field(init=False)

    def __post_init__(self) -> None:
        t = self.task
        self.verdict = TaskVerdict(t.service, t.intent, False, requested=len(t.requests))

    @cached_property
    def told(self) -> dict[str, str]:
        """Slot -> the value the system last INFORMed or OFFERed in the service."""
        return {
            a.slot: a.values[0]
            for f in self.frames
            for a in f.actions
            if a.act in ("INFORM", "OFFER") and a.slot and a.values
        }

    @cached_property
    def calls(self) -> list[tuple[int, Frame]]:
        """The frames calling the task's intent, with their index."""
        return [
            (i, f)
            for i, f in enumerate(self.frames)
            if f.service_call and f.service_call.method == self.task.intent
        ]

    @property
    def frame(self) -> Frame:
        return self.calls[-1][1]

    @property
    def params(self) -> dict[str, str]:
        assert self.frame.service_call is not None
        return self.frame.service_call.parameters

    @property
    def results(self) -> list[dict[str, str]]:
        return self.frame.service_results or []

    @property
    def said(self) -> set[str]:
        return {a.act for a in self.frame.actions}

    @cached_property
    def unsearched(self) -> dict[str, str]:
        """A search's constraints its call left out: the entity offered must have them."""
        if self.task.transactional or not self.task.achievable:
            return {}
        return {s: v for s, v in self.wanted.items() if self.params.get(s) is None}

    @cached_property
    def wanted(self) -> dict[str, str]:
        """The values the call of the task's intent must carry."""
        task, wanted = self.task, dict(self.task.constraints)
        if task.search is not None:
            wanted |= {s: v for s, v in task.search_constraints.items() if s in self.params}
        return wanted


@dataclass(frozen=True)
class Check:
    """One named condition of success: when it ``applies``, ``decide`` gives the failure's
    reason, ``SUCCESS``, or None (met: the next check decides)."""

    name: str
    applies: Callable[[Evidence], bool]
    decide: Callable[[Evidence], str | None]


def _called(e: Evidence) -> str | None:
    return None if e.calls else f"no call of {e.task.intent}"


def _search_carried(e: Evidence) -> str | None:
    task, params = e.task, e.params
    searches = [f for f in e.frames if f.service_call and f.service_call.method == task.search]
    if not searches:
        return f"no call of {task.search}"
    found = searches[-1]
    assert found.service_call is not None
    booked = _rows_of(found.service_results or [], params)
    for slot, value in task.search_constraints.items():
        got = found.service_call.parameters.get(slot)
        if got is None and (slot in params or _held(booked, slot, value, task, e.same)):
            continue  # the booking carries it (judged below), or what it booked has it
        if got is None or not e.same(task.service, slot, got, value):
            return f"call {task.search}: {slot}={got!r}, goal {value!r}"
    return None


def _call_carried(e: Evidence) -> str | None:
    task = e.task
    for slot, value in e.wanted.items():
        got = e.params.get(slot)
        if got is None and not task.achievable and not e.results:
            continue  # found nothing with fewer constraints: nothing meets them all either
        if slot in e.unsearched:
            continue  # the entity offered must have it (below)
        if got is None or not e.same(task.service, slot, got, value):
            return f"call {task.intent}: {slot}={got!r}, goal {value!r}"
    return None


def _refused(e: Evidence) -> str:
    if e.results:
        return "the goal cannot be met but the call succeeded"
    if e.said & {"NOTIFY_FAILURE"} or found_nothing(e.frame.actions):
        return SUCCESS
    return "the call found nothing and the system did not say so"


def _booked(e: Evidence) -> str | None:
    if "NOTIFY_SUCCESS" not in e.said:
        return "no NOTIFY_SUCCESS after a successful transaction"
    e.verdict.booked = True
    return None


def _offered(e: Evidence) -> str | None:
    task, same, results = e.task, e.same, e.results
    index = e.calls[-1][0]
    offered = [
        {a.slot: a.values[0] for a in f.actions if a.act == "OFFER" and a.values}
        for f in e.frames[index:]
    ]
    offered = [o for o in offered if o]
    if not offered:
        return "the search found entities but none was offered"
    if any(
        _meets(o, task, same)
        and all(_held(_rows_of(results, o), s, v, task, same) for s, v in e.unsearched.items())
        for o in offered
    ):
        return None
    if e.unsearched:
        slot, value = next(iter(e.unsearched.items()))
        return f"call {task.intent}: {slot}=None, goal {value!r}"
    return "no offered entity meets the constraints"


def _requests_told(e: Evidence) -> str:
    missing = [s for s in e.task.requests if s not in e.told]
    return f"requested slot not told: {missing[0]}" if missing else SUCCESS


# The conditions of a task's success, in the order they are judged.
CHECKS: tuple[Check, ...] = (
    Check("the intent was called", lambda e: True, _called),
    Check("the search carried its constraints", lambda e: e.task.search is not None,
          _search_carried),
    Check("the call carried the goal", lambda e: True, _call_carried),
    Check("an unachievable goal refused", lambda e: not e.task.achievable, _refused),
    Check("the call found entities", lambda e: True,
          lambda e: None if e.results else f"call {e.task.intent} returned nothing"),
    Check("the booking succeeded", lambda e: e.task.transactional, _booked),
    Check("an offered entity meets the goal", lambda e: not e.task.transactional, _offered),
    Check("the requested slots told", lambda e: True, _requests_told),
)  # fmt: skip


def _rows_of(results: list[dict[str, str]], said: dict[str, str]) -> list[dict[str, str]]:
    """The result rows agreeing with every value ``said`` of them (an offer, a booking's
    parameters): the entity meant."""
    return [r for r in results if all(r.get(s, v) == v for s, v in said.items())]


def _held(rows: list[dict[str, str]], slot: str, value: str, task: Task, same: Same) -> bool:
    """The entity (its rows) has ``value`` for ``slot``: a constraint the call left out
    that the entity found or booked meets all the same."""
    return bool(rows) and all(slot in r and same(task.service, slot, r[slot], value) for r in rows)


def _meets(entity: dict[str, str], task: Task, same: Same) -> bool:
    return all(
        same(task.service, slot, value, task.constraints[slot])
        for slot, value in entity.items()
        if slot in task.constraints
    )
