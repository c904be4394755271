"""The ``tod simulate`` report: task success and its parts, per service, with the reasons
dialogues failed.

* ``success_rate``: dialogues whose every task succeeded (``judge``);
* ``average_turns``: turns per dialogue, user and system turns counted as SGD counts them;
  ``average_turns_success`` over successful dialogues only;
* ``inform_recall``: requested slots the system told, over all requested slots;
* ``book_rate``: transactions the backend could complete that the system completed with the
  goal's values;
* ``groups.services``: the same per service (over the tasks in that service);
* ``failures``: how many failed tasks stopped at each condition (values left out).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from tod_runtime.simulate.judge import TaskVerdict
from tod_runtime.simulate.runner import Outcome, SimulationRun


def _ratio(part: float, whole: float) -> float | None:
    return round(part / whole, 4) if whole else None


def reason_kind(reason: str) -> str:
    """A failure reason without its values: ``call X: slot='a', goal 'b'`` -> ``call X:
    wrong slot``."""
    match = re.match(r"(.*?call \S+): (\S+?)=", reason)
    if match:
        return f"{match.group(1)}: wrong or missing {match.group(2)}"
    return re.sub(r": \S+$", "", reason) if reason.startswith("requested slot") else reason


def task_metrics(tasks: list[TaskVerdict]) -> dict[str, Any]:
    requested = sum(t.requested for t in tasks)
    told = sum(t.told for t in tasks)
    bookable = [t for t in tasks if t.booked is not None]
    return {
        "tasks": len(tasks),
        "success_rate": _ratio(sum(t.success for t in tasks), len(tasks)),
        "inform_recall": _ratio(told, requested),
        "book_rate": _ratio(sum(bool(t.booked) for t in bookable), len(bookable)),
    }


def build_report(run: SimulationRun, realism: dict[str, Any] | None = None) -> dict[str, Any]:
    outcomes: list[Outcome] = run.outcomes
    n = len(outcomes)
    tasks = [t for o in outcomes for t in o.verdict.tasks]
    wins = [o for o in outcomes if o.verdict.success]
    overall = task_metrics(tasks)
    by_service: dict[str, list[TaskVerdict]] = {}
    for t in tasks:
        by_service.setdefault(t.service, []).append(t)
    failures = Counter(reason_kind(t.reason) for t in tasks if not t.success)
    goals = Counter[str]()
    for o in outcomes:
        goals["tasks_" + str(len(o.goal.tasks))] += 1
        for task in o.goal.tasks:
            goals["transaction" if task.transactional else "search"] += 1
            goals["cannot_be_met"] += not task.achievable
            goals["change_of_mind"] += bool(task.change)
            goals["carried_over"] += bool(task.carried)
            goals["with_requests"] += bool(task.requests)
    options = run.options
    report: dict[str, Any] = {
        "dialogues": n,
        "success_rate": _ratio(len(wins), n),
        "average_turns": _ratio(sum(o.turns for o in outcomes), n),
        "average_turns_success": _ratio(sum(o.turns for o in wins), len(wins)),
        "inform_recall": overall["inform_recall"],
        "book_rate": overall["book_rate"],
        "task_success_rate": overall["success_rate"],
        "level": options.level,
        "simulator": options.simulator,
        "policy": options.runtime_config().policy,
        "nlu": options.runtime_config().nlu if options.level == "text" else "acts (no NLU)",
        "seed": options.seed,
        "services_given": "all" if options.all_services else "goal",
        "repairs": options.repairs,
        "seconds": run.seconds,
        "dialogues_per_second": _ratio(n, run.seconds),
        "goals": dict(sorted(goals.items())),
        "failures": dict(failures.most_common()),
        "groups": {"services": {s: task_metrics(v) for s, v in sorted(by_service.items())}},
    }
    if options.level == "text":
        report["understanding"] = understanding(outcomes)
    if realism is not None:
        report["realism"] = realism
    return report


def understanding(outcomes: list[Outcome]) -> dict[str, Any]:
    """Text level: the NLU's misreadings of what the user meant, and how many failed
    dialogues had one (a failure with none lies with the tracker, policy or simulator)."""
    failed = [o for o in outcomes if not o.verdict.success]
    kinds = Counter(
        re.sub(r" \S+$", "", e) if " value " in e or " request " in e else e
        for o in outcomes
        for e in o.misread
    )
    return {
        "misreadings": sum(len(o.misread) for o in outcomes),
        "by_kind": dict(kinds.most_common()),
        "by_slot": dict(Counter(e for o in outcomes for e in o.misread).most_common(15)),
        "failed_dialogues": len(failed),
        "failed_with_a_misreading": sum(bool(o.misread) for o in failed),
        "succeeded_with_a_misreading": sum(bool(o.misread) for o in outcomes if o.verdict.success),
    }


def summary(report: dict[str, Any]) -> str:
    lines = [
        f"dialogues {report['dialogues']}  success_rate {report['success_rate']}  "
        f"average_turns {report['average_turns']}  inform_recall {report['inform_recall']}  "
        f"book_rate {report['book_rate']}  ({report['level']}, {report['seconds']} s)"
    ]
    for reason, count in list(report["failures"].items())[:8]:
        lines.append(f"  failed tasks: {count:5d}  {reason}")
    read = report.get("understanding")
    if read:
        lines.append(
            f"  text: {read['failed_with_a_misreading']} of {read['failed_dialogues']} failed "
            f"dialogues had an NLU misreading; {read['misreadings']} misreadings in all"
        )
    realism = report.get("realism")
    if realism:
        turns = realism["turns"]
        lines.append(
            f"  realism vs {realism['reference']}: turns {turns['simulated']} vs "
            f"{turns['reference']}; same intents {realism['same_intents']['simulated']} vs "
            f"{realism['same_intents']['reference']} ({realism['same_intents']['dialogues']} "
            "dialogues)"
        )
    return "\n".join(lines)
