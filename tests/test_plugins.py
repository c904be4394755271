"""The plugin machinery: registration, validation, discovery, and every hook (test_hook_*)."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

import pytest

import tod_echo
from tod_runtime import Config, Runtime, hookimpl, hookspecs
from tod_runtime.cli import main
from tod_runtime.errors import ConfigError, PluginError
from tod_runtime.plugins import DEFAULT_PLUGINS, collect_components, make_plugin_manager

ROOT = Path(__file__).resolve().parents[1]
HOOKS = sorted(
    name
    for name, fn in vars(hookspecs).items()
    if inspect.isfunction(fn) and hasattr(fn, "tod_runtime_spec")
)


def echo_runtime(*extra: object) -> Runtime:
    config = Config(
        services="echo", backend="echo", nlu="echo", tracker="echo", policy="echo", generator="echo"
    )
    pm = make_plugin_manager(entry_points=False, extra=(tod_echo, *extra))
    return Runtime(config, plugin_manager=pm)


# ---------------------------------------------------------------- meta-tests


def test_every_hook_is_documented_with_its_exact_arguments() -> None:
    docs = (ROOT / "docs" / "plugins.md").read_text()
    for name in HOOKS:
        params = ", ".join(inspect.signature(getattr(hookspecs, name)).parameters)
        assert f"### {name}({params})" in docs, f"docs/plugins.md lacks '### {name}({params})'"


def test_every_hook_has_a_test() -> None:
    tests = "\n".join(p.read_text() for p in (ROOT / "tests").rglob("test_*.py"))
    for name in HOOKS:
        assert re.search(rf"def test_hook_{name}\b", tests), f"no test_hook_{name}"


def test_every_hookspec_is_typed_and_has_a_docstring() -> None:
    for name in HOOKS:
        fn = getattr(hookspecs, name)
        assert fn.__doc__ and len(fn.__doc__) > 40, name
        assert "return" in inspect.getsource(fn) or fn.__annotations__.get("return"), name


def test_builtins_are_ordinary_plugins(pm: Any) -> None:
    names = [n for n, _ in pm.list_name_plugin()]
    assert names[: len(DEFAULT_PLUGINS)] == list(DEFAULT_PLUGINS)


# ---------------------------------------------------------------- registration rules


def test_a_duplicate_name_is_refused_naming_both_plugins() -> None:
    class Twin:
        @hookimpl
        def register_nlu(self, register: Any) -> None:
            register("rules", lambda ctx: None)

    pm = make_plugin_manager(entry_points=False, extra=(Twin(),))
    with pytest.raises(PluginError, match="registered twice.*default_nlu"):
        collect_components(pm)


@pytest.mark.parametrize("bad", ["", "has space", "semi;colon"])
def test_an_invalid_name_is_refused(bad: str) -> None:
    class Bad:
        @hookimpl
        def register_policies(self, register: Any) -> None:
            register(bad, lambda ctx: None)

    with pytest.raises(PluginError, match="invalid name"):
        collect_components(make_plugin_manager(entry_points=False, extra=(Bad(),)))


def test_an_unknown_component_names_the_available_ones(pm: Any) -> None:
    with pytest.raises(ConfigError, match="unknown nlu 'nope'.*available: learned, rules"):
        collect_components(pm).nlu.get("nope")


def test_plugins_dir_loads_files(tmp_path: Path) -> None:
    (tmp_path / "shout.py").write_text(
        "from tod_runtime import hookimpl\n"
        "@hookimpl\n"
        "def register_generators(register):\n"
        "    register('shout', lambda ctx: None)\n"
    )
    components = collect_components(make_plugin_manager(tmp_path, entry_points=False))
    assert components.generator.entries["shout"].plugin.startswith("file:")


def test_a_missing_plugins_dir_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="plugins folder not found"):
        make_plugin_manager(tmp_path / "nope")


def test_tod_plugins_lists_components(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plugins"]) == 0
    out = capsys.readouterr().out
    assert "tod_runtime.nlu.default_nlu: register_nlu" in out
    assert re.search(r"store\s+memory, sqlite", out)


# ---------------------------------------------------------------- one test per hook


async def test_hook_register_nlu() -> None:
    async with echo_runtime() as rt:
        assert isinstance(rt.nlu, tod_echo.EchoNLU)
        assert (await rt.handle("s", "city=Lima")).user_acts["Echo_1"][0].values == ["Lima"]


async def test_hook_register_trackers() -> None:
    async with echo_runtime() as rt:
        assert isinstance(rt.tracker, tod_echo.EchoTracker)


async def test_hook_register_policies() -> None:
    async with echo_runtime() as rt:
        assert isinstance(rt.policy, tod_echo.EchoPolicy)


async def test_hook_register_generators() -> None:
    async with echo_runtime() as rt:
        assert isinstance(rt.generator, tod_echo.EchoGenerator)
        assert (await rt.handle("s", "city=Lima")).utterance == "REQ_MORE()"


async def test_hook_register_backends() -> None:
    async with echo_runtime() as rt:
        assert isinstance(rt.backend, tod_echo.EchoBackend)
        assert list(rt.schemas) == ["Echo_1"]


async def test_hook_register_stores() -> None:
    opened: list[str] = []

    class Store:
        @hookimpl
        def register_stores(self, register: Any) -> None:
            from tod_runtime.stores.memory import MemoryStore

            register("counting", lambda url: opened.append(url) or MemoryStore())

    rt = echo_runtime(Store())
    rt.config = rt.config.with_overrides(store="counting://x")
    async with rt:
        await rt.handle("s", "city=Lima")
    assert opened == ["counting://x"]


def test_hook_register_commands(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "hello.py").write_text(
        "from tod_runtime import hookimpl\n"
        "@hookimpl\n"
        "def register_commands(cli):\n"
        "    p = cli.add_parser('hello')\n"
        "    p.set_defaults(func=lambda args: print('hello there') or 0)\n"
    )
    assert main(["--plugins-dir", str(tmp_path), "hello"]) == 0
    assert "hello there" in capsys.readouterr().out
    assert main(["hello"]) == 2  # without the plugin the command does not exist


async def test_hook_prepare_schema() -> None:
    class Describe:
        @hookimpl
        def prepare_schema(self, schema: Any) -> None:
            schema.description = schema.description.upper()

    async with echo_runtime(Describe()) as rt:
        assert rt.schemas["Echo_1"].description == "A TINY SERVICE FOR TESTS"


async def test_hook_turn_started() -> None:
    tod_echo.observed.clear()
    async with echo_runtime() as rt:
        await rt.handle("s", "city=Lima")
    assert ("turn_started", ("s", "city=Lima")) in tod_echo.observed


async def test_hook_service_called() -> None:
    tod_echo.observed.clear()
    async with echo_runtime() as rt:
        await rt.handle("s", "city=Lima")
        await rt.handle("s", "call")
    assert ("service_called", ("s", "Echo_1", "FindThing", 1)) in tod_echo.observed


async def test_hook_turn_finished() -> None:
    tod_echo.observed.clear()
    async with echo_runtime() as rt:
        await rt.handle("s", "city=Lima")
    assert tod_echo.observed[-1] == ("turn_finished", ("s", "REQ_MORE()"))


def test_a_component_that_breaks_its_protocol_is_a_plugin_error_naming_the_plugin() -> None:
    class SyncNLU:
        def parse(self, text: str, context: Any) -> dict[str, Any]:  # not async
            return {}

    class Lazy:
        @hookimpl
        def register_nlu(self, register: Any) -> None:
            register("sync", lambda ctx: SyncNLU())
            register("nothing", lambda ctx: object())

    pm = make_plugin_manager(entry_points=False, extra=(Lazy(),))
    components = collect_components(pm)
    assert components.nlu.entries["sync"].plugin == "extra-0"
    with pytest.raises(
        PluginError, match=r"plugin extra-0: nlu 'sync'.*parse\(\) must be 'async def'"
    ):
        components.nlu.build("sync", None)  # type: ignore[arg-type]
    with pytest.raises(PluginError, match=r"nlu 'nothing'.*no method parse\(\)"):
        components.nlu.build("nothing", None)  # type: ignore[arg-type]


def test_registration_hooks_run_through_pluggy_so_wrappers_run() -> None:
    seen: list[str] = []

    class Wrapper:
        @hookimpl(wrapper=True)
        def register_nlu(self, register: Any) -> Any:
            seen.append("before")
            result = yield
            seen.append("after")
            return result

    pm = make_plugin_manager(entry_points=False, extra=(Wrapper(),))
    components = collect_components(pm)
    assert seen == ["before", "after"]
    assert components.nlu.entries["rules"].plugin == "tod_runtime.nlu.default_nlu"
