"""Property-based attacks: random and mutated schemas, dialogue files, config files and chat
input go through the loaders and the pipeline; the answer is a valid result or a TodError,
never another exception. Kept fast: few examples, no deadline."""

from __future__ import annotations

import asyncio
import copy
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tod_runtime.config import Config, load_config
from tod_runtime.data.sgd import open_split
from tod_runtime.dialogue.validate import check_against_schemas, parse_dialogue_list
from tod_runtime.errors import TodError
from tod_runtime.replay.engine import DialogueReplayer
from tod_runtime.replay.runner import ReplayOptions, replay_runtime
from tod_runtime.runtime import Runtime
from tod_runtime.schema.loader import Schemas, parse_schema_list

ROOT = Path(__file__).resolve().parents[1]
MINI = ROOT / "tests" / "fixtures" / "sgd_mini"
SCHEMA = json.loads((ROOT / "services" / "Restaurants" / "schema.json").read_text())
MINI_SCHEMA = json.loads((MINI / "dev" / "schema.json").read_text())
DIALOGUES = json.loads((MINI / "dev" / "dialogues_001.json").read_text())

EXAMPLES = int(os.environ.get("TOD_PROPERTY_EXAMPLES", "40"))  # raise it to hunt for bugs
FAST = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=True),
    st.text(max_size=20),
    st.sampled_from(["", "NONE", "dontcare", "INFORM", "REQUEST", "USER", "SYSTEM", "city"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def _paths(value: Any, here: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield here
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*here, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*here, index))


def mutate(data: Any, draw: Any, times: int = 3) -> Any:
    """Apply a few random edits at random places: delete, replace with random JSON, empty,
    duplicate, or swap the type of a value."""
    data = copy.deepcopy(data)
    for _ in range(times):
        paths = list(_paths(data))
        path = draw(st.sampled_from(paths))
        if not path:
            if draw(st.booleans()):
                data = draw(json_values)
            continue
        parent = data
        for step in path[:-1]:
            parent = parent[step]
        key = path[-1]
        how = draw(st.sampled_from(["delete", "random", "empty", "duplicate", "stringify"]))
        if how == "delete":
            del parent[key]
        elif how == "random":
            parent[key] = draw(json_values)
        elif how == "empty":
            parent[key] = (
                type(parent[key])() if isinstance(parent[key], (list, dict, str)) else None
            )
        elif how == "duplicate" and isinstance(parent, list):
            parent.insert(key, copy.deepcopy(parent[key]))
        else:
            parent[key] = json.dumps(parent[key])
    return data


@FAST
@given(st.data())
def test_schema_lists(data: st.DataObject) -> None:
    raw = data.draw(st.one_of(json_values, st.just(SCHEMA).map(lambda s: mutate(s, data.draw))))
    try:
        services = parse_schema_list(raw, file="schema.json")
        Schemas(services)
    except TodError:
        return
    assert services


@FAST
@given(st.data())
def test_dialogue_files(data: st.DataObject) -> None:
    schemas = Schemas(parse_schema_list(MINI_SCHEMA))
    raw = data.draw(st.one_of(json_values, st.just(DIALOGUES).map(lambda d: mutate(d, data.draw))))
    try:
        for dialogue in parse_dialogue_list(raw, file="dialogues_001.json"):
            check_against_schemas(dialogue, schemas)
    except TodError:
        return


toml_values = st.one_of(
    st.integers(-5, 10**6).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.text(max_size=10).map(json.dumps),
    st.sampled_from(["true", "[]", "{}", '"rules"', '"learned"', '"memory://"', "-1", "1e999"]),
)
toml_keys = st.sampled_from(
    ["services", "backend", "nlu", "tracker", "policy", "generator", "store", "plugins_dir",
     "max_message_chars", "turn_timeout", "options", "unknown", "options.nlu.x"]
)  # fmt: skip


@FAST
@given(
    st.one_of(
        st.text(max_size=80),
        st.lists(st.tuples(toml_keys, toml_values), max_size=5).map(
            lambda pairs: "\n".join(f"{k} = {v}" for k, v in pairs)
        ),
    )
)
def test_config_files(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    path = tmp_path_factory.mktemp("cfg") / "tod.toml"
    path.write_text(text, encoding="utf-8")
    try:
        config = load_config(path)
    except TodError:
        return
    assert isinstance(config, Config)


@pytest.fixture(scope="module")
def chat_runtime() -> Iterator[tuple[asyncio.AbstractEventLoop, Runtime]]:
    loop = asyncio.new_event_loop()
    runtime = Runtime(load_config(None))
    loop.run_until_complete(runtime.start())
    yield loop, runtime
    loop.run_until_complete(runtime.close())
    loop.close()


chat_lines = st.one_of(
    st.text(max_size=60),
    st.lists(
        st.sampled_from(
            [
                "find",
                "a",
                "restaurant",
                "hotel",
                "in",
                "Austin",
                "for",
                "5",
                "people",
                "at",
                "7 pm",
                "tomorrow",
                "yes",
                "no",
                "book",
                "it",
                "cheap",
                "italian",
                "?",
                "!",
                "0",
                "dontcare",
                "/",
                "\x00",
                "é",
                "🙂",
                "-1",
                "99999999999999999999",
            ]
        ),  # fmt: skip
        max_size=12,
    ).map(" ".join),
)


@FAST
@given(st.lists(chat_lines, min_size=1, max_size=4))
def test_chat_input_through_the_pipeline(
    chat_runtime: tuple[asyncio.AbstractEventLoop, Runtime], lines: list[str]
) -> None:
    loop, runtime = chat_runtime
    loop.run_until_complete(runtime.reset("prop"))
    for line in lines:
        try:
            result = loop.run_until_complete(runtime.handle("prop", line))
        except TodError:
            continue
        assert isinstance(result.utterance, str)


@pytest.fixture(scope="module")
def replayer(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[asyncio.AbstractEventLoop, DialogueReplayer]]:
    root = tmp_path_factory.mktemp("mini") / "sgd"
    shutil.copytree(MINI, root)
    options = ReplayOptions(root=str(root), split="dev")
    runtime = replay_runtime(options, open_split(str(root), "dev"))
    loop = asyncio.new_event_loop()
    loop.run_until_complete(runtime.start())
    yield loop, DialogueReplayer(runtime, gold_nlu=False, keep_predictions=True)
    loop.run_until_complete(runtime.close())
    loop.close()


@settings(FAST, max_examples=max(1, EXAMPLES * 3 // 4))
@given(st.data())
def test_mutated_dialogues_through_replay(
    replayer: tuple[asyncio.AbstractEventLoop, DialogueReplayer], data: st.DataObject
) -> None:
    loop, engine = replayer
    raw = mutate(DIALOGUES, data.draw, times=data.draw(st.integers(1, 4)))
    try:
        dialogues = parse_dialogue_list(raw)
        for dialogue in dialogues:
            check_against_schemas(dialogue, engine.schemas)
    except TodError:
        return
    for dialogue in dialogues:
        result = loop.run_until_complete(engine.replay(dialogue, "dialogues_001.json"))
        assert result.turns == len(dialogue.turns)


@settings(FAST, max_examples=max(1, EXAMPLES // 4))
@given(st.data())
def test_mutated_schemas_through_a_runtime(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    services = tmp_path_factory.mktemp("services")
    shutil.copytree(ROOT / "services" / "Restaurants", services / "Restaurants")
    schema = mutate(SCHEMA, data.draw, times=data.draw(st.integers(1, 3)))
    (services / "Restaurants" / "schema.json").write_text(json.dumps(schema))

    async def chat() -> None:
        runtime = Runtime(load_config(None, services=str(services), nlu="rules"))
        try:
            await runtime.start()
            for line in ("find me an italian restaurant in Austin", "yes book it for 2 at 7 pm"):
                await runtime.handle("s", line)
        finally:
            await runtime.close()

    try:
        asyncio.run(chat())
    except TodError:
        return
