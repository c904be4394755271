"""Replay on the real dev split: predictions files agree with the report when scored by an
independent re-implementation of the DSTC8 evaluation loop, and runs are reproducible."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

from tod_runtime.cli import main
from tod_runtime.data import open_split

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # "Using slow pure-python SequenceMatcher": as DSTC8 ran it
    from fuzzywuzzy import fuzz  # the official script's matcher (a test-only dependency)


def dstc8_joint_goal_accuracy(
    gold_split: object, predictions: Path, schema: list[dict[str, object]]
) -> float:
    """The official evaluate.py's joint goal accuracy, written out again from its description."""
    slots = {s["service_name"]: s["slots"] for s in schema}  # type: ignore[index]
    scores = []
    for file in sorted(predictions.glob("dialogues_*.json")):
        hyp = {d["dialogue_id"]: d for d in json.loads(file.read_text())}
        for ref in gold_split.read_raw(file.name):  # type: ignore[attr-defined]
            if ref["dialogue_id"] not in hyp:
                continue
            for turn_ref, turn_hyp in zip(
                ref["turns"], hyp[ref["dialogue_id"]]["turns"], strict=True
            ):
                if turn_ref["speaker"] != "USER":
                    continue
                by_service = {f["service"]: f for f in turn_hyp["frames"]}
                for frame in turn_ref["frames"]:
                    gold = frame["state"]["slot_values"]
                    pred = by_service[frame["service"]]["state"]["slot_values"]
                    joint = 1.0
                    for slot in slots[frame["service"]]:
                        name = slot["name"]
                        if name in gold and name in pred:
                            if slot["is_categorical"]:
                                joint *= float(gold[name][0] == pred[name][0])
                            else:
                                joint *= max(
                                    fuzz.token_sort_ratio(g, pred[name][0]) / 100
                                    for g in gold[name]
                                )
                        elif name in gold or name in pred:
                            joint = 0.0
                    scores.append(joint)
    return sum(scores) / len(scores)


def test_predictions_score_the_same_as_the_report(sgd_zip: Path, tmp_path: Path) -> None:
    report_path, predictions = tmp_path / "report.json", tmp_path / "pred"
    args = ["replay", str(sgd_zip), "--split", "dev", "--nlu", "gold", "--limit", "150"]
    assert main([*args, "--report", str(report_path), "--predictions", str(predictions)]) == 0
    report = json.loads(report_path.read_text())
    split = open_split(sgd_zip, "dev")
    independent = dstc8_joint_goal_accuracy(split, predictions, split.read_raw("schema.json"))
    assert abs(independent - report["metrics"]["joint_goal_accuracy"]) < 1e-4
    assert report["dialogues"] == 150


def test_two_workers_give_the_same_report(sgd_zip: Path, tmp_path: Path) -> None:
    metrics = []
    for workers in ("1", "2"):
        path = tmp_path / f"{workers}.json"
        main(
            [
                "replay",
                str(sgd_zip),
                "--split",
                "dev",
                "--limit",
                "120",
                "--workers",
                workers,
                "--report",
                str(path),
            ]
        )
        report = json.loads(path.read_text())
        metrics.append((report["metrics"], report["groups"], report["passed"]))
    assert metrics[0] == metrics[1]
