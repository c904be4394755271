"""Plugin manager factory and the typed registry of named components.

``make_plugin_manager()`` registers the built-ins (DEFAULT_PLUGINS), then the ``tod_runtime``
entry-point group, then ``*.py`` files of a plugins folder. ``collect_components(pm)`` calls
each registration hook once, through ``pm.hook`` (so hook wrappers run), and returns what was
registered, by kind and name. ``Components.build_*`` builds a component and checks it
satisfies its stage's Protocol, naming the plugin when it does not.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any, Generic, TypeVar

import pluggy
from pydantic import ValidationError

from tod_runtime import hookspecs
from tod_runtime.backends.base import Backend
from tod_runtime.components import ComponentContext as ComponentContext
from tod_runtime.components import ComponentOptions
from tod_runtime.dialogue.simulation import Simulator
from tod_runtime.dst.base import Tracker
from tod_runtime.errors import ConfigError, PluginError, format_loc
from tod_runtime.nlg.base import Generator
from tod_runtime.nlu.base import NLU
from tod_runtime.policy.base import Policy
from tod_runtime.stores.base import SessionStore

DEFAULT_PLUGINS: tuple[str, ...] = (
    "tod_runtime.nlu.default_nlu",
    "tod_runtime.dst.default_trackers",
    "tod_runtime.policy.default_policies",
    "tod_runtime.nlg.default_generators",
    "tod_runtime.backends.default_backends",
    "tod_runtime.stores.default_stores",
    "tod_runtime.simulate.default_simulators",
    "tod_runtime.default_commands",
)


A = TypeVar("A")  # what a factory takes
C = TypeVar("C")  # what it builds


@dataclass(frozen=True)
class Registered(Generic[A, C]):
    factory: Callable[[A], C]
    plugin: str
    accepts: Callable[[str], bool] | None = None
    options: type[ComponentOptions] | None = None  # what [options.<kind>] may hold


@dataclass
class Registry(Generic[A, C]):
    """The components of one kind, by name, and the Protocol every one must satisfy."""

    kind: str
    protocol: type  # the stage's Protocol class (C)
    entries: dict[str, Registered[A, C]] = field(default_factory=dict)

    def get(self, name: str) -> Registered[A, C]:
        if name not in self.entries:
            raise ConfigError(
                f"unknown {self.kind} {name!r}",
                hint=f"available: {', '.join(sorted(self.entries)) or 'none'} (see `tod plugins`)",
            )
        return self.entries[name]

    def build(self, name: str, arg: A) -> C:
        """Build component ``name``; a result that does not satisfy the Protocol (a missing
        method, a sync method where an async one is due) is a PluginError naming the plugin."""
        entry = self.get(name)
        if entry.options is not None and isinstance(arg, ComponentContext):
            check_options(self.kind, name, entry, arg.options)
        built = entry.factory(arg)
        problem = protocol_problem(built, self.protocol)
        if problem is not None:
            raise PluginError(
                f"plugin {entry.plugin}: {self.kind} {name!r} built a {type(built).__name__} "
                f"that is not a {self.protocol.__name__}: {problem}",
                hint=f"see the {self.protocol.__name__} Protocol in docs/plugins.md",
            )
        return built


def check_options(kind: str, name: str, entry: Registered[Any, Any], options: Any) -> None:
    """``[options.<kind>]`` validated against the options model the component registered;
    the first problem is a ConfigError naming the option, the component and its plugin."""
    assert entry.options is not None
    try:
        entry.options.model_validate(dict(options))
    except ValidationError as exc:
        err = exc.errors()[0]
        fields = entry.options.model_fields
        known = ", ".join(f"{f} (default {v.default!r})" for f, v in fields.items())
        problem = "unknown option" if err["type"] == "extra_forbidden" else err["msg"]
        close = difflib.get_close_matches(str(err["loc"][0]), list(fields), n=1)
        raise ConfigError(
            f"{problem} for {kind} {name!r} (plugin {entry.plugin})",
            where=f"[options.{kind}]",
            path=format_loc(list(err["loc"])) or None,
            hint=(f"did you mean {close[0]!r}? " if close else "")
            + (f"its options: {known}" if known else f"{kind} {name!r} takes no options"),
        ) from None


def protocol_problem(obj: object, protocol: type) -> str | None:
    """Why ``obj`` does not satisfy ``protocol`` (async methods must be coroutine functions),
    or None when it does."""
    for name, member in vars(protocol).items():
        if name.startswith("_") or not callable(member):
            continue
        found = getattr(obj, name, None)
        if not callable(found):
            return f"it has no method {name}()"
        if inspect.iscoroutinefunction(member) and not inspect.iscoroutinefunction(found):
            return f"{name}() must be 'async def'"
    return None


@dataclass
class Components:
    """Everything the registration hooks registered, by kind then name."""

    nlu: Registry[ComponentContext, NLU] = field(default_factory=lambda: Registry("nlu", NLU))
    tracker: Registry[ComponentContext, Tracker] = field(
        default_factory=lambda: Registry("tracker", Tracker)
    )
    policy: Registry[ComponentContext, Policy] = field(
        default_factory=lambda: Registry("policy", Policy)
    )
    generator: Registry[ComponentContext, Generator] = field(
        default_factory=lambda: Registry("generator", Generator)
    )
    backend: Registry[str, Backend] = field(default_factory=lambda: Registry("backend", Backend))
    store: Registry[str, SessionStore] = field(
        default_factory=lambda: Registry("store", SessionStore)
    )
    simulator: Registry[ComponentContext, Simulator] = field(
        default_factory=lambda: Registry("simulator", Simulator)
    )

    def registries(self) -> dict[str, Registry[Any, Any]]:
        return {kind: getattr(self, kind) for kind in COMPONENT_KINDS}

    def describe(self, **chosen: str) -> dict[str, str]:
        """For error messages: each chosen component as "nlu 'rules' (plugin ...)"."""
        registries = self.registries()
        return {
            kind: f"{kind} {name!r} (plugin {registries[kind].entries[name].plugin})"
            for kind, name in chosen.items()
            if name in registries[kind].entries
        }

    def open_backend(self, name: str, source: str) -> Backend:
        """The backend ``name`` serving ``source``; ``auto``: the first that accepts it."""
        if name == "auto":
            for candidate, entry in self.backend.entries.items():
                if entry.accepts is not None and entry.accepts(source):
                    name = candidate
                    break
            else:
                path, colon, _ = source.rpartition(":")
                exists = Path(source).exists() or bool(colon and Path(path).exists())
                raise ConfigError(
                    "no backend can serve these services" if exists else "no such folder",
                    file=source,
                    hint="give a services folder (with <Service>/schema.json) or SGD_DIR:split",
                )
        return self.backend.build(name, source)

    def open_store(self, url: str) -> SessionStore:
        scheme = url.split("://", 1)[0] if "://" in url else url
        return self.store.build(scheme, url)


_HOOKS = {
    "nlu": "register_nlu",
    "tracker": "register_trackers",
    "policy": "register_policies",
    "generator": "register_generators",
    "backend": "register_backends",
    "store": "register_stores",
    "simulator": "register_simulators",
}
COMPONENT_KINDS: tuple[str, ...] = tuple(_HOOKS)


def _name_ok(name: str) -> bool:
    return bool(name) and name.replace("_", "").replace("-", "").replace(".", "").isalnum()


class _Registrar:
    """The ``register`` callback handed to one registration hook. It tells which plugin is
    registering by finding the calling hook implementation on the stack, so errors and
    ``tod plugins`` name the plugin even though pluggy calls all implementations at once."""

    def __init__(self, registry: Registry[Any, Any], pm: pluggy.PluginManager, hook: str):
        self.registry = registry
        self.callers: dict[object, list[tuple[object, str]]] = {}
        for impl in getattr(pm.hook, hook).get_hookimpls():
            function = getattr(impl.function, "__func__", impl.function)
            name = pm.get_name(impl.plugin) or repr(impl.plugin)
            self.callers.setdefault(function.__code__, []).append((impl.plugin, name))

    def _plugin(self) -> str:
        frame: FrameType | None = sys._getframe(2)
        while frame is not None:
            found = self.callers.get(frame.f_code)
            if found:
                owner = frame.f_locals.get("self")
                return next((n for p, n in found if p is owner), found[0][1])
            frame = frame.f_back
        return "<unknown plugin>"

    def __call__(
        self,
        name: str,
        factory: Callable[..., Any],
        accepts: Callable[[str], bool] | None = None,
        *,
        options: type[ComponentOptions] | None = None,
    ) -> None:
        plugin, kind, table = self._plugin(), self.registry.kind, self.registry.entries
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
        if options is not None and not (
            isinstance(options, type) and issubclass(options, ComponentOptions)
        ):
            raise PluginError(
                f"plugin {plugin} registered {kind} {name!r} with options that are not a "
                "ComponentOptions model",
                hint="subclass tod_runtime.components.ComponentOptions",
            )
        table[name] = Registered(factory, plugin, accepts, options)


def collect_components(pm: pluggy.PluginManager) -> Components:
    """Call every registration hook once, through ``pm.hook``."""
    components = Components()
    for kind, registry in components.registries().items():
        hook = _HOOKS[kind]
        getattr(pm.hook, hook)(register=_Registrar(registry, pm, hook))
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


def _invalid_plugin(pm: pluggy.PluginManager, exc: pluggy.PluginValidationError) -> PluginError:
    """A hook implementation pluggy refuses (an unknown hook name, an argument the hook does
    not have) as one clear line naming the plugin, with the nearest hook name."""
    plugin = exc.plugin
    file = getattr(plugin, "__file__", None)
    name = file or pm.get_name(plugin) or getattr(plugin, "__name__", None) or repr(plugin)
    lines = str(exc).splitlines()  # one line, or "Plugin .. for hook ..", the def, the why
    message = "; ".join(lines[1:]) if len(lines) > 1 else lines[0].split(" in plugin ")[0]
    known = [n for n, caller in vars(pm.hook).items() if getattr(caller, "spec", None)]
    hint = "see the hooks in docs/plugins.md"
    unknown = message.removeprefix("unknown hook ").strip("'") if "unknown hook" in message else ""
    close = difflib.get_close_matches(unknown, known, n=1) if unknown else []
    if close:
        hint = f"did you mean {close[0]!r}? (see docs/plugins.md)"
    return PluginError(f"plugin {name}: {message}", hint=hint)


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
    try:
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
    except pluggy.PluginValidationError as exc:
        raise _invalid_plugin(pm, exc) from None
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
