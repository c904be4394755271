"""tod-runtime-echo: discovered through its entry point, and a deterministic pipeline."""

from __future__ import annotations

import json
from importlib.metadata import entry_points
from pathlib import Path

import pytest

import tod_echo
from tod_runtime import Config, Runtime
from tod_runtime.cli import main
from tod_runtime.config import embedded_services_dir
from tod_runtime.plugins import COMPONENT_KINDS, collect_components, make_plugin_manager

ECHO = {kind: "echo" for kind in ("nlu", "tracker", "policy", "generator")}


def test_the_entry_point_names_the_package() -> None:
    (ep,) = [ep for ep in entry_points(group="tod_runtime") if ep.name == "echo"]
    assert ep.value == "tod_echo"
    assert ep.dist is not None and ep.dist.name == "tod-runtime-echo"


def test_make_plugin_manager_registers_it_through_the_entry_point() -> None:
    pm = make_plugin_manager()
    assert pm.get_plugin("echo") is tod_echo
    components = collect_components(pm)
    for kind in COMPONENT_KINDS:
        if kind != "store":
            assert components.registries()[kind].get("echo").plugin == "echo"


def test_without_entry_points_it_is_not_loaded() -> None:
    assert make_plugin_manager(entry_points=False).get_plugin("echo") is None


def test_tod_plugins_json_lists_its_components(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plugins", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    (echo,) = [p for p in listing["plugins"] if p["name"] == "echo"]
    assert "register_nlu" in echo["hooks"] and "turn_finished" in echo["hooks"]
    for kind in ("nlu", "tracker", "policy", "generator", "backend"):
        assert listing["components"][kind]["echo"] == "echo"


def test_the_schema_ships_inside_the_package() -> None:
    assert tod_echo.SCHEMA.parent == Path(tod_echo.__file__).parent
    assert json.loads(tod_echo.SCHEMA.read_text())[0]["service_name"] == "Echo_1"


def test_auto_backend_picks_echo_for_the_echo_source_only() -> None:
    accepts = collect_components(make_plugin_manager()).backend.entries["echo"].accepts
    assert accepts is not None and accepts("echo")
    for source in (str(embedded_services_dir()), "some/sgd:dev", "echo:dev", "./echo"):
        assert not accepts(source), source


async def test_installed_it_does_not_take_over_the_embedded_services() -> None:
    async with Runtime(Config(), plugin_manager=make_plugin_manager()) as rt:
        assert type(rt.backend).__name__ == "MockBackend"


async def test_a_conversation_through_the_discovered_plugin() -> None:
    tod_echo.observed.clear()
    config = Config(services="echo", **ECHO)  # backend "auto" picks echo for "echo"
    async with Runtime(config, plugin_manager=make_plugin_manager()) as rt:
        assert isinstance(rt.backend, tod_echo.EchoBackend)
        assert (await rt.handle("s", "city=Lima size=small")).utterance == "REQ_MORE()"
        result = await rt.handle("s", "call")
        assert result.utterance == "OFFER(name=Thing One)"
        assert rt.backend.calls[0][1].parameters == {"city": "Lima", "size": "small"}
    assert ("service_called", ("s", "Echo_1", "FindThing", 1)) in tod_echo.observed
    assert tod_echo.observed[-1] == ("turn_finished", ("s", "OFFER(name=Thing One)"))


def test_tod_chat_with_the_echo_pipeline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "turns.txt"
    script.write_text("city=Lima\ncall\n")
    flags = [f"--{kind}=echo" for kind in ECHO]
    assert main(["chat", "--services", "echo", *flags, "--script", str(script), "--json"]) == 0
    turns = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [t["utterance"] for t in turns] == ["REQ_MORE()", "OFFER(name=Thing One)"]


def test_the_echo_simulated_user_drives_tod_simulate(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pipeline = ["--backend", "echo", "--nlu", "echo", "--tracker", "echo", "--policy", "echo"]
    argv = ["simulate", "--services", "echo", *pipeline, "--generator", "echo"]
    assert main([*argv, "--simulator", "echo", "--dialogues", "2"]) == 0
    assert "success_rate 1.0" in capsys.readouterr().out
