"""Hook specifications. pluggy calls hooks synchronously, so:

* registration hooks are plain functions called once at start-up with a ``register`` callback;
* components (NLU, trackers, policies, generators, backends, stores) are objects with async
  methods, chosen by name from the config, never through a ``firstresult`` hook;
* observer hooks may be ``async def``: the runtime awaits whatever they return and ignores it.

A new argument may be added to a hook; an existing one is never changed.

This module is the plugin contract: it imports nothing from the engine (only the data model,
for type checking), so a plugin can import it without pulling in the runtime.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import pluggy

if TYPE_CHECKING:
    import argparse

    from aiohttp import web

    from tod_runtime.dialogue.models import ServiceCall
    from tod_runtime.dialogue.steps import TurnResult
    from tod_runtime.schema.models import ServiceSchema

PROJECT = "tod_runtime"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


class StageRegister(Protocol):
    """``register(name, factory, options=None)``: ``factory(ctx: ComponentContext)`` builds the
    component (an object satisfying the stage's Protocol, checked when it is built);
    ``options``, a ``ComponentOptions`` model (pydantic, unknown names forbidden), validates
    the config's ``[options.<stage>]`` table before the factory runs."""

    def __call__(
        self, name: str, factory: Callable[..., Any], *, options: type[Any] | None = None
    ) -> None: ...


class BackendRegister(Protocol):
    """``register(name, factory, accepts)``: ``factory(source: str) -> Backend``,
    ``accepts(source) -> bool`` for ``backend = "auto"``."""

    def __call__(
        self, name: str, factory: Callable[[str], Any], accepts: Callable[[str], bool] | None = None
    ) -> None: ...


class StoreRegister(Protocol):
    """``register(scheme, factory)``: ``factory(url: str) -> SessionStore``."""

    def __call__(self, scheme: str, factory: Callable[[str], Any]) -> None: ...


# ---------------------------------------------------------------- registration (start-up, sync)


@hookspec
def register_nlu(register: StageRegister) -> None:
    """Register NLU components. Called once when a runtime is built.

    ``register(name, factory)`` where ``factory(ctx: ComponentContext) -> NLU``. Names are
    unique across all plugins; a duplicate raises PluginError.

    Example::

        @hookimpl
        def register_nlu(register):
            register("echo", lambda ctx: EchoNLU(ctx.schemas))
    """


@hookspec
def register_trackers(register: StageRegister) -> None:
    """Register dialogue-state trackers: ``register(name, factory)``, ``factory(ctx) ->
    Tracker``. Called once at start-up."""


@hookspec
def register_policies(register: StageRegister) -> None:
    """Register policies: ``register(name, factory)``, ``factory(ctx) -> Policy``. Called
    once at start-up."""


@hookspec
def register_generators(register: StageRegister) -> None:
    """Register NLG generators: ``register(name, factory)``, ``factory(ctx) -> Generator``.
    Called once at start-up."""


@hookspec
def register_simulators(register: StageRegister) -> None:
    """Register simulated users for ``tod simulate``: ``register(name, factory)``,
    ``factory(ctx: ComponentContext) -> Simulator`` (``tod_runtime.simulate.base``: ``async
    new_user(rng) -> SimulatedUser``, whose ``respond(system_turn) -> UserActs`` plays one
    dialogue). ``ctx.options`` is the config's ``[options.simulator]``. Called once at
    start-up; returns nothing.

    Example::

        @hookimpl
        def register_simulators(register):
            register("impatient", lambda ctx: ImpatientSimulator(ctx.schemas, ctx.backend))
    """


@hookspec
def register_backends(register: BackendRegister) -> None:
    """Register service backends: ``register(name, factory, accepts)``. ``factory(source:
    str) -> Backend`` opens the services named by ``source`` (a folder, ``SGD_DIR:split``...);
    ``accepts(source) -> bool`` tells whether the backend can serve that source when the
    config says ``backend = "auto"``. Called once at start-up."""


@hookspec
def register_stores(register: StoreRegister) -> None:
    """Register session stores by URL scheme: ``register(scheme, factory)``, ``factory(url:
    str) -> SessionStore``. ``tod serve --store redis://...`` picks the ``redis`` store."""


@hookspec
def register_commands(cli: argparse._SubParsersAction[Any]) -> None:
    """Add ``tod`` sub-commands. ``cli`` is argparse's sub-parser collection: call
    ``cli.add_parser(name)`` and ``parser.set_defaults(func=callable)``; ``func(args) -> int``
    is run with the parsed arguments and returns the exit code."""


@hookspec
def register_routes(app: web.Application) -> None:
    """Add routes to the HTTP server. Called once by ``tod_runtime.server.create_app`` after
    the built-in routes are added, before the app starts. ``app`` is the aiohttp
    application: call ``app.router.add_get(...)`` and friends; ``app[RUNTIME]``
    (``tod_runtime.server.RUNTIME``) is the runtime. Return value ignored.

    Example::

        @hookimpl
        def register_routes(app):
            app.router.add_get("/v1/version", lambda request: web.json_response({"v": 1}))
    """


@hookspec
def prepare_schema(schema: ServiceSchema) -> None:
    """Called once per service schema after loading, before any component is built. May
    adjust the schema in place (e.g. add possible values or descriptions)."""


# ------------------------------------------------ observers (per turn, may be async)


@hookspec
def turn_started(session_id: str, text: str) -> Any:
    """Called when a user turn enters the runtime, before NLU. May be async; the return value
    is awaited if it is awaitable and then ignored."""


@hookspec
def service_called(
    session_id: str, service: str, call: ServiceCall, results: list[dict[str, str]]
) -> Any:
    """Called after a backend answered a service call. May be async; return value ignored."""


@hookspec
def turn_finished(session_id: str, result: TurnResult) -> Any:
    """Called after a turn's events are stored, with the turn result. May be async; return
    value ignored."""
