"""Count the tracker's gold-acts errors on SGD train's held-out services by class.

Runs the carry-over CV of ``tod train dst --cv K`` (the same folds and fold models), and
classifies every slot error at its *onset* (the first turn of a frame where the slot goes
wrong, or where its error changes): a stale error carried along later turns is counted once.
Classes come from the moment (the frame opens, its intent changes, same intent), the kind
(miss, wrong value, false fill) and where the gold value can be found (the user's acts this
turn, the system's last acts in the frame, another frame's state, what the system told in
another service, a service call). Train only: never run it on dev.

    python scripts/dst_cv_errors.py SGD_ZIP [--folds-dir DIR] [--every N] [--examples N]
                                            [--float16] [--holdout NPZ]
                                            [--dialogue-folds DIR] [--beside-unseen DIR]

Prints the CV's joint goal (the same figure as ``tod train dst --cv 5``; 2.5 min on one core),
then the classes by slot-error turns (onsets, turns the errors lasted, class) with examples,
then the onsets by service, slot, kind and moment. ``--folds-dir`` caches the fold models
(``fold{i}.npy``, float32) so tracker changes that do not touch the carry rows can be
measured without refitting; delete it when the rows or features change. ``--float16``
rounds the weights as the shipped ``carry.npz`` stores them. ``--holdout NPZ``: instead of
the CV, the dialogue-held-out check of ``benchmarks/dst_holdout.py`` (every service of the
held-out files scored, with the model fitted without those files; NPZ is reused when it
exists, else the fit is saved there; the same joint goal as that benchmark).
``--dialogue-folds DIR``: seen services on more dialogues than the held-out files: train's
other multi-domain files dealt into two folds, each scored with a model fitted on the rest of
train (neither fold's files nor the held-out files); fold models cached in DIR as
``--folds-dir`` does. ``--beside-unseen DIR``: a seen service whose sources are of a service
the model never saw: for each of the K folds over train's services, the model fitted without
the fold's services and without the held-out files of ``--holdout``; scored on the frames of
the *other* services in those files' dialogues that hold a service of the fold (models cached
in DIR). As ``tod train dst``, every model also learns the reworded model from SGD-X's
rewordings of train when the dataset has them; ``--sgd-only``: not (``tod train dst
--sgd-only``; use other cache folders for the two).
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

import numpy as np

from tod_runtime.data.sgd import open_split
from tod_runtime.dialogue.context import DialogueState
from tod_runtime.dialogue.history import History
from tod_runtime.dialogue.models import DONTCARE
from tod_runtime.dst.learned.model import CarryModel, load_model
from tod_runtime.dst.rules import track
from tod_runtime.metrics.state import frame_state_metrics
from tod_runtime.metrics.state_errors import frame_errors
from tod_runtime.training.common import reworded_variants, service_folds
from tod_runtime.training.dst import dialogue_rows, fit_rows, holdout_files


def fold_models(
    split, k: int, seed: int, cache: Path | None, reworded: list
) -> list[tuple[frozenset[str], CarryModel]]:
    folds = service_folds(list(split.schemas()), k, seed)
    schemas = split.schemas()

    def known_config(held: frozenset[str]) -> dict:
        return fit_rows({}, held, schemas, reworded).config

    if cache is not None and all((cache / f"fold{i}.npy").exists() for i in range(k)):
        return [
            (held, CarryModel(np.load(cache / f"fold{i}.npy"), known_config(held)))
            for i, held in enumerate(folds)
        ]
    counts: dict = {}
    for file in split.dialogue_files():
        for dialogue in split.read_file(file):
            dialogue_rows(dialogue, schemas, counts, reworded)
    out = []
    for i, held in enumerate(folds):
        model = fit_rows(counts, held, schemas, reworded)
        if cache is not None:
            cache.mkdir(parents=True, exist_ok=True)
            np.save(cache / f"fold{i}.npy", model.weights.astype(np.float32))
        out.append((held, model))
    return out


def holdout_model(split, path: Path, reworded: list) -> CarryModel:
    if not path.exists():
        held = set(holdout_files(split))
        schemas = split.schemas()
        counts: dict = {}
        for file in split.dialogue_files():
            if file not in held:
                for dialogue in split.read_file(file):
                    dialogue_rows(dialogue, schemas, counts, reworded)
        fit_rows(counts, schemas=schemas, reworded=reworded).save(path)
    return load_model(str(path))


def dialogue_fold_models(split, cache: Path, reworded: list) -> list[tuple[list[str], CarryModel]]:
    """Two folds of train's multi-domain files outside ``holdout_files``, each with the model
    fitted without its files and the held-out ones."""
    schemas = split.schemas()
    held = set(holdout_files(split))
    multi = [
        f
        for f in split.dialogue_files()
        if f not in held and any(len(d["services"]) > 1 for d in split.read_raw(f))
    ]
    out = []
    for k in range(2):
        part = multi[k::2]
        path = cache / f"dialogue-fold{k}.npy"
        if not path.exists():
            counts: dict = {}
            for file in split.dialogue_files():
                if file not in held and file not in part:
                    for dialogue in split.read_file(file):
                        dialogue_rows(dialogue, schemas, counts, reworded)
            cache.mkdir(parents=True, exist_ok=True)
            np.save(path, fit_rows(counts, reworded=reworded).weights.astype(np.float32))
        config = fit_rows({}, schemas=schemas, reworded=reworded).config
        out.append((part, CarryModel(np.load(path), config)))
    return out


def beside_unseen_models(
    split, k: int, seed: int, cache: Path, reworded: list
) -> list[tuple[frozenset[str], CarryModel]]:
    """For each fold over the services, the model fitted without its services and without
    the held-out files."""
    schemas = split.schemas()
    folds = service_folds(list(schemas), k, seed)
    held_files = set(holdout_files(split))
    counts: dict = {}
    if not all((cache / f"beside{i}.npy").exists() for i in range(k)):
        for file in split.dialogue_files():
            if file not in held_files:
                for dialogue in split.read_file(file):
                    dialogue_rows(dialogue, schemas, counts, reworded)
    out = []
    for i, held in enumerate(folds):
        path = cache / f"beside{i}.npy"
        if not path.exists():
            cache.mkdir(parents=True, exist_ok=True)
            np.save(path, fit_rows(counts, held, reworded=reworded).weights.astype(np.float32))
        out.append((held, CarryModel(np.load(path), fit_rows({}, held, schemas, reworded).config)))
    return out


def low(values) -> set[str]:
    return {v.strip().lower() for v in values}


def classify(err, turn_acts, sys_acts, moment, state_before, history, service, schemas, call):
    g = low(err.expected)
    tags = [moment, err.kind]
    if err.slot == "intent" or err.slot == "requested":
        return (err.slot, moment, err.kind)
    if DONTCARE in g:
        tags.append("gold=dontcare")
    user = [a for a in turn_acts if a.slot == err.slot]
    if user:
        tags.append("user:" + "+".join(sorted({a.act for a in user})))
    sysa = [a for a in sys_acts if a.slot == err.slot]
    if sysa:
        tags.append("sys:" + "+".join(sorted({a.act for a in sysa})))
    elif sys_acts:
        tags.append(
            "sysother:"
            + "+".join(
                sorted(
                    {a.act + ("=v" if a.act == "REQUEST" and a.values else "") for a in sys_acts}
                )
            )
        )
    if err.kind != "false fill":
        where = []
        for other, frame in state_before.items():
            if other != service:
                for vals in frame.slot_values.values():
                    if g & low(vals):
                        where.append("otherstate")
        for other in state_before:
            if other != service:
                for spec in schemas[other].slots:
                    told = history.last_told(other, lambda s, n=spec.name: s == n)
                    if g & low(told):
                        where.append("othertold")
        if call is not None and g & low([call.get(err.slot, "")]):
            where.append("call")
        if not where:
            where.append("nowhere")
        tags.append("src:" + "+".join(sorted(set(where))))
    return tuple(tags)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("path")
    parser.add_argument("--folds-dir")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--every", type=int, default=1, help="every Nth dialogue file")
    parser.add_argument("--examples", type=int, default=2)
    parser.add_argument("--top", type=int, default=60)
    parser.add_argument(
        "--float16", action="store_true", help="round the weights as carry.npz does"
    )
    parser.add_argument("--holdout", metavar="NPZ", help="the dialogue-held-out check instead")
    parser.add_argument("--dialogue-folds", metavar="DIR", help="two dialogue folds instead")
    parser.add_argument(
        "--beside-unseen", metavar="DIR", help="seen services beside a held-out one instead"
    )
    parser.add_argument(
        "--sgd-only", action="store_true", help="no reworded model (SGD-X's rewordings)"
    )
    args = parser.parse_args()
    split = open_split(args.path, "train")
    reworded = [] if args.sgd_only else reworded_variants(split)
    schemas = split.schemas()
    every = frozenset(schemas)
    beside = bool(args.beside_unseen)  # score the services the fold's model was trained on
    if args.beside_unseen:
        models = beside_unseen_models(split, args.k, args.seed, Path(args.beside_unseen), reworded)
        jobs = [(h, m, holdout_files(split)) for h, m in models]
    elif args.holdout:
        jobs = [(every, holdout_model(split, Path(args.holdout), reworded), holdout_files(split))]
    elif args.dialogue_folds:
        folds = dialogue_fold_models(split, Path(args.dialogue_folds), reworded)
        jobs = [(every, model, part) for part, model in folds]
    else:
        cache = Path(args.folds_dir) if args.folds_dir else None
        files = split.dialogue_files()[:: args.every]
        jobs = [(h, m, files) for h, m in fold_models(split, args.k, args.seed, cache, reworded)]
    if args.float16:
        jobs = [
            (held, CarryModel(m.weights.astype(np.float16).astype(np.float32), m.config), f)
            for held, m, f in jobs
        ]
    classes: collections.Counter = collections.Counter()
    weight: collections.Counter = collections.Counter()  # slot-error turns by onset class
    by_slot: collections.Counter = collections.Counter()
    examples: dict = collections.defaultdict(list)
    total = count = 0.0
    per_fold = []
    for held, model, files in jobs:
        ft = fc = 0.0
        for file in files:
            for dialogue in split.read_file(file):
                if not held & set(dialogue.services):
                    continue
                if beside and not set(dialogue.services) - held:
                    continue
                history = History()
                state: DialogueState = {}
                prev_err: dict = {}
                onset: dict = {}
                for index, turn in enumerate(dialogue.turns):
                    if turn.speaker != "USER":
                        history.append(turn)
                        continue
                    acts = {f.service: list(f.actions) for f in turn.frames}
                    before = state
                    state = track(state, acts, history, schemas, carry=model)
                    for frame in turn.frames:
                        s = frame.service
                        if frame.state is None or (s in held) == beside:
                            continue
                        pred = state.get(s)
                        m = frame_state_metrics(frame.state, pred, schemas[s])
                        ft += m["joint_goal_accuracy"]
                        fc += 1
                        errs = frame_errors(
                            frame.state,
                            pred,
                            schemas[s],
                            (dialogue.dialogue_id, index, turn.utterance),
                        )
                        if s not in before:
                            moment = "open"
                        elif before[s].active_intent != state[s].active_intent:
                            moment = "newintent"
                        else:
                            moment = "same"
                        sys_turn = history.last_system_turn
                        sframe = sys_turn.frame(s) if sys_turn is not None else None
                        call = (
                            dict(sframe.service_call.parameters)
                            if sframe and sframe.service_call
                            else None
                        )
                        for e in errs:
                            key = (s, e.slot)
                            sig = (e.kind, tuple(e.expected), tuple(e.got))
                            if prev_err.get(key) == sig:
                                weight[onset[key]] += 1
                                continue
                            c = classify(
                                e,
                                acts.get(s, []),
                                history.last_system_acts(s),
                                moment,
                                before,
                                history,
                                s,
                                schemas,
                                call,
                            )
                            classes[c] += 1
                            weight[c] += 1
                            onset[key] = c
                            by_slot[(s, e.slot, e.kind, c[0])] += 1
                            if len(examples[c]) < args.examples:
                                sa = " ".join(
                                    f"{a.act}({a.slot}={'|'.join(a.values)})"
                                    for a in history.last_system_acts(s)
                                )
                                examples[c].append(
                                    f"{dialogue.dialogue_id} t{index} {s}.{e.slot} "
                                    f"exp={e.expected} got={e.got} | sys: {sa} "
                                    f"| user: {turn.utterance[:90]}"
                                )
                        prev_err = {k: v for k, v in prev_err.items() if k[0] != s}
                        prev_err.update(
                            {(s, e.slot): (e.kind, tuple(e.expected), tuple(e.got)) for e in errs}
                        )
                    history.append(turn)
        per_fold.append(round(ft / max(fc, 1), 4))
        total += ft
        count += fc
    print(f"JGA {total / max(count, 1):.4f} folds {per_fold} frames {int(count)}")
    print(f"error onsets: {sum(classes.values())}, slot-error turns {sum(weight.values())}")
    for c, n in sorted(classes.items(), key=lambda x: -weight[x[0]])[: args.top]:
        print(f"{n:6d} {weight[c]:6d}  {' / '.join(c)}")
        for ex in examples[c]:
            print(f"          {ex}")
    print("\nby service/slot:")
    for c, n in by_slot.most_common(40):
        print(f"{n:6d}  {c}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
