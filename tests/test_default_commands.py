"""The built-in commands are a plugin (default_commands), registered like a third party's."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tod_runtime.cli import build_parser, main
from tod_runtime.plugins import DEFAULT_PLUGINS, make_plugin_manager

ROOT = Path(__file__).resolve().parents[1]
BUILT_IN = ["data", "plugins", "chat", "replay", "simulate", "test", "train", "serve"]


def _commands(help_text: str) -> list[str]:
    return re.findall(r"^    (\w+)\s", help_text, flags=re.MULTILINE)


def test_default_commands_is_a_default_plugin() -> None:
    assert "tod_runtime.default_commands" in DEFAULT_PLUGINS
    pm = make_plugin_manager(entry_points=False)
    impls = [pm.get_name(i.plugin) for i in pm.hook.register_commands.get_hookimpls()]
    assert impls == ["tod_runtime.default_commands"]


def test_tod_help_lists_the_built_in_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert _commands(capsys.readouterr().out) == BUILT_IN


def test_a_plugin_command_comes_after_the_built_ins(tmp_path: Path) -> None:
    (tmp_path / "hello.py").write_text(
        "from tod_runtime import hookimpl\n"
        "@hookimpl\n"
        "def register_commands(cli):\n"
        "    cli.add_parser('hello', help='say hello')\n"
    )
    assert _commands(build_parser(str(tmp_path)).format_help()) == [*BUILT_IN, "hello"]


def test_a_plugin_command_can_reuse_the_pipeline_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "which.py").write_text(
        "from tod_runtime import hookimpl\n"
        "from tod_runtime.default_commands import add_pipeline_options, config_from_args\n"
        "@hookimpl\n"
        "def register_commands(cli):\n"
        "    p = cli.add_parser('which')\n"
        "    add_pipeline_options(p)\n"
        "    p.set_defaults(func=lambda args: print(config_from_args(args).policy) or 0)\n"
    )
    assert main(["--plugins-dir", str(tmp_path), "which", "--policy", "mine"]) == 0
    assert capsys.readouterr().out == "mine\n"


def test_a_plugin_that_redefines_a_built_in_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "chat2.py").write_text(
        "from tod_runtime import hookimpl\n"
        "@hookimpl\n"
        "def register_commands(cli):\n"
        "    cli.add_parser('chat')\n"
    )
    assert main(["--plugins-dir", str(tmp_path), "chat"]) == 4  # a plugin error
    assert "command that exists already" in capsys.readouterr().err


def test_cli_builds_no_command_itself() -> None:
    source = (ROOT / "tod_runtime" / "cli.py").read_text()
    assert "add_parser(" not in source


def test_no_module_of_the_package_imports_cli() -> None:
    for path in (ROOT / "tod_runtime").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            assert "tod_runtime.cli" not in names, f"{path} imports tod_runtime.cli"
