"""Check: score `tod replay --predictions` with the DSTC8 evaluation script, not ours.

    python benchmarks/dstc8_official.py [--data ../shared/sgd/sgd-train-dev.zip] [--split dev]
                                        [--nlu gold] [--workers 2] [--limit N]

The official script (google-research/schema_guided_dst/evaluate.py) lives on GitHub, which
this machine cannot reach. NVIDIA NeMo ships a port of it (Apache-2.0, "adapted from the
original implementation", rapidfuzz in place of fuzzywuzzy) on PyPI; this script downloads
that wheel with pip, runs its `get_metrics()` on the predictions of a fresh `tod replay`,
and prints both sets of figures and their largest difference as JSON. Exit 1 when a
difference exceeds 1e-4. `--fuzzy` chooses the fuzzy match: `port` (default) leaves the
script unchanged (rapidfuzz ratio, not rounded); `whole-percent` rounds the ratio like
fuzzywuzzy's integer one (DSTC8's and tod's definition); `fuzzywuzzy` also lower-cases and
strips punctuation first, as fuzzywuzzy's default processing does.
"""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from tod_runtime.data.sgd import open_split

ROOT = Path(__file__).resolve().parents[1]
NEMO_WHEEL = "nemo_toolkit==1.20.0"
PORTED = {
    "nemo/collections/nlp/metrics/sgd_metrics.py": "sgd_metrics.py",
    "nemo/collections/nlp/data/dialogue/sgd/evaluate.py": "evaluate.py",
}
METRICS = (
    "joint_goal_accuracy",
    "average_goal_accuracy",
    "active_intent_accuracy",
    "requested_slots_f1",
)
TOLERANCE = 1e-4


def fetch_port(dest: Path) -> None:
    """Download the NeMo wheel and unpack the two evaluation modules into ``dest``."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(dest), NEMO_WHEEL],
        check=True,
    )
    wheel = next(dest.glob("nemo_toolkit-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        for member, name in PORTED.items():
            source = archive.read(member).decode()
            # The only NeMo imports: its metrics module and its logger.
            source = source.replace(
                "from nemo.collections.nlp.metrics.sgd_metrics import", "from sgd_metrics import"
            )
            source = source.replace("from nemo.utils import logging", "import logging")
            (dest / name).write_text(source)


def write_ground_truth(data: str, split: str, dest: Path) -> Path:
    """Lay the split and train/schema.json out as the official script expects them."""
    dest.mkdir()
    for name in (split, "train"):
        part = open_split(data, name)
        (dest / name).mkdir(exist_ok=True)
        files = ["schema.json"] + (part.dialogue_files() if name == split else [])
        for file in files:
            (dest / name / file).write_text(json.dumps(part.read_raw(file)))
    return dest


def official_figures(
    port: Path, predictions: Path, truth: Path, split: str, fuzzy: str
) -> dict[str, float]:
    sys.path.insert(0, str(port))
    evaluate = importlib.import_module("evaluate")
    sgd_metrics = importlib.import_module("sgd_metrics")
    from rapidfuzz import fuzz, utils

    if fuzzy == "whole-percent":
        sgd_metrics.fuzzy_string_match = lambda a, b: round(fuzz.token_sort_ratio(a, b)) / 100.0
    elif fuzzy == "fuzzywuzzy":
        sgd_metrics.fuzzy_string_match = lambda a, b: (
            round(fuzz.token_sort_ratio(a, b, processor=utils.default_process)) / 100.0
        )
    seen = evaluate.get_in_domain_services(
        str(truth / split / "schema.json"),
        evaluate.get_service_set(str(truth / "train" / "schema.json")),
    )
    schemas = {
        s["service_name"]: s for s in json.loads((truth / split / "schema.json").read_text())
    }
    ref = evaluate.get_dataset_as_dict(str(truth / split / "dialogues_*.json"))
    hyp = evaluate.get_dataset_as_dict(str(predictions / "*.json"))
    aggregate: dict[str, Any]
    aggregate, _ = evaluate.get_metrics(ref, hyp, schemas, seen, False, True)
    overall = aggregate[evaluate.ALL_SERVICES]
    # The script reports percentages rounded to two decimals, i.e. to 1e-4 as a fraction.
    return {m: round(overall[m] / 100.0, 4) for m in METRICS}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "sgd" / "sgd-train-dev.zip"))
    parser.add_argument("--split", default="dev")
    parser.add_argument("--nlu", default="gold")
    parser.add_argument("--workers", default="2")
    parser.add_argument("--limit")
    parser.add_argument("--fuzzy", choices=("port", "whole-percent", "fuzzywuzzy"), default="port")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        predictions, report_path = work / "predictions", work / "report.json"
        command = [
            sys.executable,
            "-m",
            "tod_runtime.cli",
            "replay",
            args.data,
            "--split",
            args.split,
        ]
        command += ["--nlu", args.nlu, "--workers", args.workers]
        command += ["--predictions", str(predictions), "--report", str(report_path)]
        if args.limit:
            command += ["--limit", args.limit]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        ours = {m: json.loads(report_path.read_text())["metrics"][m] for m in METRICS}
        (work / "port").mkdir()
        fetch_port(work / "port")
        truth = write_ground_truth(args.data, args.split, work / "truth")
        theirs = official_figures(work / "port", predictions, truth, args.split, args.fuzzy)
    difference = max(abs(ours[m] - theirs[m]) for m in METRICS)
    print(
        json.dumps(
            {
                "split": args.split,
                "nlu": args.nlu,
                "fuzzy": args.fuzzy,
                "tod": ours,
                "dstc8_script": theirs,
                "max_difference": round(difference, 7),
                "within_1e-4": difference <= TOLERANCE,
            }
        )
    )
    sys.exit(0 if difference <= TOLERANCE else 1)


if __name__ == "__main__":
    main()
