"""Recount ``tod_runtime/simulate/request_rates.json`` from SGD train: how often SGD's users ask
about a result slot, per slot role (see ``tod_runtime.simulate.requests``).

    python scripts/request_rates.py SGD_DIR_OR_ZIP [--split train] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tod_runtime.data.sgd import open_split
from tod_runtime.simulate.requests import RATES_FILE, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("sgd")
    parser.add_argument("--split", default="train")
    parser.add_argument("--out", default=str(RATES_FILE))
    args = parser.parse_args()
    split = open_split(args.sgd, args.split)
    schemas = split.schemas()
    counts = count(split.dialogues(), {s: schemas[s] for s in schemas})
    data = {
        "source": f"SGD {args.split}: [asked, dialogues] per slot role (booked flag, value "
        "type, description head); scripts/request_rates.py",
        "counts": counts,
    }
    rows = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in counts.items())
    text = f'{{\n "source": {json.dumps(data["source"])},\n "counts": {{\n{rows}\n }}\n}}\n'
    Path(args.out).write_text(text, encoding="utf-8")
    print(f"{len(counts)} roles -> {args.out}")


if __name__ == "__main__":
    main()
