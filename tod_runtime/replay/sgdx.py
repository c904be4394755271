"""``tod replay --sgdx``: replay the five SGD-X variants of the split and report robustness.

Each variant's dialogues are written (``tod_runtime.data.sgdx``) to a temporary folder, the
same ``--limit`` applying, and replayed with the same options as the original. The report's
``sgdx`` key holds:

- ``variants``: each variant's metrics (over all its frames, as ``metrics`` is);
- ``services``: per service of the original (by its original name), each variant's joint
  goal accuracy on the service's frames: where the drop comes from;
- ``joint_goal_accuracy_mean``: the mean of the variants' joint goal accuracy;
- ``joint_goal_accuracy_drop``: the original's joint goal accuracy minus that mean (a fraction;
  positive when the variants score lower);
- ``schema_sensitivity``: SGD-X's SS (Lee et al., AAAI 2022): per turn, the coefficient of
  variation (sample standard deviation over mean) of its joint goal accuracy across the
  variants, averaged over turns. A turn is a gold user frame, DSTC8's unit of the joint goal
  accuracy; a turn every variant gets wrong (mean 0) has no coefficient and is left out;
  ``turns_scored`` says how many were averaged.
"""

from __future__ import annotations

import dataclasses
import statistics
import tempfile
from collections.abc import Mapping, Sequence

from tod_runtime.data.sgd import open_split
from tod_runtime.data.sgdx import VARIANTS, positional_renaming, variant_split, write_variant
from tod_runtime.replay.aggregate import Aggregate
from tod_runtime.replay.engine import DialogueResult
from tod_runtime.replay.report import Metrics, SGDXReport
from tod_runtime.replay.runner import ReplayOptions, ReplayRun, run_replay

JGA = "joint_goal_accuracy"
FrameKey = tuple[str, str, int]  # file, dialogue id, index of the gold user frame


def frame_jga(results: Sequence[DialogueResult]) -> dict[FrameKey, float]:
    out: dict[FrameKey, float] = {}
    for result in results:
        for index, frame in enumerate(result.frames):
            out[(result.file, result.dialogue_id, index)] = frame.metrics[JGA]
    return out


def schema_sensitivity(per_variant: Sequence[Mapping[FrameKey, float]]) -> tuple[float | None, int]:
    """The mean over turns of stdev / mean of the turn's joint goal accuracy across variants
    (turns present in every variant; turns with mean 0 left out). (SS, turns averaged)."""
    if len(per_variant) < 2:
        return None, 0
    keys = set(per_variant[0]).intersection(*per_variant[1:])
    values = []
    for key in sorted(keys):
        scores = [v[key] for v in per_variant]
        mean = statistics.fmean(scores)
        if mean > 0:
            values.append(statistics.stdev(scores) / mean)
    if not values:
        return None, 0
    return round(statistics.fmean(values), 6), len(values)


def run_aggregate(run: ReplayRun) -> Aggregate:
    aggregate = Aggregate(set())
    aggregate.add_all(run.results)
    return aggregate


def service_jga(aggregate: Aggregate, original_names: Mapping[str, str]) -> dict[str, float | None]:
    """Each service's joint goal accuracy in a variant's replay, by its original name."""
    return {
        original_names.get(name, name): aggregate.metrics(f"service:{name}")[JGA]
        for name in aggregate.services()
    }


def replay_variants(
    options: ReplayOptions, original: Metrics, variants: Sequence[str] = VARIANTS
) -> SGDXReport:
    """Write and replay every variant of ``options``' split; compare with ``original``."""
    split = open_split(options.root, options.split)
    originals = list(split.schemas().values())
    metrics: dict[str, Metrics] = {}
    services: dict[str, dict[str, float | None]] = {}
    per_frame: list[dict[FrameKey, float]] = []
    with tempfile.TemporaryDirectory(prefix="tod-sgdx-") as tmp:
        for variant in variants:
            renamed = variant_split(split.root, split.name, variant).schemas().values()
            renaming = positional_renaming(originals, list(renamed))
            original_names = {new: old for old, new in renaming.services.items()}
            folder = write_variant(split, variant, tmp, limit=options.limit)
            run = run_replay(
                dataclasses.replace(
                    options,
                    root=str(folder),
                    split=options.split,
                    predictions=None,
                    errors=False,
                    strict=False,
                    exact=False,
                    services=None,
                    variant=(options.root, options.split, variant),
                    label=f"replay {options.split} sgdx {variant}",
                )
            )
            aggregate = run_aggregate(run)
            metrics[variant] = Metrics(**aggregate.metrics("all"))
            for service, jga in service_jga(aggregate, original_names).items():
                services.setdefault(service, {})[variant] = jga
            per_frame.append(frame_jga(run.results))
    scores = [m.joint_goal_accuracy for m in metrics.values()]
    known = [s for s in scores if s is not None]
    mean = round(statistics.fmean(known), 6) if known and len(known) == len(scores) else None
    drop = None
    if mean is not None and original.joint_goal_accuracy is not None:
        drop = round(original.joint_goal_accuracy - mean, 6)
    sensitivity, turns = schema_sensitivity(per_frame)
    return SGDXReport(
        variants=metrics,
        services={name: services[name] for name in sorted(services)},
        joint_goal_accuracy_mean=mean,
        joint_goal_accuracy_drop=drop,
        schema_sensitivity=sensitivity,
        turns_scored=turns,
    )
