"""The house rules that keep the layout simple, checked on the source: no import circles in
tod_runtime/, the hook specifications import nothing from the engine, and pipeline code never
imports the command line, the REPL or a web framework."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "tod_runtime"
PIPELINE = ("pipeline", "runtime", "session", "nlu", "dst", "policy", "nlg", "backends", "stores")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports_of(name: str) -> set[str]:
    """Every tod_runtime module ``name`` imports: at the top, inside functions, and under
    TYPE_CHECKING alike (a circle through a lazy import is still a circle)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    [*package.split(".")[: len(package.split(".")) - node.level + 1], base]
                ).strip(".")
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                for alias in node.names
            ]
        else:
            continue
        found |= {t for t in targets if t in MODULES and t != name}
    return found


GRAPH = {name: imports_of(name) for name in MODULES}


def find_cycle() -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(GRAPH[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for start in sorted(GRAPH):
        if start not in state and (cycle := visit(start)):
            return cycle
    return None


def test_there_is_no_import_circle() -> None:
    cycle = find_cycle()
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_the_import_graph_sees_lazy_and_type_checking_imports() -> None:
    assert "tod_runtime.plugins" in GRAPH["tod_runtime.runtime"]
    assert "tod_runtime.dialogue.steps" in GRAPH["tod_runtime.hookspecs"]  # TYPE_CHECKING


def test_hookspecs_import_only_the_data_model() -> None:
    engine = {
        m for m in GRAPH["tod_runtime.hookspecs"]
        if not m.startswith(("tod_runtime.dialogue", "tod_runtime.schema"))
    }  # fmt: skip
    assert engine == set()


@pytest.mark.parametrize("area", PIPELINE)
def test_pipeline_code_never_imports_the_cli_repl_or_a_web_framework(area: str) -> None:
    for name, path in MODULES.items():
        if not name.startswith(f"tod_runtime.{area}"):
            continue
        text = path.read_text(encoding="utf-8")
        assert not GRAPH[name] & {"tod_runtime.cli", "tod_runtime.repl"}, name
        assert "import aiohttp" not in text and "from aiohttp" not in text, name


STAGES = ("nlu", "dst", "policy", "nlg")


@pytest.mark.parametrize("stage", STAGES)
def test_no_stage_imports_another(stage: str) -> None:
    """What stages share lives in dialogue/ or schema/, never in another stage's folder."""
    others = tuple(f"tod_runtime.{s}" for s in STAGES if s != stage)
    for name in MODULES:
        if name.startswith(f"tod_runtime.{stage}"):
            assert not {m for m in GRAPH[name] if m.startswith(others)}, name
