"""``tod test PATH...``: run goal-annotated conversation scripts and judge each one.

Prints ``PASS name`` or ``FAIL name`` with the reasons, then a count; ``--report`` writes
JSON (``conversations``, ``passed``, ``failed``, ``errors``, ``seconds``, ``results``),
``--junit`` one test case per script. Exit 0 when all pass, 1 when any fails, 3 when a script
could not be read or run.
"""

from __future__ import annotations

import argparse
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from tod_runtime.config import Config
from tod_runtime.errors import ConfigError


def add_test_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``tod test`` (the pipeline options are added by the caller)."""
    parser.add_argument("paths", nargs="+", metavar="PATH", help="script files or folders")
    parser.add_argument("--report", metavar="FILE.json", help="write a JSON report")
    parser.add_argument("--junit", metavar="FILE.xml", help="write one JUnit test case per file")
    parser.add_argument("--workers", type=int, default=1, help="processes (default: 1)")
    parser.add_argument(
        "--sgd",
        metavar="PATH",
        help="SGD folder or zip for 'services: sgd:<split>' (default: $TOD_SGD, else the "
        "folder tod data fetch sgd fills)",
    )
    parser.add_argument("--force", action="store_true", help="replace existing outputs")
    parser.add_argument("--quiet", action="store_true", help="print only failures and the count")


def run_test(args: argparse.Namespace, config: Config) -> int:
    """``tod test``: run, print, write the outputs; the exit status."""
    from tod_runtime.conversations.runner import default_sgd, run_all
    from tod_runtime.conversations.script import script_files
    from tod_runtime.files import check_output

    if args.workers < 1:
        raise ConfigError("--workers takes a positive number")
    paths = script_files(args.paths)
    for option, what in (("report", "report"), ("junit", "JUnit file")):
        if getattr(args, option):
            check_output(getattr(args, option), force=args.force, inputs=paths, what=what)
    if args.report and args.junit and Path(args.report).resolve() == Path(args.junit).resolve():
        raise ConfigError("--report and --junit name the same file")
    sgd = Path(args.sgd) if args.sgd else default_sgd()
    start = time.perf_counter()
    outcomes = run_all(paths, config, sgd, args.workers)
    seconds = time.perf_counter() - start
    for outcome in outcomes:
        if outcome.error is not None:
            print(f"ERROR {outcome.name}: {outcome.error}")
        elif outcome.passed:
            if not args.quiet:
                print(f"PASS  {outcome.name}")
        else:
            print(f"FAIL  {outcome.name}: {outcome.goal}")
            for reason in outcome.failures:
                print(f"      - {reason}")
    passed = sum(o.passed for o in outcomes)
    errors = sum(o.error is not None for o in outcomes)
    print(f"{passed} of {len(outcomes)} passed" + (f", {errors} could not run" if errors else ""))
    if args.report:
        _write_report(args.report, outcomes, seconds)
    if args.junit:
        _write_junit(args.junit, outcomes, seconds)
    sys.stdout.flush()
    if errors:
        return 3
    return 0 if passed == len(outcomes) else 1


def _write_report(path: str, outcomes: list[Any], seconds: float) -> None:
    from tod_runtime.files import write_json

    passed = sum(o.passed for o in outcomes)
    write_json(
        path,
        {
            "conversations": len(outcomes),
            "passed": passed,
            "failed": len(outcomes) - passed,
            "errors": sum(o.error is not None for o in outcomes),
            "seconds": round(seconds, 3),
            "results": [o.to_json() for o in outcomes],
        },
    )


def _write_junit(path: str, outcomes: list[Any], seconds: float) -> None:
    from tod_runtime.files import atomic_open

    suite = ET.Element(
        "testsuite",
        name="tod test",
        tests=str(len(outcomes)),
        failures=str(sum(not o.passed and o.error is None for o in outcomes)),
        errors=str(sum(o.error is not None for o in outcomes)),
        time=f"{seconds:.3f}",
    )
    for outcome in outcomes:
        case = ET.SubElement(suite, "testcase", classname="tod test", name=outcome.name)
        case.set("file", outcome.path)
        if outcome.error is not None:
            ET.SubElement(case, "error", message=outcome.error)
        elif not outcome.passed:
            failure = ET.SubElement(case, "failure", message=outcome.goal)
            failure.text = "\n".join(outcome.failures)
    with atomic_open(path, "wb") as out:
        ET.ElementTree(suite).write(out, encoding="utf-8", xml_declaration=True)
