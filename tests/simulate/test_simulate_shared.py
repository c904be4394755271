"""``tod simulate`` on SGD dev's services (needs the shared SGD data)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tod_runtime.cli import main

pytestmark = pytest.mark.shared


def test_simulate_on_sgd_dev_with_realism(sgd_zip: Path, tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    source = f"{sgd_zip}:dev"
    assert (
        main(["simulate", "--services", source, "--dialogues", "20", "--report", str(report)]) == 0
    )
    data = json.loads(report.read_text())
    assert data["dialogues"] == 20 and data["success_rate"] >= 0.8, data["failures"]
    realism = data["realism"]
    assert realism["reference"].endswith(":dev") and realism["reference_dialogues"] > 1000
    assert {"INFORM", "REQUEST"} <= set(realism["user_acts"])
    shares = [v["simulated"] for v in realism["user_acts"].values()]
    assert abs(sum(shares) - 1) < 0.01
    assert realism["turns"]["reference"] > 0 and realism["turns"]["simulated"] > 0
