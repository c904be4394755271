"""The replay report: a pydantic model whose fields are the JSON contract outside checks rely
on (``dialogues``, ``turns``, ``seconds``, ``metrics``, ``groups``...), and a text summary."""

from __future__ import annotations

from pydantic import BaseModel, Field

from tod_runtime.data.sgd import open_split, sgd_train_services
from tod_runtime.errors import TodError
from tod_runtime.replay.aggregate import METRICS, Aggregate
from tod_runtime.replay.runner import ReplayOptions, ReplayRun


class Metrics(BaseModel):
    """Averages over frames (state) and system turns (acts, calls); BLEU over the corpus;
    ``slot_error_rate``: the generated replies' missing and invented values over all their
    acts' values. None where a group has nothing to average."""

    joint_goal_accuracy: float | None = None
    average_goal_accuracy: float | None = None
    active_intent_accuracy: float | None = None
    requested_slots_f1: float | None = None
    system_act_f1: float | None = None
    service_call_accuracy: float | None = None
    bleu: float | None = None
    slot_error_rate: float | None = None

    def get(self, name: str) -> float | None:
        value: float | None = getattr(self, name)
        return value


class Groups(BaseModel):
    seen: Metrics
    unseen: Metrics
    services: dict[str, Metrics]


class SkippedFile(BaseModel):
    file: str
    error: str


class RunConfig(BaseModel):
    split: str
    nlu: str
    policy: str
    limit: int | None
    workers: int
    exact: bool = False
    dialogue_services: bool = True  # the NLU chose among each dialogue's services (DSTC8)
    lower_case: bool = False  # the user's turns were typed in lower case
    all_services: bool = False  # the NLU chose among every service (not dialogue_services)
    nlu_values: str = "backend"  # where the NLU's known values came from (--nlu-values)
    hold_values: list[str] = Field(default_factory=list)  # services given no values


class SGDXReport(BaseModel):
    """``tod replay --sgdx``: the SGD-X variants' metrics and the robustness figures
    (tod_runtime/replay/sgdx.py defines them)."""

    variants: dict[str, Metrics]
    services: dict[str, dict[str, float | None]] = {}  # service -> variant -> joint goal
    joint_goal_accuracy_mean: float | None
    joint_goal_accuracy_drop: float | None
    schema_sensitivity: float | None
    turns_scored: int


class ReplayReport(BaseModel):
    dialogues: int
    turns: int
    seconds: float
    metrics: Metrics
    groups: Groups
    passed: int
    failed: int
    skipped_files: list[SkippedFile] = Field(default_factory=list)
    config: RunConfig
    notes: list[str] = Field(default_factory=list)
    sgdx: SGDXReport | None = None  # with --sgdx


def seen_and_notes(root: str) -> tuple[frozenset[str], list[str]]:
    """Seen services: those of the train split beside the data (a folder named train under
    the same root), else SGD train's services, shipped with the package. Either way the
    answer depends on the services, not on where the data was read from."""
    try:
        train = open_split(root, "train", itself=False).schemas()
    except TodError:
        note = "no train split beside the data: 'seen' means a service of SGD's train split"
        return sgd_train_services(), [note]
    return frozenset(train), []


def build_report(options: ReplayOptions, run: ReplayRun) -> ReplayReport:
    seen, notes = seen_and_notes(options.root)
    aggregate = Aggregate(set(seen) & set(run.services))
    aggregate.add_all(run.results)
    passed = sum(r.passed for r in run.results)
    return ReplayReport(
        dialogues=len(run.results),
        turns=sum(r.turns for r in run.results),
        seconds=run.seconds,
        metrics=Metrics(**aggregate.metrics("all")),
        groups=Groups(
            seen=Metrics(**aggregate.metrics("seen")),
            unseen=Metrics(**aggregate.metrics("unseen")),
            services={
                s: Metrics(**aggregate.metrics(f"service:{s}")) for s in aggregate.services()
            },
        ),
        passed=passed,
        failed=len(run.results) - passed,
        skipped_files=[SkippedFile(**s) for s in run.skipped],
        config=RunConfig(
            split=options.split,
            nlu=options.nlu or options.runtime_config().nlu,
            policy=options.policy or "rules",
            limit=options.limit,
            workers=options.workers,
            exact=options.exact,
            dialogue_services=options.dialogue_services,
            lower_case=options.lower_case,
            all_services=not options.dialogue_services,
            nlu_values=options.nlu_values,
            hold_values=sorted(options.hold_values),
        ),
        notes=notes,
    )


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def summary(report: ReplayReport) -> str:
    lines = [
        f"{report.dialogues} dialogues, {report.turns} turns in {report.seconds} s; "
        f"{report.passed} passed, {report.failed} failed, "
        f"{len(report.skipped_files)} files skipped",
        f"{'group':<10}" + "".join(f"{m[:14]:>16}" for m in METRICS),
    ]
    rows = [("all", report.metrics), ("seen", report.groups.seen)]
    rows.append(("unseen", report.groups.unseen))
    for name, metrics in rows:
        lines.append(f"{name:<10}" + "".join(f"{_cell(metrics.get(m)):>16}" for m in METRICS))
    if report.sgdx is not None:
        for name, metrics in report.sgdx.variants.items():
            lines.append(
                f"{'sgdx ' + name:<10}" + "".join(f"{_cell(metrics.get(m)):>16}" for m in METRICS)
            )
        sgdx = report.sgdx
        lines.append(
            f"SGD-X: joint goal accuracy mean {_cell(sgdx.joint_goal_accuracy_mean)}, drop "
            f"{_cell(sgdx.joint_goal_accuracy_drop)}, schema sensitivity "
            f"{_cell(sgdx.schema_sensitivity)} ({sgdx.turns_scored} turns)"
        )
    return "\n".join(lines)
