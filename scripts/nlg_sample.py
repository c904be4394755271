"""Replies to read: a random sample of system frames, each realised by the default generator
with the recording's values in the backend's form (its canonical values), beside what the
recording's system said, and the defects ``nlg.check`` finds in it (docs/nlg.md, "Read as a
user would"). The frames are those of the split's services not in train (dev's unseen ones)
or, for train itself, of all its services; ``--services A,B`` takes those services instead
(to check a change on services that have their own templates).

    python scripts/nlg_sample.py SGD_DIR_OR_ZIP [--split dev] [--n 100] [--seed 0]
        [--services NAME,NAME]
"""

from __future__ import annotations

import argparse
import random

from tod_runtime.data.sgd import open_split, sgd_train_services
from tod_runtime.dialogue.models import Action
from tod_runtime.nlg.check import defects
from tod_runtime.nlg.template import TemplateGenerator
from tod_runtime.plugins import ComponentContext


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("sgd")
    parser.add_argument("--split", default="dev")
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--services", default="", help="comma-separated services to sample")
    args = parser.parse_args()
    split = open_split(args.sgd, args.split)
    schemas = split.schemas()
    chosen = {s for s in args.services.split(",") if s}
    seen = set() if args.split == "train" else sgd_train_services()

    def wanted(service: str) -> bool:
        return service in chosen if chosen else service not in seen

    frames: list[tuple[str, list[Action], str]] = []
    for file in split.dialogue_files():
        for dialogue in split.read_raw(file):
            for turn in dialogue["turns"]:
                if turn["speaker"] != "SYSTEM":
                    continue
                for frame in turn["frames"]:
                    if not wanted(frame["service"]):
                        continue
                    acts = [
                        Action(
                            act=a["act"],
                            slot=a["slot"],
                            values=a["canonical_values"] or a["values"],
                            canonical_values=a["canonical_values"],
                        )
                        for a in frame["actions"]
                    ]
                    frames.append((frame["service"], acts, turn["utterance"]))
    ctx = ComponentContext(schemas=schemas, backend=None, options={})
    nlg = TemplateGenerator(ctx)
    sample = random.Random(args.seed).sample(frames, min(args.n, len(frames)))
    for i, (service, acts, reference) in enumerate(sample, 1):
        text = nlg.realise(service, acts)
        found = defects(text, acts, schemas.get(service), nlg.realiser.plurals)
        print(f"{i:3d} {service} {' '.join(str(a) for a in acts)}")
        print(f"    reply: {text}" + (f"  [{', '.join(found)}]" if found else ""))
        print(f"    said:  {reference}")


if __name__ == "__main__":
    main()
