"""Plugin manager factory and the registry of named components.

``make_plugin_manager()`` registers the built-ins (DEFAULT_PLUGINS), then the ``tod_runtime``
entry-point group, then ``*.py`` files of a plugins folder. ``collect_components(pm)`` calls
the registration hooks once and returns what was registered, by kind and name.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

import pluggy

from tod_runtime import hookspecs
from tod_runtime.errors import ConfigError, PluginError
from tod_runtime.schema.loader import Schemas

DEFAULT_PLUGINS: tuple[str, ...] = (
    "tod_runtime.nlu.default_nlu",
    "tod_runtime.dst.default_trackers",
    "tod_runtime.policy.default_policies",
    "tod_runtime.nlg.default_generators",
    "tod_runtime.backends.default_backends",
    "tod_runtime.stores.default_stores",
    "tod_runtime.default_commands",
)


@dataclass(frozen=True)
class ComponentContext:
    """What a stage factory gets: the services, the backend, and the component's options."""

    schemas: Schemas
    backend: Any  # a Backend; Any so plugins need not import the protocol
    options: Mapping[str, Any] = field(default_factory=dict)
    service_dirs: Mapping[str, Path] = field(default_factory=dict)


StageFactory = Callable[[ComponentContext], Any]
BackendFactory = Callable[[str], Any]
StoreFactory = Callable[[str], Any]


class StageRegister(Protocol):
    def __call__(self, name: str, factory: StageFactory) -> None: ...


class BackendRegister(Protocol):
    def __call__(
        self, name: str, factory: BackendFactory, accepts: Callable[[str], bool] | None = None
    ) -> None: ...


class StoreRegister(Protocol):
    def __call__(self, scheme: str, factory: StoreFactory) -> None: ...


@dataclass
class Registered:
    factory: Callable[..., Any]
    plugin: str
    accepts: Callable[[str], bool] | None = None


@dataclass
class Components:
    """Everything the registration hooks registered, by kind then name."""

    nlu: dict[str, Registered] = field(default_factory=dict)
    tracker: dict[str, Registered] = field(default_factory=dict)
    policy: dict[str, Registered] = field(default_factory=dict)
    generator: dict[str, Registered] = field(default_factory=dict)
    backend: dict[str, Registered] = field(default_factory=dict)
    store: dict[str, Registered] = field(default_factory=dict)

    def get(self, kind: str, name: str) -> Registered:
        table: dict[str, Registered] = getattr(self, kind)
        if name not in table:
            raise ConfigError(
                f"unknown {kind} {name!r}",
                hint=f"available: {', '.join(sorted(table)) or 'none'} (see `tod plugins`)",
            )
        return table[name]


def _name_ok(name: str) -> bool:
    return bool(name) and name.replace("_", "").replace("-", "").replace(".", "").isalnum()


def _registrar(table: dict[str, Registered], kind: str, plugin: str) -> Callable[..., None]:
    def register(
        name: str, factory: Callable[..., Any], accepts: Callable[[str], bool] | None = None
    ) -> None:
        if not isinstance(name, str) or not _name_ok(name):
            raise PluginError(
                f"plugin {plugin} registered a {kind} with an invalid name {name!r}",
                hint="use letters, digits, '-', '_' or '.'",
            )
        if not callable(factory):
            raise PluginError(f"plugin {plugin} registered {kind} {name!r} with no factory")
        if name in table:
            raise PluginError(
                f"{kind} {name!r} is registered twice: by {table[name].plugin} and by {plugin}",
                hint="rename one of them or remove one plugin",
            )
        table[name] = Registered(factory, plugin, accepts)

    return register


_HOOKS = {
    "nlu": "register_nlu",
    "tracker": "register_trackers",
    "policy": "register_policies",
    "generator": "register_generators",
    "backend": "register_backends",
    "store": "register_stores",
}


COMPONENT_KINDS: tuple[str, ...] = tuple(_HOOKS)


def collect_components(pm: pluggy.PluginManager) -> Components:
    """Call every registration hook once, plugin by plugin, so errors name the plugin."""
    components = Components()
    for kind, hook_name in _HOOKS.items():
        table: dict[str, Registered] = getattr(components, kind)
        for impl in getattr(pm.hook, hook_name).get_hookimpls():
            plugin = pm.get_name(impl.plugin) or repr(impl.plugin)
            impl.function(_registrar(table, kind, plugin))
    return components


def _load_file(path: Path) -> ModuleType:
    name = f"tod_runtime_plugin_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise PluginError(f"cannot load plugin file {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise PluginError(f"plugin file failed to import: {exc!r}", file=str(path)) from exc
    return module


def make_plugin_manager(
    plugins_dir: str | Path | None = None,
    *,
    entry_points: bool = True,
    extra: tuple[object, ...] = (),
) -> pluggy.PluginManager:
    """A fresh plugin manager: built-ins, then entry points, then a plugins folder, then
    ``extra`` plugin objects (handy in tests). Set TOD_TRACE_HOOKS=1 to trace hook calls."""
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    for module_name in DEFAULT_PLUGINS:
        pm.register(importlib.import_module(module_name), name=module_name)
    if entry_points:
        pm.load_setuptools_entrypoints(hookspecs.PROJECT)
    if plugins_dir is not None:
        folder = Path(plugins_dir)
        if not folder.is_dir():
            raise ConfigError("plugins folder not found", file=str(folder))
        for path in sorted(folder.glob("*.py")):
            pm.register(_load_file(path), name=f"file:{path}")
    for index, plugin in enumerate(extra):
        pm.register(plugin, name=getattr(plugin, "__name__", None) or f"extra-{index}")
    pm.check_pending()
    if os.environ.get("TOD_TRACE_HOOKS"):
        pm.trace.root.setwriter(lambda msg: print(msg, end="", file=sys.stderr))
        pm.enable_tracing()
    return pm


def plugin_names(pm: pluggy.PluginManager) -> list[tuple[str, list[str]]]:
    """(plugin name, hooks it implements) for every registered plugin."""
    out = []
    for name, plugin in pm.list_name_plugin():
        hooks = [h.name for h in pm.get_hookcallers(plugin) or []]
        out.append((name, sorted(hooks)))
    return out
