"""The replies behind replay's ``slot_error_rate``: every system turn of a split realised from
its gold acts exactly as replay realises it (the replay runtime's generator, each frame's acts,
the frames' texts joined), and each reply that misses a value of its acts or says a number no
value holds (``metrics.acts.slot_error_details``), with its acts and text. The totals are the
replay's: the same values, the same errors, so the same rate.

    python scripts/ser_errors.py SGD_DIR_OR_ZIP [--split dev] [--limit N] [--out FILE] [--all]

``--all`` lists every reply (one line each: dialogue, turn, acts, text), to compare two
versions of the generator with ``diff``.

Ends with the counts by act and by the kind of the missing value (a time, a date, an amount,
a number, words), to group the misses by cause.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from collections import Counter
from typing import TextIO

from tod_runtime.data.sgd import open_split
from tod_runtime.dialogue.models import Action
from tod_runtime.metrics.acts import slot_error_details
from tod_runtime.replay.runner import GOLD, ReplayOptions, replay_runtime

_KINDS = (
    ("time", re.compile(r"^\d{1,2}:\d{2}$|\b(am|pm)\b", re.I)),
    ("date", re.compile(r"^\d{4}-\d{2}-\d{2}$|day\b|\b(january|march|april|may|june)\b", re.I)),
    ("amount", re.compile(r"^\$?\d+(\.\d+)?$|dollar", re.I)),
    ("number", re.compile(r"\d")),
)


def kind(value: str) -> str:
    return next((name for name, pattern in _KINDS if pattern.search(value)), "words")


def _acts(actions: list[Action]) -> str:
    return " ".join(str(a) for a in actions)


async def run(
    sgd: str, split_name: str, limit: int | None, out: TextIO, every: bool = False
) -> None:
    options = ReplayOptions(root=sgd, split=split_name, nlu=GOLD)
    split = open_split(sgd, split_name)
    runtime = replay_runtime(options, split)
    await runtime.start()
    errors = values = replies = 0
    by_act: Counter[str] = Counter()
    by_kind: Counter[str] = Counter()
    invented: Counter[str] = Counter()
    try:
        for n, dialogue in enumerate(split.dialogues(schemas=runtime.schemas)):
            if limit is not None and n >= limit:
                break
            for index, turn in enumerate(dialogue.turns):
                if turn.speaker != "SYSTEM":
                    continue
                parts = [await runtime.pipeline.realise(f.service, f.actions) for f in turn.frames]
                actions = [a for f in turn.frames for a in f.actions]
                text = " ".join(parts)
                found = slot_error_details(actions, text)
                replies += 1
                errors += found.errors
                values += found.values
                if every:
                    print(f"{dialogue.dialogue_id} {index}\t{_acts(actions)}\t{text}", file=out)
                if every or not found.errors:
                    continue
                for value in found.missing:
                    act = next(a for a in actions if value in (a.values or a.canonical_values))
                    by_act[f"{act.act}({act.slot})"] += 1
                    by_kind[kind(value)] += 1
                invented.update(found.invented)
                services = ",".join(f.service for f in turn.frames)
                print(f"{dialogue.dialogue_id} turn {index} {services}", file=out)
                print(f"  acts:     {_acts(actions)}", file=out)
                print(f"  reply:    {text}", file=out)
                print(f"  recorded: {turn.utterance}", file=out)
                if found.missing:
                    print(f"  missing:  {found.missing}", file=out)
                if found.invented:
                    print(f"  invented: {found.invented}", file=out)
    finally:
        await runtime.close()
    rate = errors / values if values else 0.0
    print(
        f"\n{replies} replies, {values} values, {errors} errors, slot_error_rate {rate:.6f}",
        file=out,
    )
    print("missing by act:", file=out)
    for key, count in by_act.most_common():
        print(f"  {count:4d} {key}", file=out)
    print("missing by kind of value:", dict(by_kind.most_common()), file=out)
    print("invented numbers:", sum(invented.values()), dict(invented.most_common(20)), file=out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("sgd")
    parser.add_argument("--split", default="dev")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--out", default=None, help="write here instead of stdout")
    parser.add_argument("--all", action="store_true", help="list every reply, one a line")
    args = parser.parse_args()
    if args.out is None:
        asyncio.run(run(args.sgd, args.split, args.limit, sys.stdout, args.all))
        return
    with open(args.out, "w", encoding="utf-8") as out:
        asyncio.run(run(args.sgd, args.split, args.limit, out, args.all))


if __name__ == "__main__":
    main()
