"""The built-in ``tod`` commands, registered through ``register_commands`` like any plugin's.

Listed in ``tod_runtime.plugins.DEFAULT_PLUGINS``: ``tod data``, ``tod plugins``,
``tod chat``, ``tod serve`` (body in ``tod_runtime.server.command``), ``tod train`` (built in
``tod_runtime.training.command``) and ``tod replay`` (built in
``tod_runtime.replay.command``). ``add_pipeline_options`` and ``config_from_args`` are for any
command that builds a runtime, a plugin's included.

This module must not import ``tod_runtime.cli`` (only the console entry point does).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from tod_runtime.errors import ConfigError, TodError
from tod_runtime.hookspecs import hookimpl
from tod_runtime.replay.command import add_replay_command
from tod_runtime.simulate.command import add_simulate_command
from tod_runtime.training.command import add_train_command


@hookimpl(tryfirst=True)  # built-ins first, so `tod --help` lists them before plugins' commands
def register_commands(cli: argparse._SubParsersAction[Any]) -> None:
    _add_data(cli)
    _add_plugins(cli)
    _add_chat(cli)
    add_replay_command(cli)
    add_simulate_command(cli)
    _add_test(cli)
    add_train_command(cli)
    _add_serve(cli)


# ---------------------------------------------------------------- shared options


def add_pipeline_options(parser: argparse.ArgumentParser) -> None:
    """Options shared by every command that builds a runtime; each overrides the config.
    Use with ``config_from_args`` in the command's function."""
    group = parser.add_argument_group("pipeline (override the config file)")
    group.add_argument("--config", metavar="FILE", help="TOML config file")
    group.add_argument("--plugins-dir", metavar="DIR", help="load plugin *.py files from DIR")
    group.add_argument("--nlu", metavar="NAME", help="NLU component (default: learned)")
    group.add_argument("--tracker", metavar="NAME", help="DST component (default: rules)")
    group.add_argument("--policy", metavar="NAME", help="policy component (default: rules)")
    group.add_argument("--generator", metavar="NAME", help="NLG component (default: template)")
    group.add_argument("--backend", metavar="NAME", help="service backend (default: auto)")


def config_from_args(args: argparse.Namespace, **extra: Any) -> Any:
    """The ``Config``: the ``--config`` file (or defaults), overridden by the pipeline options
    given and by ``extra`` (e.g. ``services=...``). ``--plugins-dir`` before the command
    counts too."""
    from tod_runtime.config import load_config

    overrides = {
        key: getattr(args, key, None)
        for key in ("nlu", "tracker", "policy", "generator", "backend")
    }
    overrides["plugins_dir"] = getattr(args, "plugins_dir", None) or getattr(
        args, "global_plugins_dir", None
    )
    return load_config(getattr(args, "config", None), **overrides, **extra)


# ---------------------------------------------------------------- tod data


def _cmd_data_fetch(args: argparse.Namespace) -> int:
    from tod_runtime.data.fetch import Limits, fetch

    if (args.timeout is not None and args.timeout <= 0) or args.stall_timeout <= 0:
        raise ConfigError("--timeout and --stall-timeout take a positive number of seconds")
    limits = Limits(total=args.timeout, stall=args.stall_timeout)
    folder = fetch(
        args.dataset, source=args.source, dest=args.dest, force=args.force, limits=limits
    )
    print(folder)
    return 0


def _cmd_data_validate(args: argparse.Namespace) -> int:
    from tod_runtime.data.sgd import open_split
    from tod_runtime.progress import progress

    split = open_split(args.path, args.split)
    schemas = split.schemas()
    files = split.dialogue_files()
    dialogues = turns = 0
    errors: list[str] = []
    with progress(f"validate {args.split}", len(files)) as bar:
        for file in files:
            try:
                for dialogue in split.read_file(file, schemas=schemas):
                    dialogues += 1
                    turns += len(dialogue.turns)
            except TodError as exc:
                errors.append(str(exc))
            bar.advance()
    for line in errors:
        print(f"invalid: {line}", file=sys.stderr)
    summary = {"services": len(schemas), "files": len(files), "dialogues": dialogues}
    summary |= {"turns": turns, "invalid_files": len(errors)}
    print(json.dumps(summary))
    return 1 if errors else 0


def _cmd_data_rename(args: argparse.Namespace) -> int:
    from tod_runtime.data.rename import rename_split
    from tod_runtime.data.sgd import open_split
    from tod_runtime.files import check_output_dir

    if args.limit is not None and args.limit < 1:
        raise ConfigError("--limit takes a positive number of dialogues")
    split = open_split(args.path, args.split)
    # before the work: never into the data read, never over an earlier run without --force
    folder = Path(args.out) / split.name
    check_output_dir(folder, force=args.force, inputs=[args.path], owned="*.json")
    print(rename_split(split, args.out, limit=args.limit))
    return 0


