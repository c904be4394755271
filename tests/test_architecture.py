"""The house rules that keep the layout simple, checked on the source: no import circles in
tod_runtime/, between modules or between packages; the hook specifications import nothing
from the engine; pipeline code never imports the command line, the REPL or a web framework;
the metrics and the component context are leaves; training code is imported by no stage."""

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


def package_of(module: str) -> str:
    """The package a module belongs to at the top of tod_runtime/: ``tod_runtime.nlu.rules``
    -> ``tod_runtime.nlu``; a top-level module (``tod_runtime.plugins``) stands alone."""
    return ".".join(module.split(".")[:2])


def package_graph(graph: dict[str, set[str]]) -> dict[str, dict[str, list[str]]]:
    """Package -> package it imports -> the module imports that make the edge."""
    out: dict[str, dict[str, list[str]]] = {}
    for name, targets in graph.items():
        for target in targets:
            a, b = package_of(name), package_of(target)
            if a != b and "tod_runtime" not in (a, b):  # the root's __init__ re-exports
                out.setdefault(a, {}).setdefault(b, []).append(f"{name} -> {target}")
    return out


def package_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one package (Tarjan)."""
    edges = package_graph(graph)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(edges.get(node, {})):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while (top := stack.pop()) != node:
                group.append(top)
            groups.append(sorted([*group, node]))

    for node in sorted({package_of(m) for m in graph}):
        if node not in index:
            visit(node)
    return [g for g in groups if len(g) > 1]


def test_there_is_no_circle_between_packages() -> None:
    groups = package_circles(GRAPH)
    edges = package_graph(GRAPH)
    why = [
        f"{a} -> {b}: {edges[a][b][0]}"
        for group in groups
        for a in group
        for b in sorted(set(edges.get(a, {})) & set(group))
    ]
    assert groups == [], "packages in a circle: " + "; ".join(why)


def test_the_package_check_finds_a_circle() -> None:
    graph = {
        "tod_runtime.nlu.rules": {"tod_runtime.plugins"},
        "tod_runtime.plugins": {"tod_runtime.nlu.base"},
        "tod_runtime.nlu.base": set(),
        "tod_runtime.dst.rules": {"tod_runtime.nlu.base"},
    }
    assert package_circles(graph) == [["tod_runtime.nlu", "tod_runtime.plugins"]]


LEAVES = {
    # module prefix -> what it may import
    "tod_runtime.metrics": ("tod_runtime.metrics", "tod_runtime.dialogue", "tod_runtime.schema",
                            "tod_runtime.values"),
    "tod_runtime.components": ("tod_runtime.schema", "tod_runtime.backends.base"),
}  # fmt: skip


@pytest.mark.parametrize("leaf", sorted(LEAVES))
def test_metrics_and_the_component_context_are_leaves(leaf: str) -> None:
    """Replay, training and benchmarks import the metrics; every stage imports the context:
    neither may pull in a stage, the runtime or replay."""
    for name in MODULES:
        if name == leaf or name.startswith(leaf + "."):
            assert {m for m in GRAPH[name] if not m.startswith(LEAVES[leaf])} == set(), name


def test_training_code_is_imported_by_no_stage() -> None:
    """Training has one home, ``tod_runtime.training``: it imports the stages, and nothing
    but the command registry (``tod train``) imports it."""
    assert any(name.startswith("tod_runtime.training.") for name in MODULES)
    for name, targets in GRAPH.items():
        if name == "tod_runtime.default_commands" or name.startswith("tod_runtime.training"):
            continue
        assert {m for m in targets if m.startswith("tod_runtime.training")} == set(), name
    stray = [n for n in MODULES if n.rpartition(".")[2] == "train"]
    assert stray == [], "a trainer outside tod_runtime/training/"
