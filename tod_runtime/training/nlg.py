"""``tod train nlg``: mine system and user templates from SGD train (``nlg.mine``) and write
them as template files (``nlg.store``): ``DIR/system/`` and ``DIR/user/``, one file per
service and ``_generic.json``, plus ``DIR/nlg.json`` (what was mined, rejected and measured).

``--cv K`` first measures the system templates with services held out: the train services
are shuffled by ``--seed`` into K folds; each fold's services are left out of mining and
their system turns are generated from their annotated acts, as replay does, and scored with
corpus BLEU and the slot error rate (``metrics.acts``). ``--holdout N`` measures
them for seen services: every Nth train file is left out of a second mining and its system
turns are generated. That is how the choices (``MineSettings``, the generator's
``CHOICES``) were tuned; dev is only the final check.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from tod_runtime.data.sgd import open_split
from tod_runtime.dialogue.models import Action
from tod_runtime.files import atomic_write, check_apart, check_output_dir
from tod_runtime.metrics.acts import corpus_bleu, slot_errors
from tod_runtime.nlg.compose import compose_system
from tod_runtime.nlg.mine import Mined, MineSettings, Table, mine_dialogues
from tod_runtime.nlg.neighbours import (
    owned_words,
    profile_of,
    service_words,
    template_words,
    vocabulary,
    word_uses,
)
from tod_runtime.nlg.realise import Realiser
from tod_runtime.nlg.store import SIDES, TemplateSet, write_side
from tod_runtime.nlg.template import CHOICES
from tod_runtime.progress import progress
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.training.common import service_folds

EvalTurn = tuple[str, list[tuple[str, list[Action]]], str]  # service, frames, reference


def add_train_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="SGD_DIR", help="SGD dataset folder or zip (train split)")
    parser.add_argument("--out", metavar="DIR", required=True, help="write DIR/system, DIR/user")
    parser.add_argument("--seed", type=int, default=0, help="seed of the --cv folds")
    parser.add_argument("--cv", type=int, default=0, metavar="K", help="K folds over services")
    parser.add_argument(
        "--holdout", type=int, default=0, metavar="N", help="score every Nth train file"
    )
    parser.add_argument("--split", default="train", help=argparse.SUPPRESS)
    parser.add_argument("--choices", type=int, default=CHOICES, help=argparse.SUPPRESS)
    parser.add_argument("--force", action="store_true", help="replace templates in --out")


def score(
    realiser: Realiser, schemas: dict[str, ServiceSchema], turns: Sequence[EvalTurn]
) -> dict[str, Any]:
    """BLEU and slot error rate of ``turns`` generated from their annotated acts."""
    hyps, refs = [], []
    errors = values = 0
    for _, frames, reference in turns:
        text = " ".join(realiser.realise(s, schemas.get(s), acts) for s, acts in frames)
        e, v = slot_errors([a for _, acts in frames for a in acts], text)
        errors, values = errors + e, values + v
        hyps.append(text)
        refs.append(reference)
    return {
        "turns": len(turns),
        "bleu": round(corpus_bleu(hyps, refs), 4),
        "slot_error_rate": round(errors / max(values, 1), 6),
    }


def template_set(
    mined: Mined,
    settings: MineSettings,
    schemas: dict[str, ServiceSchema],
    exclude: frozenset[str] = frozenset(),
    sides: Sequence[Mined] = (),
) -> TemplateSet:
    """One side's tables from ``mined``, with its service words and owned words (those
    judged on the words of ``sides``, the turns of both sides, and listed when this side's
    tables say them)."""
    services, generic = mined.tables(settings, exclude)
    profiles = {s: profile_of(schemas[s]) for s in services if s in schemas}
    vocabularies = {s: vocabulary(s, p) for s, p in profiles.items()}
    usage = {s: {t: n for (_, t), n in mined.services[s].items()} for s in profiles}
    known = service_words(vocabularies, usage)
    uses: dict[str, Counter[str]] = {}
    for side in sides or (mined,):
        for service, counts in side.services.items():
            if service not in exclude:
                said: Counter[str] = Counter()
                for (_, template), n in counts.items():
                    said[template] += n
                uses.setdefault(service, Counter()).update(word_uses(said))
    carried = {w for table in (*services.values(), generic) for w in _table_words(table)}
    owned = {w: o for w, o in owned_words(uses, known).items() if w in carried}
    return TemplateSet(services, generic, profiles, known, owned)


def _table_words(table: Table) -> set[str]:
    return {w for entries in table.values() for t, _ in entries for w in template_words(t)}


def cross_validate(
    mined: Mapping[str, Mined],
    settings: MineSettings,
    choices: int,
    schemas: dict[str, ServiceSchema],
    turns: Sequence[EvalTurn],
    k: int,
    seed: int,
) -> dict[str, Any]:
    """K folds over the services: each fold's system turns said with the system templates
    of ``mined`` (by side) without its services."""
    per_fold = []
    sides = list(mined.values())
    hyps_all: list[EvalTurn] = []
    for held in service_folds(schemas, k, seed):
        templates = template_set(mined["system"], settings, schemas, exclude=held, sides=sides)
        realiser = Realiser(templates, compose_system, choices=choices)
        fold_turns = [t for t in turns if t[0] in held]
        per_fold.append({"services": sorted(held), **score(realiser, schemas, fold_turns)})
        hyps_all += fold_turns
    bleu = sum(f["bleu"] * f["turns"] for f in per_fold) / max(len(hyps_all), 1)
    ser = sum(f["slot_error_rate"] * f["turns"] for f in per_fold) / max(len(hyps_all), 1)
    return {
        "folds": per_fold,
        "turns": len(hyps_all),
        "bleu_mean": round(bleu, 4),
        "slot_error_rate_mean": round(ser, 6),
    }


def _eval_turns(dialogues: Iterable[dict[str, Any]]) -> list[EvalTurn]:
    out: list[EvalTurn] = []
    for dialogue in dialogues:
        for turn in dialogue["turns"]:
            if turn["speaker"] != "SYSTEM" or not turn["frames"]:
                continue
            frames = [
                (f["service"], [Action.model_validate(a) for a in f["actions"]])
                for f in turn["frames"]
            ]
            out.append((frames[0][0], frames, turn["utterance"]))
    return out


def run_train_nlg(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    out = Path(args.out)
    check_apart(out, [args.path], "--out folder")
    for side in SIDES:
        check_output_dir(out / side, force=args.force, owned="*.json", what=f"{side} folder")
    split = open_split(args.path, args.split)
    schemas = dict(split.schemas())
    settings = MineSettings()
    # the user side keeps the per-key choice: the corpus-level one was tuned on the system's
    # replies (the user simulator's wording is measured by its own task success)
    side_settings = {"system": settings, "user": MineSettings(corpus=False)}
    mined = {side: Mined() for side in SIDES}
    turns: list[EvalTurn] = []
    rest, held_turns = Mined(), []  # --holdout: mined without every Nth file, and its turns
    files = split.dialogue_files()
    with progress("mine templates", len(files)) as bar:
        for index, file in enumerate(files):
            dialogues = split.read_raw(file)
            mine_dialogues(mined["system"], dialogues, schemas, "SYSTEM")
            mine_dialogues(mined["user"], dialogues, schemas, "USER")
            if args.cv:
                turns += _eval_turns(dialogues)
            if args.holdout and index % args.holdout == 0:
                held_turns += _eval_turns(dialogues)
            elif args.holdout:
                mine_dialogues(rest, dialogues, schemas, "SYSTEM")
            bar.advance()
    report: dict[str, Any] = {"settings": asdict(settings), "choices": args.choices}
    report["user_settings"] = asdict(side_settings["user"])
    report["seed"] = args.seed
    for side in SIDES:
        templates = template_set(mined[side], side_settings[side], schemas, sides=[*mined.values()])
        write_side(out, side, templates)
        report[side] = {
            "turns": mined[side].turns,
            "kept": mined[side].kept,
            "rejected": dict(mined[side].rejected),
            "keys": sum(len(t) for t in templates.services.values()),
            "generic_keys": len(templates.generic),
        }
    if args.cv:
        report["cv"] = cross_validate(
            mined, settings, args.choices, schemas, turns, args.cv, args.seed
        )
    if args.holdout:
        seen = template_set(rest, settings, schemas)
        realiser = Realiser(seen, compose_system, choices=args.choices)
        report["holdout"] = score(realiser, schemas, held_turns)
    report["seconds"] = round(time.perf_counter() - start, 1)
    atomic_write(out / "nlg.json", json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))
    return 0
