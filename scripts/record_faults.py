"""Fault injection: kill a recording ``tod chat --record`` (SIGKILL, no clean-up) at random
moments and check that the record is a valid SGD split holding every completed turn, and
that it replays to the letter.

    python scripts/record_faults.py [--runs 100] [--seed 0]

A turn is complete when its reply was printed: chat writes the record before it prints.
tests/test_record_faults.py runs a handful of these.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVICES = ROOT / "services"
TURNS = [
    "I want to find a restaurant",
    "in Austin",
    "italian food please",
    "yes, book a table for 2",
    "at 7 pm tomorrow",
    "yes",
    "I also need a hotel in Austin",
    "what is the address?",
]
SCRIPT = TURNS * 6  # 48 user turns


@dataclass
class Outcome:
    point: float  # the fraction of the turns replied to when the kill was sent
    replies: int  # turns completed before the kill (replies printed)
    recorded: int  # user turns in the record (0: no record yet)
    replays: bool | None  # the record replays with --expect-exact (None: nothing recorded)
    problem: str | None  # why this run failed the check

    @property
    def ok(self) -> bool:
        return self.problem is None


def _env(work: Path) -> dict[str, str]:
    env = os.environ | {"HOME": str(work / "home"), "XDG_STATE_HOME": str(work / "state")}
    env.pop("TOD_DEBUG", None)
    return env


def kill_at(
    work: Path, point: float, *, jitter: float = 0.0, tod: list[str] | None = None
) -> Outcome:
    """Run a scripted recording chat in ``work``, SIGKILL it once it has replied to the
    ``point`` fraction (0..1) of the script's turns, ``jitter`` seconds later (so the kill
    lands anywhere inside a turn, its record write included), and check the record."""
    tod = tod or [sys.executable, "-m", "tod_runtime.cli"]
    script = work / "turns.txt"
    script.write_text("\n".join(SCRIPT) + "\n")
    rec = work / "rec"
    chat = subprocess.Popen(
        [*tod, "chat", "--nlu", "rules", "--script", str(script), "--record", str(rec)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=_env(work),
    )
    assert chat.stdout is not None
    target = int(point * len(SCRIPT))
    seen = []
    while len(seen) < target and (line := chat.stdout.readline()):
        seen.append(line)
    time.sleep(jitter)
    chat.kill()
    out, _ = chat.communicate(timeout=60)
    replies = sum(line.startswith("bot> ") for line in [*seen, *out.splitlines()])
    files = sorted(rec.glob("dialogues_*.json")) if rec.is_dir() else []
    if not files:
        problem = None if replies == 0 else f"{replies} replies printed but no record"
        return Outcome(point, replies, 0, None, problem)
    try:
        [dialogue] = json.loads(files[0].read_text(encoding="utf-8"))
        said = [t["utterance"] for t in dialogue["turns"] if t["speaker"] == "USER"]
    except (ValueError, KeyError) as exc:
        return Outcome(point, replies, 0, False, f"the record is not valid: {exc!r}")
    if said != SCRIPT[: len(said)]:
        return Outcome(point, replies, len(said), None, "the record's turns are not the script's")
    if len(said) < replies:
        return Outcome(point, replies, len(said), None, "a completed turn is missing")
    replay = subprocess.run(
        [
            *tod,
            "replay",
            str(rec),
            "--services",
            str(SERVICES),
            "--nlu",
            "rules",
            "--expect-exact",
        ],  # fmt: skip
        capture_output=True,
        text=True,
        env=_env(work),
        timeout=300,
    )
    problem = None if replay.returncode == 0 else f"replay: {replay.stderr.strip()[:200]}"
    return Outcome(point, replies, len(said), replay.returncode == 0, problem)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    tod = [
        shutil.which("tod") or sys.executable,
        *([] if shutil.which("tod") else ["-m", "tod_runtime.cli"]),
    ]
    outcomes = []
    for run in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="tod-faults-") as tmp:
            point, jitter = rng.random(), rng.uniform(0, 0.02)
            outcome = kill_at(Path(tmp), point, jitter=jitter, tod=tod)
        outcomes.append(outcome)
        status = "ok" if outcome.ok else f"FAIL {outcome.problem}"
        print(
            f"run {run + 1:3d} kill at {outcome.point:4.0%}: {outcome.replies:2d} replies, "
            f"{outcome.recorded:2d} turns recorded, replays={outcome.replays} {status}"
        )
    failed = sum(not o.ok for o in outcomes)
    summary = {
        "runs": len(outcomes),
        "failed": failed,
        "killed_before_any_turn": sum(o.recorded == 0 for o in outcomes),
        "killed_mid_dialogue": sum(0 < o.recorded < len(SCRIPT) for o in outcomes),
        "killed_after_the_last_turn": sum(o.recorded == len(SCRIPT) for o in outcomes),
        "turns_recorded_max": max((o.recorded for o in outcomes), default=0),
    }
    print(json.dumps(summary))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