def _cmd_data_sgdx(args: argparse.Namespace) -> int:
    from tod_runtime.data.sgd import open_split
    from tod_runtime.data.sgdx import parse_variants, write_variants

    if args.limit is not None and args.limit < 1:
        raise ConfigError("--limit takes a positive number")
    split = open_split(args.path, args.split)
    variants = parse_variants(args.variants)
    for folder in write_variants(split, args.out, variants, limit=args.limit, force=args.force):
        print(folder)
    return 0


def _cmd_data_convert(args: argparse.Namespace) -> int:
    from tod_runtime.data.m2m import convert_files

    for folder in convert_files(args.files, args.out, split=args.split, force=args.force):
        print(folder)
    return 0


def _cmd_data_export(args: argparse.Namespace) -> int:
    from tod_runtime.data.sgd import open_split
    from tod_runtime.data.unified import export_unified

    splits = [open_split(args.path, name) for name in args.splits.split(",") if name]
    print(export_unified(splits, args.out, name=args.name, limit=args.limit, force=args.force))
    return 0


def _add_data_formats(data_sub: argparse._SubParsersAction[Any]) -> None:
    sgdx = data_sub.add_parser(
        "sgdx", help="write the SGD-X variants of a split (variant names, same dialogues)"
    )
    sgdx.add_argument("path", metavar="SGD_DIR", help="dataset folder or zip (with sgd_x/)")
    sgdx.add_argument("--split", default="dev")
    sgdx.add_argument("--variants", metavar="v1,...", help="default: all five")
    sgdx.add_argument("--out", metavar="DIR", required=True, help="writes DIR/<variant>/<split>/")
    sgdx.add_argument("--limit", type=int, metavar="N", help="only the first N dialogues")
    sgdx.add_argument("--force", action="store_true", help="replace earlier output")
    sgdx.set_defaults(func=_cmd_data_sgdx)
    convert = data_sub.add_parser("convert", help="convert another dataset to SGD format")
    formats = convert.add_subparsers(dest="format", required=True, metavar="FORMAT")
    m2m = formats.add_parser("m2m", help="M2M sim-M / sim-R dialogues -> DIR/<split>/")
    m2m.add_argument("files", nargs="+", metavar="FILE.json", help="e.g. sim-M-dev.json")
    m2m.add_argument("--out", metavar="DIR", required=True)
    m2m.add_argument(
        "--split", help="split name (default: from each file name, sim-M-dev.json -> dev)"
    )
    m2m.add_argument("--force", action="store_true", help="replace earlier output")
    m2m.set_defaults(func=_cmd_data_convert)
    export = data_sub.add_parser("export", help="export an SGD dataset to another format")
    targets = export.add_subparsers(dest="format", required=True, metavar="FORMAT")
    unified = targets.add_parser("unified", help="ConvLab-3's unified format: DIR/data.zip")
    unified.add_argument("path", metavar="SGD_DIR", help="dataset folder or zip")
    unified.add_argument(
        "--splits", default="train,dev", help="comma-separated splits (default: train,dev)"
    )
    unified.add_argument("--name", default="sgd", help="the dataset name (default: sgd)")
    unified.add_argument("--out", metavar="DIR", required=True, help="writes DIR/data.zip")
    unified.add_argument("--limit", type=int, metavar="N", help="first N dialogues per split")
    unified.add_argument("--force", action="store_true", help="replace an existing data.zip")
    unified.set_defaults(func=_cmd_data_export)


def _add_data(sub: argparse._SubParsersAction[Any]) -> None:
    data = sub.add_parser("data", help="fetch and check datasets")
    data_sub = data.add_subparsers(dest="data_command", required=True, metavar="COMMAND")
    fetch = data_sub.add_parser("fetch", help="download a dataset and unpack it")
    fetch.add_argument("dataset", choices=["sgd"], help="dataset name")
    fetch.add_argument("--source", metavar="URL|PATH", help="URL or local zip (default: GitHub)")
    fetch.add_argument("--dest", metavar="DIR", help="target folder (default: $TOD_DATA_DIR)")
    fetch.add_argument("--force", action="store_true", help="fetch again even if present")
    fetch.add_argument(
        "--timeout", type=float, metavar="SECONDS", help="give up after this long in all"
    )
    fetch.add_argument(
        "--stall-timeout",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="give up when nothing arrives for this long (default: 60)",
    )
    fetch.set_defaults(func=_cmd_data_fetch)
    validate = data_sub.add_parser("validate", help="validate every file of an SGD split")
    validate.add_argument("path", metavar="SGD_DIR", help="dataset folder or zip")
    validate.add_argument("--split", default="dev")
    validate.set_defaults(func=_cmd_data_validate)
    rename = data_sub.add_parser(
        "rename",
        help="write a split with opaque service, intent and slot names (Service_01, ...)",
    )
    rename.add_argument("path", metavar="SGD_DIR", help="dataset folder or zip")
    rename.add_argument("--split", default="dev")
    rename.add_argument("--out", metavar="DIR", required=True, help="writes DIR/<split>/")
    rename.add_argument("--limit", type=int, metavar="N", help="at most N dialogues per file")
    rename.add_argument(
        "--force", action="store_true", help="replace the .json files of an earlier run"
    )
    rename.set_defaults(func=_cmd_data_rename)
    _add_data_formats(data_sub)


