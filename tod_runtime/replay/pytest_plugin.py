"""pytest plugin: ``pytest --tod-dialogues DIR`` collects every dialogue of an SGD split
folder (schema.json + dialogues_*.json) as a test that fails with its turn-by-turn diff."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

_REPLAYER = pytest.StashKey[Any]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tod", "tod-runtime dialogue replay")
    group.addoption("--tod-dialogues", metavar="DIR", help="SGD split folder to replay as tests")
    group.addoption(
        "--tod-nlu", default=None, help="'gold' or an NLU name (default: the configured NLU)"
    )
    group.addoption("--tod-policy", default=None, help="policy name (default: rules)")


class DialogueMismatch(Exception):
    pass


class DialogueItem(pytest.Item):
    def __init__(self, *, file: str, dialogue: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.file = file
        self.dialogue = dialogue

    def runtest(self) -> None:
        replayer, loop = _replayer(self.config)
        result = loop.run_until_complete(replayer.replay(self.dialogue, self.file))
        if not result.passed:
            raise DialogueMismatch("\n".join(result.diffs))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, DialogueMismatch):
            return f"{self.file} {self.dialogue.dialogue_id}:\n{excinfo.value}"
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return Path(self.file), 0, f"dialogue {self.dialogue.dialogue_id}"


def _replayer(config: pytest.Config) -> Any:
    if _REPLAYER not in config.stash:
        from tod_runtime.data.sgd import open_split
        from tod_runtime.replay.engine import DialogueReplayer
        from tod_runtime.replay.runner import GOLD, ReplayOptions, replay_runtime

        folder = Path(config.getoption("tod_dialogues"))
        nlu = config.getoption("tod_nlu")
        options = ReplayOptions(
            root=str(folder), split=folder.name, nlu=nlu, policy=config.getoption("tod_policy")
        )
        runtime = replay_runtime(options, open_split(options.root, options.split))
        loop = asyncio.new_event_loop()
        loop.run_until_complete(runtime.start())
        config.stash[_REPLAYER] = (DialogueReplayer(runtime, gold_nlu=nlu == GOLD), loop)
        config.add_cleanup(loop.close)
    return config.stash[_REPLAYER]


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    folder = config.getoption("tod_dialogues", None)
    if not folder:
        return
    from tod_runtime.data.sgd import open_split

    split = open_split(folder, Path(folder).name)
    schemas = split.schemas()
    for file in split.dialogue_files():
        for dialogue in split.read_file(file, schemas=schemas):
            items.append(
                DialogueItem.from_parent(
                    session, name=f"{file}::{dialogue.dialogue_id}", file=file, dialogue=dialogue
                )
            )
