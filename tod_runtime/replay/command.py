"""``tod replay``: replay an SGD split through the pipeline and report DSTC8 metrics."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tod_runtime.errors import ConfigError
from tod_runtime.files import atomic_write, check_output, check_output_dir, write_json
from tod_runtime.replay.known_values import CHOICES

if TYPE_CHECKING:
    from tod_runtime.replay.report import ReplayReport
    from tod_runtime.replay.runner import ReplayOptions, ReplayRun

EXIT_BELOW = 1  # a --fail-under threshold was missed
EXIT_DIFFERS = 1  # --expect-exact: a turn differs from the recording
EXIT_FAILED = 1  # --strict: a dialogue failed (the run stopped there)


def _threshold(text: str) -> tuple[str, float]:
    from tod_runtime.replay.aggregate import METRICS

    name, sep, value = text.partition("=")
    if not sep or name not in METRICS:
        raise argparse.ArgumentTypeError(
            f"expected METRIC=VALUE with METRIC in {', '.join(METRICS)}"
        )
    try:
        return name, float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None


def _variants(text: str) -> list[str]:
    from tod_runtime.data.sgdx import parse_variants
    from tod_runtime.errors import DataError

    try:
        return parse_variants(text)
    except DataError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _run(args: argparse.Namespace) -> int:
    from tod_runtime.replay.report import build_report, summary
    from tod_runtime.replay.runner import ReplayOptions, run_replay

    if args.workers < 1 or (args.limit is not None and args.limit < 1):
        raise ConfigError("--workers and --limit take a positive number")
    if args.sgdx is not None and args.expect_exact:
        raise ConfigError("--sgdx and --expect-exact do not go together")
    from tod_runtime.data.sgd import resolve_split
    from tod_runtime.data.unified_read import unified_zip

    if unified_zip(args.path) is not None:  # ConvLab-3's unified format: read as SGD folders
        return _run_unified(args)
    options = ReplayOptions(
        root=args.path,
        split=resolve_split(args.path, args.split),
        nlu=args.nlu,
        policy=args.policy,
        config=args.config,
        plugins_dir=args.plugins_dir or getattr(args, "global_plugins_dir", None),
        limit=args.limit,
        workers=args.workers,
        predictions=args.predictions,
        strict=args.strict,
        exact=args.expect_exact,
        errors=args.errors is not None,
        services=args.services,
        **_chat_options(args),
    )
    _check_outputs(args)  # before the long work
    run = run_replay(options)
    report = build_report(options, run)
    if args.sgdx is not None:
        from tod_runtime.replay.sgdx import replay_variants

        report.sgdx = replay_variants(options, report.metrics, args.sgdx)
    _check_replayed(report.dialogues, run.skipped)
    _write_outputs(args, report, run)
    print(summary(report))
    return _exit_status(args, options, report, run)


def _write_outputs(args: argparse.Namespace, report: ReplayReport, run: ReplayRun) -> None:
    """The report, JUnit and state-error files asked for (``_check_outputs`` vetted them)."""
    from tod_runtime.replay.junit import write_junit

    if args.report:
        write_json(args.report, report.model_dump(mode="json"))
    if args.junit:
        write_junit(args.junit, run.results, run.seconds)
    if args.errors:
        from tod_runtime.metrics.state_errors import error_report

        frames: dict[str, int] = {}
        for result in run.results:
            for frame in result.frames:
                frames[frame.service] = frames.get(frame.service, 0) + 1
        errors = (e for r in run.results for e in r.errors)
        atomic_write(args.errors, error_report(errors, frames))


def _exit_status(
    args: argparse.Namespace, options: ReplayOptions, report: ReplayReport, run: ReplayRun
) -> int:
    """0, or the status of the last check that failed: ``--strict``'s stop, a
    ``--fail-under`` floor, ``--expect-exact``'s differences (each said on stderr)."""
    code = 0
    if run.stopped_at is not None:
        first = run.stopped_at
        detail = f": {first.diffs[0]}" if first.diffs else ""
        print(
            f"tod replay: --strict: stopped at the first failed dialogue, {first.file} "
            f"{first.dialogue_id}{detail}",
            file=sys.stderr,
        )
        code = EXIT_FAILED
    for name, minimum in args.fail_under:
        value = report.metrics.get(name)
        if value is None or value < minimum:
            print(f"tod replay: {name} = {value} is below {minimum}", file=sys.stderr)
            code = EXIT_BELOW
    if options.exact and (report.failed or report.skipped_files):
        for result in run.results:
            for line in result.diffs[:5]:
                print(f"{result.file} {result.dialogue_id}: {line}", file=sys.stderr)
        print(
            f"tod replay: {report.failed} dialogue(s) differ from the recording",
            file=sys.stderr,
        )
        code = EXIT_DIFFERS
    return code


def _check_replayed(dialogues: int, skipped: list[dict[str, str]]) -> None:
    """Each skipped file on a line; and a regression suite over broken or empty data never
    passes: 0 dialogues replayed (every file skipped, or none there) is a data error (3)."""
    from tod_runtime.errors import DataError

    for one in skipped:
        print(f"skipped: {one['error']}", file=sys.stderr)
    if dialogues == 0:
        raise DataError(
            f"no dialogue was replayed ({len(skipped)} file(s) skipped)",
            hint="the files above were skipped as unreadable or wrongly shaped",
        )


def _run_unified(args: argparse.Namespace) -> int:
    """Replay a ConvLab-3 unified dataset: its split, written as an SGD folder, replayed."""
    import tempfile

    from tod_runtime.data.unified_read import write_sgd

    _check_outputs(args)
    with tempfile.TemporaryDirectory(prefix="tod-unified-") as tmp:
        split = args.split or "dev"
        write_sgd(args.path, tmp, splits=[split])
        return _run(argparse.Namespace(**{**vars(args), "path": tmp, "split": split}))


