"""A fold of SGD train's services held out of the NLU, for the text-level simulation: train's
services are seen by the shipped NLU, so their success says little of a service never seen.

    python scripts/sim_holdout.py SGD_ZIP OUT [--held Buses_2,Flights_2,...]

writes OUT/without/train (train without any dialogue naming a held-out service, their schemas
left out: what the NLU is trained on), OUT/held/train (train's dialogues with only held-out
services: what the simulation's backend and goals come from) and OUT/config.toml (the NLU
model OUT/nlu/nlu.npz), then prints the two commands to run (docs/simulate.md):

    tod train nlu OUT/without --out OUT/nlu --workers 1
    tod simulate --services OUT/held:train --config OUT/config.toml --level text ...
"""

from __future__ import annotations

import argparse
import json
import zipfile
from pathlib import Path

HELD = "Buses_2,Flights_2,Hotels_3,Music_2,RentalCars_2,RideSharing_2,Services_3"


def write(folder: Path, schema: list[dict[str, object]], files: list[list[object]]) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "schema.json").write_text(json.dumps(schema))
    kept = [f for f in files if f]
    for i, dialogues in enumerate(kept, start=1):
        (folder / f"dialogues_{i:03d}.json").write_text(json.dumps(dialogues))
    return sum(len(f) for f in kept)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sgd_zip")
    parser.add_argument("out")
    parser.add_argument("--held", default=HELD, help="comma-separated service names")
    args = parser.parse_args()
    held, out = set(args.held.split(",")), Path(args.out)
    archive = zipfile.ZipFile(args.sgd_zip)
    names = sorted(
        n
        for n in archive.namelist()
        if "/train/" in n and n.endswith(".json") and "/sgd_x/" not in n  # not a variant's schema
    )
    schema = json.loads(archive.read(next(n for n in names if n.endswith("/schema.json"))))
    without: list[list[object]] = []
    only: list[list[object]] = []
    for name in (n for n in names if "/dialogues_" in n):
        dialogues = json.loads(archive.read(name))
        without.append([d for d in dialogues if not set(d["services"]) & held])
        only.append([d for d in dialogues if set(d["services"]) <= held])
    kept = [s for s in schema if s["service_name"] not in held]
    n_without = write(out / "without" / "train", kept, without)
    n_held = write(out / "held" / "train", [s for s in schema if s["service_name"] in held], only)
    (out / "config.toml").write_text(f'[options.nlu]\nmodel = "{out.resolve()}/nlu/nlu.npz"\n')
    print(f"{n_without} dialogues to train on, {n_held} with only the held-out services")
    print(f"tod train nlu {out}/without --out {out}/nlu --workers 1")
    print(
        f"tod simulate --services {out}/held:train --config {out}/config.toml --level text "
        "--dialogues 500 --workers 1"
    )


if __name__ == "__main__":
    main()
