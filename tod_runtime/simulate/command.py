"""``tod simulate``: simulated users talk to the runtime; task success, per service, with the
reasons tasks failed and (given SGD data) how the dialogues compare with SGD's."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from tod_runtime.errors import ConfigError

TRANSCRIPT_FILE_SIZE = 100  # dialogues per dialogues_NNN.json


def _run(args: argparse.Namespace) -> int:
    from tod_runtime.backends.sgd_tables import parse_sgd_source
    from tod_runtime.files import write_json
    from tod_runtime.simulate.realism import compare, reference_stats
    from tod_runtime.simulate.report import build_report, summary
    from tod_runtime.simulate.runner import SimulateOptions, run_simulation

    if args.dialogues < 1 or args.workers < 1 or args.max_turns < 1:
        raise ConfigError("--dialogues, --workers and --max-turns take a positive number")
    if not 0 < args.repair_rate <= 1:
        raise ConfigError("--repair-rate takes a number above 0 and at most 1")
    if args.repairs and args.level != "text":
        raise ConfigError("--repairs needs --level text (the moves are things people type)")
    realism_source = args.realism or (
        args.services if args.services and parse_sgd_source(args.services) else None
    )
    reference = None
    if realism_source:
        parsed = parse_sgd_source(realism_source)
        if parsed is None:
            raise ConfigError("--realism takes SGD_DIR:split", file=realism_source)
        reference = parsed
    _check_outputs(args)  # before the long work
    options = SimulateOptions(
        services=args.services,
        dialogues=args.dialogues,
        seed=args.seed,
        level=args.level,
        simulator=args.simulator,
        nlu=args.nlu,
        policy=args.policy,
        tracker=args.tracker,
        generator=args.generator,
        backend=args.backend,
        config=args.config,
        plugins_dir=args.plugins_dir or getattr(args, "global_plugins_dir", None),
        workers=args.workers,
        max_turns=args.max_turns,
        transcripts=args.transcripts is not None,
        wording=args.wording,
        all_services=args.all_services,
        repairs=args.repair_rate if args.repairs else 0.0,
    )
    run = run_simulation(options)
    realism = None
    if reference is not None:
        root, split = reference
        realism = compare(run.outcomes, reference_stats(str(root), split), f"{root.name}:{split}")
    report = build_report(run, realism)
    if args.report:
        write_json(args.report, report)
    if args.transcripts:
        write_transcripts(Path(args.transcripts), run)
    print(summary(report))
    return 0


def write_transcripts(folder: Path, run: Any) -> None:
    """The dialogues as an SGD split folder (schema.json, dialogues_NNN.json), replayable
    with ``tod replay FOLDER --services ...``, and ``goals.json``: each dialogue's goal and
    verdict, to find the failed ones."""
    from tod_runtime.data.record import merge_schema_file
    from tod_runtime.files import write_json
    from tod_runtime.simulate.runner import transcripts

    dialogues = transcripts(run)
    schemas = _schemas(run.options)
    merge_schema_file(folder, schemas, sorted({s for d in dialogues for s in d.services}))
    for start in range(0, len(dialogues), TRANSCRIPT_FILE_SIZE):
        part = dialogues[start : start + TRANSCRIPT_FILE_SIZE]
        name = f"dialogues_{start // TRANSCRIPT_FILE_SIZE + 1:03d}.json"
        write_json(folder / name, [d.to_json() for d in part], indent=1)
    goals = [
        {
            "dialogue_id": f"sim_{o.index:05d}",
            "file": f"dialogues_{i // TRANSCRIPT_FILE_SIZE + 1:03d}.json",
            "success": o.verdict.success,
            "reason": o.verdict.reason,
            "goal": o.goal.model_dump(mode="json"),
        }
        for i, o in enumerate(run.outcomes)
    ]
    write_json(folder / "goals.json", goals, indent=1)


def _schemas(options: Any) -> Any:
    from tod_runtime.plugins import collect_components, make_plugin_manager

    config = options.runtime_config()
    components = collect_components(make_plugin_manager(config.plugins_dir))
    backend = components.open_backend(config.backend, config.services)
    return backend.schemas()


def _check_outputs(args: argparse.Namespace) -> None:
    from tod_runtime.files import check_output, check_output_dir

    inputs = [p for p in (args.services, args.realism) if p]
    inputs = [p.rpartition(":")[0] if ":" in p and not Path(p).exists() else p for p in inputs]
    if args.report:
        check_output(args.report, force=args.force, inputs=inputs, what="report")
    if args.transcripts:
        check_output_dir(
            args.transcripts,
            force=args.force,
            inputs=inputs,
            owned="*.json",
            what="transcripts folder",
        )


def _add_user_arguments(parser: argparse.ArgumentParser) -> None:
    """How the simulated users talk: the level, the wording, repairs."""
    parser.add_argument(
        "--level",
        choices=["acts", "text"],
        default="acts",
        help="acts: user acts straight to the tracker; text: realised as text, NLU in the loop",
    )
    parser.add_argument(
        "--wording",
        choices=["mined", "schema"],
        default="mined",
        help="text level: user templates mined from SGD train (default) or the schema's words",
    )
    parser.add_argument(
        "--all-services",
        action="store_true",
        help="the system chooses each turn's service among all the services, as in a chat "
        "(default: among the goal's services, as SGD's dialogues and replay give them)",
    )
    parser.add_argument(
        "--repairs",
        action="store_true",
        help="text level: the user also greets, asks again, asks about the offer mid-task, "
        "asks for another or a cheaper result, acknowledges, calls the task off and starts "
        "over, takes back a wrong value, and types in lower case with typos",
    )
    parser.add_argument(
        "--repair-rate",
        type=float,
        default=0.25,
        help="with --repairs: how often each move is made where it fits (default: 0.25)",
    )


def _add_component_arguments(parser: argparse.ArgumentParser) -> None:
    """The pipeline's components the simulated users talk to."""
    parser.add_argument("--simulator", default="schema", help="simulator (default: schema)")
    parser.add_argument("--nlu", metavar="NAME", help="NLU at the text level (default: learned)")
    parser.add_argument("--policy", metavar="NAME", help="policy (default: rules)")
    parser.add_argument("--tracker", metavar="NAME", help="DST component (default: rules)")
    parser.add_argument("--generator", metavar="NAME", help="NLG component (default: template)")
    parser.add_argument("--backend", metavar="NAME", help="service backend (default: auto)")


def add_simulate_command(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "simulate", help="simulated users talk to the runtime: task success per service"
    )
    parser.add_argument(
        "--services",
        metavar="DIR|SGD_DIR:split",
        help="services folder, or an SGD split (default: the embedded services)",
    )
    parser.add_argument("--dialogues", type=int, default=100, help="how many (default: 100)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    _add_user_arguments(parser)
    _add_component_arguments(parser)
    parser.add_argument("--workers", type=int, default=1, help="processes (default: 1)")
    parser.add_argument(
        "--max-turns", type=int, default=25, help="user turns before a dialogue is cut off"
    )
    parser.add_argument("--report", metavar="FILE.json", help="write the JSON report")
    parser.add_argument(
        "--transcripts", metavar="DIR", help="write the dialogues as SGD files and goals.json"
    )
    parser.add_argument(
        "--realism",
        metavar="SGD_DIR:split",
        help="compare act frequencies and lengths with this split (default: --services when "
        "it is an SGD split)",
    )
    parser.add_argument("--force", action="store_true", help="replace existing outputs")
    parser.add_argument("--config", metavar="FILE", help="TOML config file")
    parser.add_argument("--plugins-dir", metavar="DIR", help="load plugin *.py files from DIR")
    parser.set_defaults(func=_run)