def _check_outputs(args: argparse.Namespace) -> None:
    """Every output can be written, exists only with --force, and lies outside the data."""
    inputs = [args.path]
    if args.services:
        inputs.append(args.services.rpartition(":")[0] or args.services)
    seen: dict[Path, str] = {}
    for option, what in (("report", "report"), ("junit", "JUnit file"), ("errors", "error file")):
        if getattr(args, option):
            path = check_output(getattr(args, option), force=args.force, inputs=inputs, what=what)
            other = seen.setdefault(path.resolve(), option)
            if other != option:
                raise ConfigError(
                    f"--{option} and --{other} name the same file ({path})",
                    hint="give each output its own file",
                )
    if args.predictions:
        check_output_dir(
            args.predictions,
            force=args.force,
            inputs=inputs,
            owned="dialogues_*.json",
            what="predictions folder",
        )


def _chat_options(args: argparse.Namespace) -> dict[str, Any]:
    """The conditions of the NLU as ReplayOptions fields: ``--all-services``,
    ``--lower-case``, ``--nlu-values`` (its default resolved) and ``--hold-values``."""
    from tod_runtime.data.sgd import resolve_split
    from tod_runtime.replay.known_values import default_nlu_values, has_train

    split = resolve_split(args.path, args.split)
    values = args.nlu_values or default_nlu_values(args.path, split, args.services)
    if values == "train" and not has_train(args.path):  # before any worker starts
        raise ConfigError(
            "--nlu-values train needs the train split beside the data",
            file=args.path,
            hint="replay a dataset holding train, or use --nlu-values backend|none",
        )
    held = frozenset(s for s in (args.hold_values or "").split(",") if s)
    return {
        "dialogue_services": not args.all_services,
        "lower_case": args.lower_case,
        "nlu_values": values,
        "hold_values": held,
    }


def _add_values_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lower-case",
        action="store_true",
        help="the user's turns typed in lower case, as many people type in a chat: how much "
        "the NLU relies on capital letters",
    )
    parser.add_argument(
        "--nlu-values",
        choices=CHOICES,
        help="where the NLU's known values come from: the backend's (the replayed split's own "
        "recordings), train's recordings for the services train has (none for others), or "
        "none (default: train for an SGD split other than train, else backend)",
    )
    parser.add_argument(
        "--hold-values",
        metavar="SERVICE,...",
        help="with --nlu-values train: these services get no values (held out of training)",
    )


def _add_output_arguments(parser: argparse.ArgumentParser) -> None:
    """What a replay writes and when it fails: report files, floors, strictness."""
    parser.add_argument("--report", metavar="FILE.json", help="write the JSON report")
    parser.add_argument(
        "--predictions", metavar="DIR", help="write SGD files with predicted states"
    )
    parser.add_argument(
        "--junit", metavar="FILE.xml", help="write one JUnit test case per dialogue"
    )
    parser.add_argument(
        "--errors",
        metavar="FILE",
        help="write an error analysis: per service and slot, misses, wrong values and false "
        "fills with example turns",
    )
    parser.add_argument(
        "--fail-under",
        metavar="METRIC=VALUE",
        type=_threshold,
        action="append",
        default=[],
        help="exit 1 when METRIC is below VALUE (repeatable)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="stop at the first failed dialogue (exit 1); an invalid file fails the run",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace existing outputs (--report, --junit, --errors; the dialogues_*.json of "
        "--predictions are removed first)",
    )
    parser.add_argument(
        "--expect-exact",
        action="store_true",
        help="exit 1 when any turn differs from the recording in any way (acts, state, "
        "service call, reply): the regression check for conversations saved by tod chat",
    )


def add_replay_command(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "replay", help="replay SGD dialogues as regression tests, with DSTC8 metrics"
    )
    parser.add_argument(
        "path", metavar="SGD_DIR", help="SGD dataset folder or zip, or a split folder"
    )
    parser.add_argument(
        "--split", help="split name (default: dev, or the folder itself when it is one split)"
    )
    parser.add_argument(
        "--nlu",
        help="'gold' (annotated user acts) or an NLU name (default: the configured NLU, learned)",
    )
    parser.add_argument("--policy", help="policy name (default: rules)")
    parser.add_argument("--limit", type=int, help="only the first N dialogues, in file order")
    parser.add_argument("--workers", type=int, default=1, help="processes (default: 1)")
    _add_output_arguments(parser)
    parser.add_argument(
        "--services",
        metavar="DIR|SGD_DIR:split",
        help="services the pipeline runs on (NLU values, templates, unrecorded calls); "
        "default: the split's own recorded results. Give the folder a chat was recorded with",
    )
    parser.add_argument(
        "--all-services",
        action="store_true",
        help="the NLU chooses each turn's service among all the pipeline's services, as in a "
        "chat (default: among the dialogue's own services, which DSTC8 gives as input)",
    )
    _add_values_arguments(parser)
    parser.add_argument(
        "--sgdx",
        nargs="?",
        const=["v1", "v2", "v3", "v4", "v5"],
        type=_variants,
        metavar="v1,...",
        help="also replay the SGD-X variants of the split (default all five; the dataset's "
        "sgd_x/data/vN/<split>/schema.json) and report their metrics, the joint goal "
        "accuracy drop and the schema sensitivity under 'sgdx'",
    )
    parser.add_argument("--config", metavar="FILE", help="TOML config file")
    parser.add_argument("--plugins-dir", metavar="DIR", help="load plugin *.py files from DIR")
    parser.set_defaults(func=_run)
