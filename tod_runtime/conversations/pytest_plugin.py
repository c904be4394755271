"""pytest plugin: ``pytest --tod-conversations PATH`` collects every conversation script
(``*.txt``) under PATH as a test that fails with the judge's reasons and the transcript.
``--tod-sgd PATH`` gives SGD's data for ``services: sgd:<split>`` scripts."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

_RUNTIMES = pytest.StashKey[dict[str, Any]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tod-conversations", "tod-runtime conversation scripts")
    group.addoption(
        "--tod-conversations",
        metavar="PATH",
        action="append",
        default=[],
        help="conversation scripts (files or folders of *.txt) to run as tests",
    )
    group.addoption("--tod-sgd", metavar="PATH", help="SGD folder or zip for sgd:<split>")


class ConversationFailed(Exception):
    pass


class ConversationItem(pytest.Item):
    def __init__(self, *, script_path: Path, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script_path = script_path

    def runtest(self) -> None:
        from tod_runtime.conversations.runner import run_script, services_source
        from tod_runtime.conversations.script import load_script

        script = load_script(self.script_path)
        sgd = self.config.getoption("tod_sgd")
        source = services_source(script.services, Path(sgd) if sgd else _default_sgd())
        runtime, loop = _runtime(self.config, source)
        outcome = loop.run_until_complete(run_script(runtime, script))
        if not outcome.passed:
            lines = [*outcome.failures, "transcript:"]
            lines += [f"  > {t['user']}\n  < {t['system']}" for t in outcome.transcript]
            raise ConversationFailed("\n".join(lines))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ConversationFailed):
            return f"{self.script_path}:\n{excinfo.value}"
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.script_path, 0, f"conversation {self.script_path.stem}"


def _default_sgd() -> Path | None:
    from tod_runtime.conversations.runner import default_sgd

    return default_sgd()


def _runtime(config: pytest.Config, source: str) -> tuple[Any, asyncio.AbstractEventLoop]:
    """One runtime per services source for the whole session, on one event loop."""
    from tod_runtime.config import Config
    from tod_runtime.runtime import Runtime

    if _RUNTIMES not in config.stash:
        loop = asyncio.new_event_loop()
        config.stash[_RUNTIMES] = {"loop": loop}

        def close() -> None:
            for key, runtime in config.stash[_RUNTIMES].items():
                if key != "loop":
                    loop.run_until_complete(runtime.close())
            loop.close()

        config.add_cleanup(close)
    runtimes = config.stash[_RUNTIMES]
    loop = runtimes["loop"]
    if source not in runtimes:
        runtime = Runtime(Config(services=source))
        loop.run_until_complete(runtime.start())
        runtimes[source] = runtime
    return runtimes[source], loop


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    paths = config.getoption("tod_conversations", None)
    if not paths:
        return
    from tod_runtime.conversations.script import script_files

    for path in script_files(paths):
        items.append(ConversationItem.from_parent(session, name=path.stem, script_path=path))
