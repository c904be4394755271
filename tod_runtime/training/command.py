"""``tod train KIND``: the command line of the trainers (``training.nlu``, ``.dst``,
``.policy``, ``.nlg``), with the checks a trainer's arguments and outputs pass before the long
work."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from tod_runtime.errors import ConfigError, IOFailure


def _cmd_train_nlu(args: argparse.Namespace) -> int:
    from tod_runtime.training.nlu import run_train_nlu

    _model_outputs(args, "nlu.npz", "nlu.json", "vocabulary.txt")
    return run_train_nlu(args)


def _check_train_args(args: argparse.Namespace) -> None:
    """Counts a trainer takes (before the long work): a model trained on 0 rows, or on
    fewer than two folds, is no model."""
    limit = getattr(args, "limit", None)
    if limit is not None and (limit < 0 or (limit == 0 and args.train_command != "policy")):
        raise ConfigError("--limit takes a positive number of dialogues")  # policy: 0 is all
    if args.cv is not None and args.cv < 2:
        raise ConfigError("--cv takes 2 folds or more", hint="leave it out for no cross-validation")
    if getattr(args, "workers", 1) < 1:
        raise ConfigError("--workers takes a positive number of processes")


def _model_outputs(args: argparse.Namespace, *names: str) -> None:
    """--out apart from the data, its model files new unless --force (before the work)."""
    from tod_runtime.files import check_apart, check_output

    _check_train_args(args)
    out = Path(args.out)
    check_apart(out, [args.path], "--out folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise IOFailure(f"cannot create the folder: {exc.strerror}", file=str(out)) from None
    for name in names:
        check_output(out / name, force=args.force, inputs=[args.path], what="model file")
    if getattr(args, "errors", None):
        check_output(args.errors, force=args.force, inputs=[args.path], what="error file")


def _cmd_train_dst(args: argparse.Namespace) -> int:
    from tod_runtime.training.dst import run_train_dst

    _model_outputs(args, "carry.npz", "carry.json")
    return run_train_dst(args)


def _cmd_train_nlg(args: argparse.Namespace) -> int:
    from tod_runtime.training.nlg import run_train_nlg

    return run_train_nlg(args)  # its --cv 1 with --holdout is a mode of its own


def _cmd_train_policy(args: argparse.Namespace) -> int:
    from tod_runtime.training.policy import run_train_policy

    _model_outputs(args, "policy.npz", "policy.json")
    return run_train_policy(args)


def add_train_command(sub: argparse._SubParsersAction[Any]) -> None:
    from tod_runtime.training.dst import add_train_options as add_dst_options
    from tod_runtime.training.nlg import add_train_options as add_nlg_options
    from tod_runtime.training.nlu import add_train_options
    from tod_runtime.training.policy import add_train_options as add_policy_options

    train = sub.add_parser("train", help="train a learned component on SGD train")
    kinds = train.add_subparsers(dest="train_command", required=True, metavar="KIND")
    nlu = kinds.add_parser("nlu", help="the learned NLU (active intent, requested slots)")
    add_train_options(nlu)
    nlu.add_argument("--force", action="store_true", help="replace a model in --out")
    nlu.set_defaults(func=_cmd_train_nlu)
    dst = kinds.add_parser("dst", help="the tracker's carry-over model (values across services)")
    add_dst_options(dst)
    dst.add_argument("--force", action="store_true", help="replace a model in --out")
    dst.set_defaults(func=_cmd_train_dst)
    policy = kinds.add_parser("policy", help="the learned policy (imitation of SGD system turns)")
    add_policy_options(policy)
    policy.set_defaults(func=_cmd_train_policy)
    nlg = kinds.add_parser("nlg", help="NLG templates mined from SGD train (system and user)")
    add_nlg_options(nlg)
    nlg.set_defaults(func=_cmd_train_nlg)
    for kind in (nlu, dst, policy):
        kind.set_defaults(cv=None)  # none given: no cross-validation (an explicit 0 is refused)
