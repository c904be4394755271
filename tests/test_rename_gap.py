"""Issue 9: no stage reads a service, intent or slot name. A subset of SGD dev is written twice,
as it is and with every name made opaque (``tod data rename``), and replayed: joint goal
accuracy must move by less than 0.005, with the gold user acts and with the text pipeline.
(``python benchmarks/rename_gap.py --all`` measures the whole of dev.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SGD_ZIP, require_shared

from tod_runtime.data.rename import Renaming, rename_split
from tod_runtime.data.sgd import open_split
from tod_runtime.replay.report import build_report
from tod_runtime.replay.runner import ReplayOptions, run_replay

# One single-service file and four multi-service ones (the values carried across services
# are where names were read): 64 dialogues of each, 320 in all.
FILES = [f"dialogues_{n:03d}.json" for n in (3, 8, 12, 16, 20)]
PER_FILE = 64
GAP = 0.005

pytestmark = pytest.mark.shared


@pytest.fixture(scope="module")
def copies(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    split = open_split(require_shared(SGD_ZIP), "dev")
    original = tmp_path_factory.mktemp("original")
    renamed = tmp_path_factory.mktemp("renamed")
    rename_split(split, original, files=FILES, limit=PER_FILE, renaming=Renaming())
    rename_split(split, renamed, files=FILES, limit=PER_FILE)
    return original, renamed


def joint_goal(root: Path, nlu: str) -> float:
    options = ReplayOptions(root=str(root), split="dev", nlu=nlu)
    value = build_report(options, run_replay(options)).metrics.get("joint_goal_accuracy")
    assert value is not None
    return value


def test_gold_acts_do_not_read_names(copies: tuple[Path, Path]) -> None:
    original, renamed = (joint_goal(root, "gold") for root in copies)
    assert original > 0.9
    assert abs(original - renamed) < GAP, (original, renamed)


@pytest.mark.parametrize("nlu", ["learned"])
def test_the_text_pipeline_does_not_read_names(copies: tuple[Path, Path], nlu: str) -> None:
    original, renamed = (joint_goal(root, nlu) for root in copies)
    assert abs(original - renamed) < GAP, (original, renamed)
