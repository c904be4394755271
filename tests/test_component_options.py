"""Each component's options are a pydantic model (unknown names forbidden) that the registry
validates when it builds the component, naming the option, the component and its plugin."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from tod_runtime.components import ComponentContext, ComponentOptions
from tod_runtime.config import Config
from tod_runtime.errors import ConfigError, PluginError
from tod_runtime.hookspecs import hookimpl
from tod_runtime.plugins import collect_components, make_plugin_manager
from tod_runtime.runtime import Runtime


def built_ins() -> list[tuple[str, str]]:
    components = collect_components(make_plugin_manager(entry_points=False))
    return [
        (kind, name)
        for kind in ("nlu", "tracker", "policy", "generator", "simulator")
        for name in getattr(components, kind).entries
    ]


@pytest.mark.parametrize(("kind", "name"), built_ins())
def test_every_built_in_component_declares_its_options(kind: str, name: str) -> None:
    components = collect_components(make_plugin_manager(entry_points=False))
    model = getattr(components, kind).entries[name].options
    assert model is not None and issubclass(model, ComponentOptions)
    model()  # every option has a default: no file needs an options table
    with pytest.raises(ValidationError):
        model(not_an_option=1)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"nlu": {"modle": 1}}, r"\[options.nlu\]: modle: unknown option for nlu 'learned'"),
        ({"nlu": {"english_only": "perhaps"}}, r"english_only: Input should be a valid boolean"),
        ({"tracker": {"carry": "x"}}, r"unknown option for tracker 'rules'"),
        ({"policy": {"model": "x"}}, r"unknown option for policy 'rules'"),
        ({"generator": {"choices": 0}}, r"choices: Input should be greater than or equal to 1"),
    ],
)
async def test_a_bad_option_is_an_error_naming_the_component_and_plugin(
    options: dict[str, dict[str, Any]], message: str
) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        async with Runtime(Config(options=options)):
            pass
    assert "(plugin tod_runtime." in str(info.value)
    assert info.value.hint


async def test_a_misspelt_option_gets_the_nearest_name() -> None:
    with pytest.raises(ConfigError) as info:
        async with Runtime(Config(options={"nlu": {"modle": 1}})):
            pass
    assert info.value.hint is not None and info.value.hint.startswith("did you mean 'model'?")


def test_tod_chat_with_a_misspelt_option_exits_2_with_a_hint(tmp_path: Path) -> None:
    config = tmp_path / "tod.toml"
    config.write_text("[options.nlu]\nmodle = 1\n")
    done = subprocess.run(
        [sys.executable, "-m", "tod_runtime.cli", "chat", "--config", str(config), "--script", "-"],
        input="",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert (
        "modle" in done.stderr and "nlu 'learned'" in done.stderr and "did you mean" in done.stderr
    )
    assert "Traceback" not in done.stderr


def test_a_simulator_option_is_validated_when_the_simulator_is_built() -> None:
    components = collect_components(make_plugin_manager(entry_points=False))
    ctx = ComponentContext(schemas={}, backend=None, options={"fail_rate": 2})  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"fail_rate: Input should be less than or equal to 1"):
        components.simulator.build("schema", ctx)


class _Typed(ComponentOptions):
    level: int = 1


class _Plugin:
    seen: list[int] = []

    @hookimpl
    def register_nlu(self, register: Any) -> None:
        register("typed", lambda ctx: self.seen.append(ctx.settings(_Typed).level), options=_Typed)


def test_a_plugin_reads_its_typed_options() -> None:
    components = collect_components(make_plugin_manager(entry_points=False, extra=(_Plugin(),)))
    ctx = ComponentContext(schemas={}, backend=None, options={"level": "3"})  # type: ignore[arg-type]
    with pytest.raises(PluginError):  # the factory returns no NLU; the options were read first
        components.nlu.build("typed", ctx)
    assert _Plugin.seen == [3]


def test_registering_options_that_are_not_a_model_is_a_plugin_error() -> None:
    class Bad:
        @hookimpl
        def register_nlu(self, register: Any) -> None:
            register("bad", lambda ctx: None, options=dict)

    with pytest.raises(PluginError, match="not a ComponentOptions model"):
        collect_components(make_plugin_manager(entry_points=False, extra=(Bad(),)))


@pytest.mark.parametrize(("kind", "name"), built_ins())
def test_every_option_of_a_built_in_is_on_its_stage_page(kind: str, name: str) -> None:
    """docs/stages/<kind>.md lists each option in its table, with the component's name."""
    page = (Path(__file__).parents[1] / "docs" / "stages" / f"{kind}.md").read_text()
    components = collect_components(make_plugin_manager(entry_points=False))
    model = getattr(components, kind).entries[name].options
    assert model is not None
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    for option in model.model_fields:
        row = next((r for r in rows if r.startswith(f"| `{option}` |")), None)
        assert row is not None and name in row, f"docs/stages/{kind}.md lacks {option} ({name})"
