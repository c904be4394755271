"""The replay report: JSON with the keys outside checks rely on, and a short text summary."""

from __future__ import annotations

from typing import Any

from tod_runtime.data.sgd import open_split
from tod_runtime.errors import TodError
from tod_runtime.replay.aggregate import METRICS, Aggregate
from tod_runtime.replay.runner import ReplayOptions, ReplayRun
from tod_runtime.replay.state_metrics import seen_services


def seen_and_notes(options: ReplayOptions, services: list[str]) -> tuple[set[str], list[str]]:
    """Seen services: those in both the split's schema and train/schema.json of the root."""
    try:
        train = open_split(options.root, "train").schemas()
    except TodError:
        return set(), ["no train split next to this one: every service counts as unseen"]
    return seen_services(train, services), []


def build_report(options: ReplayOptions, run: ReplayRun, services: list[str]) -> dict[str, Any]:
    seen, notes = seen_and_notes(options, services)
    aggregate = Aggregate(seen)
    aggregate.add_all(run.results)
    passed = sum(r.passed for r in run.results)
    return {
        "dialogues": len(run.results),
        "turns": sum(r.turns for r in run.results),
        "seconds": run.seconds,
        "metrics": aggregate.metrics("all"),
        "groups": {
            "seen": aggregate.metrics("seen"),
            "unseen": aggregate.metrics("unseen"),
            "services": {s: aggregate.metrics(f"service:{s}") for s in aggregate.services()},
        },
        "passed": passed,
        "failed": len(run.results) - passed,
        "skipped_files": run.skipped,
        "config": {
            "split": options.split,
            "nlu": options.nlu,
            "policy": options.policy or "rules",
            "limit": options.limit,
            "workers": options.workers,
        },
        "notes": notes,
    }


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def summary(report: dict[str, Any]) -> str:
    lines = [
        f"{report['dialogues']} dialogues, {report['turns']} turns in {report['seconds']} s; "
        f"{report['passed']} passed, {report['failed']} failed, "
        f"{len(report['skipped_files'])} files skipped",
        f"{'group':<10}" + "".join(f"{m[:14]:>16}" for m in METRICS),
    ]
    rows = [("all", report["metrics"])]
    rows += [(g, report["groups"][g]) for g in ("seen", "unseen")]
    for name, metrics in rows:
        lines.append(f"{name:<10}" + "".join(f"{_cell(metrics[m]):>16}" for m in METRICS))
    return "\n".join(lines)
