"""Benchmark: how often value normalisation turns SGD's state values into the values SGD's
service calls carry; prints JSON.

    python benchmarks/normalise_sgd.py [--data ../shared/sgd/sgd-train-dev.zip] [--split train]
                                       [--failures 20]

For every parameter of every recorded service call, the value the user's state held for that
slot just before (its first value: what the user said, "next Friday", "half past 6 in the
evening") is normalised by the slot's kind against the SGD backend's reference date and
compared with the call's value (case-insensitively). Reported per kind: `pairs`, `exact`
(normalised == call value), `unchanged` (the state already held the call's value), and the
most frequent `failures`. Rules were written and checked on train; dev is the check.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from tod_runtime.backends.sgd_tables import SGD_REFERENCE_DATE
from tod_runtime.data.sgd import open_split
from tod_runtime.values.normalise import normalise_value, slot_kind

ROOT = Path(__file__).resolve().parents[1]


def measure(data: str, split_name: str, top: int) -> dict[str, Any]:
    split = open_split(data, split_name)
    schemas = split.schemas()
    pairs: Counter[str] = Counter()
    exact: Counter[str] = Counter()
    unchanged: Counter[str] = Counter()
    failures: dict[str, Counter[tuple[str, str, str]]] = {}
    for file in split.dialogue_files():
        for dialogue in split.read_raw(file):
            state: dict[str, dict[str, list[str]]] = {}
            for turn in dialogue["turns"]:
                for frame in turn["frames"]:
                    if turn["speaker"] == "USER":
                        state[frame["service"]] = frame["state"]["slot_values"]
                        continue
                    call = frame.get("service_call")
                    if not call or frame["service"] not in schemas:
                        continue
                    schema = schemas[frame["service"]]
                    for slot, want in call["parameters"].items():
                        said = state.get(frame["service"], {}).get(slot)
                        if not said:
                            continue
                        kind = slot_kind(schema, slot)
                        got = normalise_value(said[0], kind, SGD_REFERENCE_DATE)
                        pairs[kind] += 1
                        unchanged[kind] += said[0].lower() == want.lower()
                        if got.lower() == want.lower():
                            exact[kind] += 1
                        else:
                            failures.setdefault(kind, Counter())[(said[0], got, want)] += 1
    return {
        "split": split_name,
        "kinds": {
            kind: {
                "pairs": n,
                "exact": round(exact[kind] / n, 4),
                "unchanged": round(unchanged[kind] / n, 4),
                "failures": [
                    {"said": s, "normalised": g, "call": w, "count": c}
                    for (s, g, w), c in failures.get(kind, Counter()).most_common(top)
                ],
            }
            for kind, n in sorted(pairs.items())
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "sgd" / "sgd-train-dev.zip"))
    parser.add_argument("--split", default="train")
    parser.add_argument("--failures", type=int, default=20)
    args = parser.parse_args()
    print(json.dumps(measure(args.data, args.split, args.failures), indent=1))


if __name__ == "__main__":
    main()
