"""The dialogue manager: one user turn through NLU, DST, policy, backend and NLG.

``Runtime`` is the one engine behind the REPL, the server, the Python API and replay. Each
session is an event log in a store; a per-session lock makes two turns of one session run one
after the other, while different sessions run concurrently. A turn's events are appended in
one go at its end, so a failing stage leaves the session as it was.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pluggy
from pydantic import BaseModel, Field

from tod_runtime.config import Config
from tod_runtime.dialogue.context import (
    DialogueState,
    PolicyInput,
    SystemPlan,
    TrackerInput,
    TurnContext,
    UserActs,
)
from tod_runtime.dialogue.models import Action, Dialogue, ServiceCall
from tod_runtime.errors import ConfigError, InputError
from tod_runtime.language import looks_non_english
from tod_runtime.plugins import (
    ComponentContext,
    Components,
    collect_components,
    make_plugin_manager,
)
from tod_runtime.schema.loader import Schemas
from tod_runtime.session import (
    Event,
    ServiceCalled,
    SessionReset,
    StateTracked,
    SystemActed,
    SystemUttered,
    UserActsParsed,
    UserUttered,
    as_dialogue,
    current_state,
    history,
)


class TurnResult(BaseModel):
    """What one turn produced. ``notice`` is set (and nothing stored) when the input was
    rejected before the pipeline (empty, too long, not English)."""

    session_id: str
    utterance: str
    service: str | None = None
    actions: list[Action] = Field(default_factory=list)
    user_acts: UserActs = Field(default_factory=dict)
    state: DialogueState = Field(default_factory=dict)
    service_call: ServiceCall | None = None
    service_results: list[dict[str, str]] | None = None
    notice: str | None = None


def check_message(text: str, limit: int) -> str | None:
    """A polite reply for input the pipeline should not see, or None when it is fine."""
    if not text.strip():
        return "I didn't catch anything there. What would you like to do?"
    if len(text) > limit:
        return (
            f"That message is too long for me ({len(text)} characters; the limit is {limit}). "
            "Could you say it more briefly?"
        )
    if looks_non_english(text):
        return "Sorry, I can only understand English for now. Could you rephrase that?"
    return None


class Runtime:
    """The dialogue manager. Build it, ``await start()`` (or ``async with``), then
    ``await handle(session_id, text)``."""

    def __init__(
        self,
        config: Config | None = None,
        *,
        plugin_manager: pluggy.PluginManager | None = None,
        backend: Any | None = None,
        store: Any | None = None,
    ) -> None:
        self.config = config or Config()
        self.pm = plugin_manager or make_plugin_manager(self.config.plugins_dir)
        self.components: Components = collect_components(self.pm)
        self._backend: Any = backend
        self._store: Any = store
        self._locks: dict[str, asyncio.Lock] = {}
        self._started = False

    # ---------------------------------------------------------------- lifecycle

    async def start(self) -> Runtime:
        if self._started:
            return self
        cfg = self.config
        if self._backend is None:
            self._backend = await asyncio.to_thread(self._open_backend, cfg.services)
        self.schemas: Schemas = self._backend.schemas()
        for schema in self.schemas.values():
            self.pm.hook.prepare_schema(schema=schema)
        if self._store is None:
            self._store = self._open_store(cfg.store)
        dirs_of = getattr(self._backend, "service_dirs", None)
        service_dirs: dict[str, Path] = dirs_of() if callable(dirs_of) else {}

        def build(kind: str, name: str) -> Any:
            ctx = ComponentContext(
                schemas=self.schemas,
                backend=self._backend,
                options=cfg.options.get(kind, {}),
                service_dirs=service_dirs,
            )
            return self.components.get(kind, name).factory(ctx)

        self.nlu = build("nlu", cfg.nlu)
        self.tracker = build("tracker", cfg.tracker)
        self.policy = build("policy", cfg.policy)
        self.generator = build("generator", cfg.generator)
        self._started = True
        return self

    def _open_backend(self, source: str) -> Any:
        name = self.config.backend
        if name == "auto":
            for candidate, reg in self.components.backend.items():
                if reg.accepts is not None and reg.accepts(source):
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
        return self.components.get("backend", name).factory(source)

    def _open_store(self, url: str) -> Any:
        scheme = url.split("://", 1)[0] if "://" in url else url
        return self.components.get("store", scheme).factory(url)

    async def close(self) -> None:
        if self._store is not None:
            await self._store.close()
        if self._backend is not None:
            await self._backend.close()
        self._started = False

    async def __aenter__(self) -> Runtime:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def backend(self) -> Any:
        return self._backend

    @property
    def store(self) -> Any:
        return self._store

    # ---------------------------------------------------------------- sessions

    def _lock(self, session_id: str) -> asyncio.Lock:
        return self._locks.setdefault(session_id, asyncio.Lock())

    async def events(self, session_id: str) -> list[Event]:
        events: list[Event] = await self._store.load(session_id)
        return events

    async def state(self, session_id: str) -> DialogueState:
        return current_state(await self.events(session_id))

    async def dialogue(self, session_id: str) -> Dialogue:
        return as_dialogue(session_id, await self.events(session_id))

    async def reset(self, session_id: str) -> None:
        async with self._lock(session_id):
            await self._store.append(session_id, [SessionReset()])

    async def _notify(self, results: Sequence[object]) -> None:
        for value in results:
            if inspect.isawaitable(value):
                await value

    # ---------------------------------------------------------------- turns

    async def handle(self, session_id: str, text: str) -> TurnResult:
        """Run one user utterance through the pipeline and return the system's reply."""
        if not self._started:
            await self.start()
        if not isinstance(text, str):
            raise InputError("a message must be a string")
        notice = check_message(text, self.config.max_message_chars)
        if notice is not None:
            return TurnResult(session_id=session_id, utterance=notice, notice=notice)
        return await self._turn(session_id, text, None)

    async def handle_acts(self, session_id: str, user_acts: UserActs, text: str = "") -> TurnResult:
        """Run a turn from user acts (gold NLU): the NLU stage is skipped."""
        if not self._started:
            await self.start()
        for service in user_acts:
            if service not in self.schemas:
                raise InputError(f"unknown service {service!r}", hint="see /services")
        return await self._turn(session_id, text, user_acts)

    async def _turn(self, session_id: str, text: str, gold: UserActs | None) -> TurnResult:
        async with self._lock(session_id):
            await self._notify(self.pm.hook.turn_started(session_id=session_id, text=text))
            events = await self._store.load(session_id)
            before = TurnContext(self.schemas, history(events), current_state(events))
            user_acts = gold if gold is not None else await self.nlu.parse(text, before)
            state = await self.tracker.update(TrackerInput(before, user_acts, text))
            after = TurnContext(self.schemas, before.history, state)
            policy_in = PolicyInput(after, user_acts, _active_service(user_acts, state))
            plan: SystemPlan = await self.policy.decide(policy_in)
            new: list[Event] = [UserUttered(text=text), UserActsParsed(acts=user_acts)]
            new.append(StateTracked(state=state))
            call, results = plan.service_call, None
            if call is not None:
                results = await self._backend.call(plan.service, call)
                new.append(ServiceCalled(service=plan.service, call=call, results=results))
                await self._notify(
                    self.pm.hook.service_called(
                        session_id=session_id, service=plan.service, call=call, results=results
                    )
                )
                plan = await self.policy.decide(
                    PolicyInput(after, user_acts, plan.service, call, results)
                )
            utterance = await self.generator.generate(plan.service, plan.actions)
            new += [SystemActed(service=plan.service, actions=plan.actions)]
            new += [SystemUttered(text=utterance)]
            await self._store.append(session_id, new)
            result = TurnResult(
                session_id=session_id,
                utterance=utterance,
                service=plan.service,
                actions=plan.actions,
                user_acts=user_acts,
                state=state,
                service_call=call,
                service_results=results,
            )
            await self._notify(self.pm.hook.turn_finished(session_id=session_id, result=result))
            return result


def _active_service(user_acts: UserActs, state: DialogueState) -> str | None:
    """The frame the user addressed last this turn, else the most recently added frame."""
    if user_acts:
        return next(reversed(user_acts))
    return next(reversed(state)) if state else None
