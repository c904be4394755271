"""JUnit XML: one test case per dialogue, failing with its turn-by-turn diff."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

from tod_runtime.files import atomic_open
from tod_runtime.replay.engine import DialogueResult


def diff_text(result: DialogueResult) -> str:
    return "\n".join(result.diffs)


def write_junit(path: str | Path, results: Sequence[DialogueResult], seconds: float) -> None:
    failures = sum(not r.passed for r in results)
    suite = ET.Element(
        "testsuite",
        name="tod replay",
        tests=str(len(results)),
        failures=str(failures),
        errors="0",
        time=f"{seconds:.3f}",
    )
    for result in results:
        case = ET.SubElement(suite, "testcase", classname=result.file, name=result.dialogue_id)
        if not result.passed:
            failure = ET.SubElement(
                case, "failure", message=f"{len(result.diffs)} difference(s) from the annotation"
            )
            failure.text = diff_text(result)
    with atomic_open(path, "wb") as out:
        ET.ElementTree(suite).write(out, encoding="utf-8", xml_declaration=True)
