"""Run conversation scripts through a ``Runtime`` and judge them.

One runtime per services source (opened once, shared by the scripts over it), one session
per script, the script's ``today`` pinned (``$TOD_TODAY``) while it runs. ``--workers N``
splits the scripts over N processes.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tod_runtime.config import Config, embedded_services_dir
from tod_runtime.conversations.judge import AnsweredTurn, judge
from tod_runtime.conversations.script import Script, ScriptError, load_script
from tod_runtime.data.fetch import default_data_dir
from tod_runtime.dialogue.steps import TurnResult
from tod_runtime.errors import StageFailed, TodError
from tod_runtime.progress import progress
from tod_runtime.runtime import Runtime
from tod_runtime.values.dates import TODAY_ENV

SGD_ENV = "TOD_SGD"
SGD_PREFIX = "sgd:"


@dataclass
class Outcome:
    """One script's verdict."""

    name: str
    path: str
    goal: str
    passed: bool = False
    failures: list[str] = field(default_factory=list)
    transcript: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None  # the script could not run (bad file, services missing)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "path": self.path,
            "goal": self.goal,
            "passed": self.passed,
            "failures": self.failures,
            "error": self.error,
            "transcript": self.transcript,
        }


def default_sgd() -> Path | None:
    """Where SGD's data is found for ``services: sgd:<split>``: ``$TOD_SGD``, else the folder
    ``tod data fetch sgd`` fills by default; None when neither exists."""
    env = os.environ.get(SGD_ENV)
    if env:
        return Path(env)
    fetched = default_data_dir() / "dstc8-schema-guided-dialogue"
    return fetched if fetched.is_dir() else None


def services_source(services: str, sgd: Path | None) -> str:
    """What ``tod chat --services`` would be given for a script's ``services`` directive."""
    if services == "embedded":
        return str(embedded_services_dir())
    if services.startswith(SGD_PREFIX):
        if sgd is None:
            raise ScriptError(
                f"services {services!r} needs SGD's data",
                hint=f"pass --sgd PATH (folder or zip), set ${SGD_ENV}, or run tod data fetch sgd",
            )
        return f"{sgd}:{services[len(SGD_PREFIX) :]}"
    return services


@contextmanager
def pinned_today(day: str | None) -> Iterator[None]:
    """Hold a script on its ``today`` (``$TOD_TODAY``) while it runs."""
    before = os.environ.get(TODAY_ENV)
    if day is not None:
        os.environ[TODAY_ENV] = day
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(TODAY_ENV, None)
        else:
            os.environ[TODAY_ENV] = before


def answered(runtime: Runtime, user: str, result: TurnResult) -> AnsweredTurn:
    call = result.service_call
    schema = runtime.schemas.get(result.service) if result.service else None
    intent = schema.intent(call.method) if schema and call else None
    return AnsweredTurn(
        user=user,
        reply=result.utterance,
        service=result.service,
        call=call,
        results=tuple(result.service_results or ()),
        transactional=bool(intent and intent.is_transactional),
    )


async def run_script(runtime: Runtime, script: Script) -> Outcome:
    """Send the script's user lines in one fresh session and judge what came back."""
    outcome = Outcome(script.name, str(script.path), script.goal)
    session = f"test-{script.name}"
    await runtime.delete(session)
    turns: list[AnsweredTurn] = []
    with pinned_today(script.today):
        for line in script.lines:
            try:
                result = await runtime.handle(session, line.text)
            except StageFailed as failed:  # a stage's bug: this conversation's error, not the run's
                await runtime.delete(session)
                outcome.error = f"turn {len(turns) + 1} ({line.text!r}): {failed}"
                return outcome
            turn = answered(runtime, line.text, result)
            turns.append(turn)
            outcome.transcript.append(_transcript_row(turn))
    await runtime.delete(session)
    outcome.failures = judge(script, turns)
    outcome.passed = not outcome.failures
    return outcome


def _transcript_row(turn: AnsweredTurn) -> dict[str, Any]:
    row: dict[str, Any] = {"user": turn.user, "system": turn.reply}
    if turn.call is not None:
        row["call"] = {
            "service": turn.service,
            "method": turn.call.method,
            "parameters": dict(turn.call.parameters),
            "results": len(turn.results),
        }
    return row


async def run_scripts(
    paths: Sequence[Path], config: Config, sgd: Path | None, *, bar: bool = True
) -> list[Outcome]:
    """Run the scripts at ``paths`` in order, one runtime per services source."""
    outcomes: dict[Path, Outcome] = {}
    by_source: dict[str, list[Script]] = {}
    for path in paths:
        try:
            script = load_script(path)
            source = services_source(script.services, sgd)
        except TodError as exc:
            outcomes[path] = Outcome(path.stem, str(path), "", error=str(exc))
            continue
        by_source.setdefault(source, []).append(script)
    with progress("tod test", len(paths) if bar else None) as progress_bar:
        progress_bar.advance(len(outcomes))
        for source, scripts in by_source.items():
            try:
                runtime = Runtime(config.model_copy(update={"services": source}))
                await runtime.start()
            except TodError as exc:
                for script in scripts:
                    outcomes[script.path] = Outcome(
                        script.name, str(script.path), script.goal, error=str(exc)
                    )
                    progress_bar.advance()
                continue
            try:
                for script in scripts:
                    outcomes[script.path] = await run_script(runtime, script)
                    progress_bar.advance()
            finally:
                await runtime.close()
    return [outcomes[p] for p in paths]


def _run_chunk(paths: list[Path], config: Config, sgd: Path | None) -> list[Outcome]:
    return asyncio.run(run_scripts(paths, config, sgd, bar=False))


def run_all(
    paths: Sequence[Path], config: Config, sgd: Path | None, workers: int = 1
) -> list[Outcome]:
    """Run the scripts, in ``workers`` processes when more than one (each process opens the
    runtimes its scripts need); outcomes in the order of ``paths``."""
    if workers <= 1 or len(paths) <= 1:
        return asyncio.run(run_scripts(paths, config, sgd))
    chunks = [list(paths[i::workers]) for i in range(workers)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(_run_chunk, chunks, [config] * workers, [sgd] * workers))
    by_path = {Path(o.path): o for chunk in results for o in chunk}
    return [by_path[p] for p in paths]
