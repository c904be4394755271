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
    frames = _system_frames(dialogue, task.service)
    told: dict[str, str] = {}
    for f in frames:
        for a in f.actions:
            if a.act in ("INFORM", "OFFER") and a.slot and a.values:
                told[a.slot] = a.values[0]
    verdict = TaskVerdict(task.service, task.intent, False, requested=len(task.requests))
    verdict.told = sum(1 for s in task.requests if s in told)
    is_transaction = task.transactional
    if is_transaction and task.achievable:
        verdict.booked = False
    calls = [
        (i, f)
        for i, f in enumerate(frames)
        if f.service_call and f.service_call.method == task.intent
    ]
    if not calls:
        verdict.reason = f"no call of {task.intent}"
        return verdict
    index, frame = calls[-1]
    assert frame.service_call is not None
    params = frame.service_call.parameters
    if task.search is not None:
        searches = [f for f in frames if f.service_call and f.service_call.method == task.search]
        if not searches:
            verdict.reason = f"no call of {task.search}"
            return verdict
        found = searches[-1]
        assert found.service_call is not None
        booked = _rows_of(found.service_results or [], params)
        for slot, value in task.search_constraints.items():
            got = found.service_call.parameters.get(slot)
            if got is None and (slot in params or _held(booked, slot, value, task, same)):
                continue  # the booking carries it (judged below), or what it booked has it
            if got is None or not same(task.service, slot, got, value):
                verdict.reason = f"call {task.search}: {slot}={got!r}, goal {value!r}"
                return verdict
    wanted = dict(task.constraints)
    if task.search is not None:
        wanted |= {s: v for s, v in task.search_constraints.items() if s in params}
    results = frame.service_results or []
    said = {a.act for a in frame.actions}
    unsearched: dict[str, str] = {}  # a search's constraints its call left out
    for slot, value in wanted.items():
        got = params.get(slot)
        if got is None and not task.achievable and not results:
            continue  # found nothing with fewer constraints: nothing meets them all either
        if got is None and not is_transaction and task.achievable:
            unsearched[slot] = value  # the entity offered must have it (below)
            continue
        if got is None or not same(task.service, slot, got, value):
            verdict.reason = f"call {task.intent}: {slot}={got!r}, goal {value!r}"
            return verdict
    if not task.achievable:
        if results:
            verdict.reason = "the goal cannot be met but the call succeeded"
        elif said & {"NOTIFY_FAILURE"} or found_nothing(frame.actions):
            verdict.success = True
        else:
            verdict.reason = "the call found nothing and the system did not say so"
        return verdict
    if not results:
        verdict.reason = f"call {task.intent} returned nothing"
        return verdict
    if is_transaction:
        if "NOTIFY_SUCCESS" not in said:
            verdict.reason = "no NOTIFY_SUCCESS after a successful transaction"
            return verdict
        verdict.booked = True
    else:
        offered = [
            {a.slot: a.values[0] for a in f.actions if a.act == "OFFER" and a.values}
            for f in frames[index:]
        ]
        offered = [o for o in offered if o]
        if not offered:
            verdict.reason = "the search found entities but none was offered"
            return verdict
        if not any(
            _meets(o, task, same)
            and all(_held(_rows_of(results, o), s, v, task, same) for s, v in unsearched.items())
            for o in offered
        ):
            if unsearched:
                slot, value = next(iter(unsearched.items()))
                verdict.reason = f"call {task.intent}: {slot}=None, goal {value!r}"
            else:
                verdict.reason = "no offered entity meets the constraints"
            return verdict
    missing = [s for s in task.requests if s not in told]
    if missing:
        verdict.reason = f"requested slot not told: {missing[0]}"
        return verdict
    verdict.success = True
    return verdict


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
