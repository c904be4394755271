"""Recount ``tod_runtime/simulate/rates.json`` from SGD train: how often SGD's users ask about
a result slot and say an optional constraint, per slot role (``tod_runtime.simulate.rates``).

    python scripts/user_rates.py SGD_DIR_OR_ZIP [--split train] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tod_runtime.data.sgd import open_split
from tod_runtime.simulate.rates import RATES_FILE, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("sgd")
    parser.add_argument("--split", default="train")
    parser.add_argument("--out", default=str(RATES_FILE))
    args = parser.parse_args()
    split = open_split(args.sgd, args.split)
    schemas = split.schemas()
    tables = count(split.dialogues(), {s: schemas[s] for s in schemas})
    source = f"SGD {args.split}: [hits, dialogues] per slot role; scripts/user_rates.py"
    parts = [f' "source": {json.dumps(source)}']
    for name, counts in tables.items():
        rows = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in counts.items())
        parts.append(f' "{name}": {{\n{rows}\n }}')
    Path(args.out).write_text("{\n" + ",\n".join(parts) + "\n}\n", encoding="utf-8")
    print(f"{sum(len(c) for c in tables.values())} role counts -> {args.out}")


if __name__ == "__main__":
    main()