# ---------------------------------------------------------------- tod plugins


def _cmd_plugins(args: argparse.Namespace) -> int:
    from tod_runtime.plugins import (
        collect_components,
        make_plugin_manager,
        plugin_names,
    )

    pm = make_plugin_manager(args.plugins_dir or args.global_plugins_dir)
    components = collect_components(pm)
    plugins = [{"name": n, "hooks": hooks} for n, hooks in plugin_names(pm)]
    by_kind = {
        kind: {name: reg.plugin for name, reg in registry.entries.items()}
        for kind, registry in components.registries().items()
    }
    if args.json:
        print(json.dumps({"plugins": plugins, "components": by_kind}, indent=2))
        return 0
    for name, hooks in plugin_names(pm):
        print(f"{name}: {', '.join(hooks)}")
    print()
    for kind, names in by_kind.items():
        print(f"{kind:10} {', '.join(names)}")
    return 0


def _add_plugins(sub: argparse._SubParsersAction[Any]) -> None:
    cmd = sub.add_parser("plugins", help="list loaded plugins and the components they register")
    cmd.add_argument("--plugins-dir", metavar="DIR", help="load plugin *.py files from DIR")
    cmd.add_argument("--json", action="store_true", help="print JSON")
    cmd.set_defaults(func=_cmd_plugins)


# ---------------------------------------------------------------- tod chat


def _cmd_chat(args: argparse.Namespace) -> int:
    from tod_runtime.repl import run_chat

    config = config_from_args(args, services=args.services, store=args.store)
    return asyncio.run(run_chat(config, args))


def _add_chat(sub: argparse._SubParsersAction[Any]) -> None:
    chat = sub.add_parser("chat", help="talk to the runtime (REPL or scripted)")
    chat.add_argument(
        "--services",
        metavar="DIR|SGD_DIR:split",
        help="services folder, or an SGD split (default: the embedded services)",
    )
    chat.add_argument("--script", metavar="FILE", help="read user turns from FILE ('-': stdin)")
    chat.add_argument("--json", action="store_true", help="print one JSON object per turn")
    chat.add_argument("--debug", action="store_true", help="show acts, state and service calls")
    chat.add_argument("--record", metavar="DIR", help="save the conversation as SGD files")
    chat.add_argument(
        "--session",
        help="session id (default: a new random id, printed when --store is given)",
    )
    chat.add_argument(
        "--store", metavar="URL", help="session store: memory:// (default), sqlite:///FILE, ..."
    )
    add_pipeline_options(chat)
    chat.set_defaults(func=_cmd_chat)


# ---------------------------------------------------------------- tod test


def _cmd_test(args: argparse.Namespace) -> int:
    from tod_runtime.conversations.command import run_test

    return run_test(args, config_from_args(args))


def _add_test(sub: argparse._SubParsersAction[Any]) -> None:
    from tod_runtime.conversations.command import add_test_arguments

    test = sub.add_parser(
        "test", help="run goal-annotated conversation scripts as tests (PASS/FAIL per file)"
    )
    add_test_arguments(test)
    add_pipeline_options(test)
    test.set_defaults(func=_cmd_test)


# ---------------------------------------------------------------- tod serve


def _cmd_serve(args: argparse.Namespace) -> int:
    from tod_runtime.server.command import run_serve, serve_settings

    extra: dict[str, Any] = {"services": args.services, "store": args.store}
    extra |= {"session_ttl": args.session_ttl, "max_turns_per_session": args.max_turns}
    config = config_from_args(args, **extra)
    settings = serve_settings(args)
    return run_serve(config, settings)


def _add_serve(sub: argparse._SubParsersAction[Any]) -> None:
    serve = sub.add_parser("serve", help="serve the runtime over HTTP and WebSocket")
    serve.add_argument("--host", default="127.0.0.1", help="address (default: 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8080, help="port (default: 8080)")
    serve.add_argument(
        "--store", metavar="URL", help="memory:// (default), sqlite:///FILE, redis://HOST:PORT"
    )
    serve.add_argument("--token", metavar="T", help="require 'Authorization: Bearer T' on /v1")
    serve.add_argument(
        "--services",
        metavar="DIR|SGD_DIR:split",
        help="services folder, or an SGD split (default: the embedded services)",
    )
    serve.add_argument(
        "--session-ttl", type=float, metavar="SECONDS", help="delete sessions idle this long"
    )
    serve.add_argument("--max-turns", type=int, metavar="N", help="turns a session may hold")
    serve.add_argument(
        "--max-body", type=int, default=64 * 1024, metavar="BYTES", help="request size limit"
    )
    serve.add_argument(
        "--cors-origin",
        action="append",
        metavar="ORIGIN",
        help="allow this origin cross-origin (repeatable; default: none)",
    )
    from tod_runtime.server.command import add_serve_flags

    add_serve_flags(serve)  # limits, --token-file, --workers
    add_pipeline_options(serve)
    serve.set_defaults(func=_cmd_serve)
