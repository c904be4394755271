"""Configuration: a TOML file, CLI overrides, defaults with no file, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

import tod_echo
from tod_runtime import Runtime
from tod_runtime.config import Config, embedded_services_dir, load_config
from tod_runtime.errors import ConfigError
from tod_runtime.plugins import make_plugin_manager


def test_defaults_need_no_file() -> None:
    config = load_config()
    assert (config.nlu, config.tracker, config.policy, config.generator) == (
        "learned", "rules", "rules", "template"
    )  # fmt: skip
    assert Path(config.services) == embedded_services_dir() and config.store == "memory://"


def test_a_file_is_read_and_flags_override_it(tmp_path: Path) -> None:
    path = tmp_path / "tod.toml"
    path.write_text('policy = "mine"\nstore = "sqlite:///x.db"\n[options.nlu]\nthreshold = 90\n')
    config = load_config(path, policy="cli", nlu=None)
    assert config.policy == "cli" and config.store == "sqlite:///x.db"
    assert config.options == {"nlu": {"threshold": 90}}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nlu = [", "invalid TOML"),
        ("colour = 'red'", "colour"),
        ("max_message_chars = 0", "max_message_chars"),
    ],
)
def test_bad_files_name_the_file_and_field(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "tod.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as info:
        load_config(path)
    assert "tod.toml" in str(info.value)


def test_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "none.toml")


async def test_stage_options_reach_the_chosen_component() -> None:
    config = Config(
        services="echo", backend="echo", nlu="echo", tracker="echo", policy="echo",
        generator="echo", options={"nlu": {"threshold": 90}},
    )  # fmt: skip
    async with Runtime(
        config, plugin_manager=make_plugin_manager(entry_points=False, extra=(tod_echo,))
    ) as rt:
        assert rt.nlu.options == {"threshold": 90}
