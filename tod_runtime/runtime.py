"""The dialogue manager: sessions over the one pipeline (tod_runtime/pipeline.py).

``Runtime`` is the engine behind the REPL, the Python API and (through the same ``Pipeline``)
replay. Each session is an event log in a store, kept folded in memory (``SessionLog``) so a
turn reads only the events it has not seen. A per-session lock makes two turns of one session
run one after the other, while different sessions run concurrently; the store's
``session_lock`` extends that across processes sharing the store, and under it the turn first
reads the events other processes appended. A turn's events are appended in one go at its end,
only if the log is still as long as the turn saw it (``expected``), so a failing stage leaves
the session as it was and no turn is applied twice or on a stale state.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Iterable, Mapping

import pluggy

from tod_runtime.backends.base import Backend
from tod_runtime.components import ComponentContext
from tod_runtime.config import Config
from tod_runtime.dialogue.context import DialogueState, UserActs
from tod_runtime.dialogue.models import Dialogue, ServiceCall
from tod_runtime.dialogue.steps import TurnResult
from tod_runtime.dst.base import Tracker
from tod_runtime.errors import InputError
from tod_runtime.nlg.base import Generator
from tod_runtime.nlu.base import NLU
from tod_runtime.patterns import Patterns
from tod_runtime.pipeline import Pipeline, Stages
from tod_runtime.plugins import (
    Components,
    collect_components,
    make_plugin_manager,
)
from tod_runtime.policy.base import Policy
from tod_runtime.schema.loader import Schemas
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.schema.roles import bind_values
from tod_runtime.session import Event, SessionLog, SessionReset, system_events, user_events
from tod_runtime.stores.base import (
    AnswerStore,
    SessionStore,
    StoreConflict,
    deleted,
    locked_read,
)


def check_message(text: str, limit: int) -> str | None:
    """A polite reply for input no stage should see (empty, too long), or None when it is
    fine. What a message may say (its language, say) is the NLU's to judge."""
    if not text.strip():
        return "I didn't catch anything there. What would you like to do?"
    if len(text) > limit:
        return (
            f"That message is too long for me ({len(text)} characters; the limit is {limit}). "
            "Could you say it more briefly?"
        )
    return None


class Runtime:
    """The dialogue manager. Build it, ``await start()`` (or ``async with``), then
    ``await handle(session_id, text)``."""

    def __init__(
        self,
        config: Config | None = None,
        *,
        plugin_manager: pluggy.PluginManager | None = None,
        backend: Backend | None = None,
        store: SessionStore | None = None,
        components: Components | None = None,
        nlu_backend: Backend | None = None,
    ) -> None:
        """``components``: what ``plugin_manager`` registered, when the caller collected it
        already (to open a backend itself); registration hooks then run only once.
        ``nlu_backend``: where the NLU reads its known values (``entity_values``), when not
        the pipeline's backend (replay's ``--nlu-values``)."""
        self.config = config or Config()
        self.pm = plugin_manager or make_plugin_manager(self.config.plugins_dir)
        self.components: Components = components or collect_components(self.pm)
        self._backend = backend
        self._nlu_backend = nlu_backend
        self._store = store
        self._pipeline: Pipeline | None = None
        self._sessions: dict[str, SessionLog] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self.schemas: Schemas = Schemas([])

    # ---------------------------------------------------------------- lifecycle

    async def start(self) -> Runtime:
        if self._pipeline is not None:
            return self
        cfg, components = self.config, self.components
        if self._backend is None:
            self._backend = await asyncio.to_thread(
                components.open_backend, cfg.backend, cfg.services
            )
        backend = self._backend
        self.schemas = backend.schemas()
        for name, schema in self.schemas.items():
            self.pm.hook.prepare_schema(schema=schema)
            # the backend's values decide the slot types a description leaves open
            bind_values(schema, await backend.entity_values(name))
        if self._store is None:
            self._store = components.open_store(cfg.store)

        def context(kind: str) -> ComponentContext:
            source = self._nlu_backend if kind == "nlu" and self._nlu_backend else backend
            return ComponentContext.of(self.schemas, source, cfg.options.get(kind, {}))

        stages = Stages(
            nlu=components.nlu.build(cfg.nlu, context("nlu")),
            tracker=components.tracker.build(cfg.tracker, context("tracker")),
            policy=components.policy.build(cfg.policy, context("policy")),
            generator=components.generator.build(cfg.generator, context("generator")),
            backend=backend,
            names=components.describe(
                nlu=cfg.nlu, tracker=cfg.tracker, policy=cfg.policy, generator=cfg.generator
            ),
        )
        patterns = Patterns.without(cfg.patterns_off)
        self._pipeline = Pipeline(stages, self.pm.hook, cfg.turn_timeout, patterns)
        return self

    async def close(self) -> None:
        if self._store is not None:
            await self._store.close()
        if self._backend is not None:
            await self._backend.close()
        self._pipeline = None
        self._sessions.clear()

    async def __aenter__(self) -> Runtime:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def pipeline(self) -> Pipeline:
        if self._pipeline is None:
            raise InputError("the runtime is not started", hint="await runtime.start() first")
        return self._pipeline

    @property
    def nlu(self) -> NLU:
        return self.pipeline.stages.nlu

    @property
    def tracker(self) -> Tracker:
        return self.pipeline.stages.tracker

    @property
    def policy(self) -> Policy:
        return self.pipeline.stages.policy

    @property
    def generator(self) -> Generator:
        return self.pipeline.stages.generator

    @property
    def backend(self) -> Backend:
        return self.pipeline.stages.backend

    @property
    def store(self) -> SessionStore:
        if self._store is None:
            raise InputError("the runtime is not started", hint="await runtime.start() first")
        return self._store

    # ---------------------------------------------------------------- sessions

    def _lock(self, session_id: str) -> asyncio.Lock:
        return self._locks.setdefault(session_id, asyncio.Lock())

    def _folded(self, session_id: str) -> tuple[SessionLog, int]:
        """The session as folded so far, and where the store's log is to be read from to
        bring it up to date: its last folded event (0 for a session not folded yet)."""
        log = self._sessions.setdefault(session_id, SessionLog())
        return log, log.count - 1 if log.count else 0

    def _fold(self, session_id: str, log: SessionLog, events: list[Event]) -> SessionLog:
        """``log`` brought up to the store's newest event, given the store's log read from
        where ``_folded`` said.

        A session already folded is read from its last folded event on: if that event is
        gone, the log is shorter than what was folded, so another process deleted (or
        expired) the session, and this is ``SessionDeleted`` before anything runs on the
        stale copy. (A log only grows otherwise: a deleted id is never written again.)"""
        if not log.count:
            log.apply(events)
            return log
        if not events:
            self.forget([session_id])
            raise deleted(session_id)
        log.apply(events[1:])
        return log

    async def _session(self, session_id: str) -> SessionLog:
        """The session folded up to the store's newest event (only new events are read)."""
        log, start = self._folded(session_id)
        return self._fold(session_id, log, await self.store.load(session_id, start))

    def holds(self, session_id: str) -> bool:
        """Whether this runtime holds the session folded (it existed when last read; a turn
        finds out, before it runs, if another process deleted it since: ``_session``)."""
        log = self._sessions.get(session_id)
        return log is not None and log.count > 0

    async def events(self, session_id: str) -> list[Event]:
        return await self.store.load(session_id)

    async def state(self, session_id: str) -> DialogueState:
        return (await self._session(session_id)).state

    async def dialogue(self, session_id: str) -> Dialogue:
        return (await self._session(session_id)).dialogue(session_id)

    def forget(self, session_ids: list[str]) -> None:
        """Drop the folded copies of sessions deleted behind the runtime's back (expired)."""
        for session_id in session_ids:
            self._sessions.pop(session_id, None)
            self._locks.pop(session_id, None)

    async def exists(self, session_id: str) -> bool:
        """Whether the store holds any event of the session (in any process)."""
        return await self.store.length(session_id) > 0

    async def reset(self, session_id: str) -> None:
        async with self._lock(session_id), self.store.session_lock(session_id):
            await self.store.append(session_id, [SessionReset()])

    async def delete(self, session_id: str) -> None:
        async with self._lock(session_id), self.store.session_lock(session_id):
            await self.store.delete(session_id)
            self._sessions.pop(session_id, None)
        self._locks.pop(session_id, None)  # nothing of a deleted session stays behind

    # ---------------------------------------------------------------- turns

    async def handle(
        self,
        session_id: str,
        text: str,
        services: Collection[str] | None = None,
        *,
        key: str | None = None,
    ) -> TurnResult:
        """Run one user utterance through the pipeline and return the system's reply.
        ``services``, when given, are the only services the turn may address (as SGD's
        dialogues and replay give each dialogue's services); by default, all of them.
        ``key`` (an Idempotency-Key) makes a retry safe: the answer is stored with the
        turn's events, and a turn with a key already stored returns that answer, run once."""
        await self.start()
        if not isinstance(text, str):
            raise InputError("a message must be a string")
        if not text.isascii():
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise InputError(
                    f"the message is not valid text (character {exc.start} is a lone "
                    "surrogate or an undecodable byte)",
                    hint="send UTF-8 text",
                ) from None
        notice = check_message(text, self.config.max_message_chars)
        if notice is not None:
            return TurnResult.rejected(session_id, notice)
        return await self._turn(session_id, text, None, services, key)

    async def handle_acts(
        self,
        session_id: str,
        user_acts: UserActs,
        text: str = "",
        services: Collection[str] | None = None,
    ) -> TurnResult:
        """Run a turn from user acts (gold NLU, an act-level simulator): NLU is skipped."""
        await self.start()
        self._known(user_acts)
        return await self._turn(session_id, text, user_acts, services)

    def _transacted(self, service: str | None, call: ServiceCall) -> bool:
        """Whether a service call changed the world (a booking, a transfer), not searched."""
        schema = self.schemas.get(service) if service else None
        intent = schema.intent(call.method) if schema else None
        return intent is not None and intent.is_transactional

    def _known(self, services: Iterable[str]) -> None:
        """Raise InputError for the first of ``services`` the runtime does not serve."""
        for service in services:
            if service not in self.schemas:
                raise InputError(f"unknown service {service!r}", hint="see /services")

    def _schemas(self, services: Collection[str] | None) -> Mapping[str, ServiceSchema]:
        if services is None:
            return self.schemas
        self._known(services)
        return {s: self.schemas[s] for s in services}

    def _keeps_answers(self, key: str | None) -> None:
        """Refuse an Idempotency-Key that the store cannot honour."""
        if key is not None and not isinstance(self.store, AnswerStore):
            raise InputError(
                "this session store keeps no answers for an Idempotency-Key",
                hint="use the memory, SQLite or Redis store, or send no key",
            )

    async def _append(
        self,
        session_id: str,
        events: list[Event],
        expected: int,
        key: str | None,
        result: TurnResult,
    ) -> None:
        """Append a turn's events; with ``key``, its answer in the same write."""
        if key is None:
            await self.store.append(session_id, events, expected=expected)
            return
        answer = (key, result.model_dump_json().encode())
        await self.store.append(  # type: ignore[call-arg]
            session_id, events, expected=expected, answer=answer
        )

    async def _turn(
        self,
        session_id: str,
        text: str,
        acts: UserActs | None,
        services: Collection[str] | None = None,
        key: str | None = None,
    ) -> TurnResult:
        pipeline = self.pipeline
        schemas = self._schemas(services)
        self._keeps_answers(key)
        async with self._lock(session_id):
            # the store's lock, the events other processes appended since this one last
            # looked, and the key's answer: one step where the store can (locked_read)
            log, start = self._folded(session_id)
            async with locked_read(self.store, session_id, start, key) as read:
                if read.answer is not None:  # a retry: the turn was run and stored once
                    return TurnResult.model_validate_json(read.answer)
                await pipeline.turn_started(session_id, text)
                self._fold(session_id, log, read.events)
                return await self._locked_turn(session_id, log, text, acts, schemas, key)

    async def _locked_turn(
        self,
        session_id: str,
        log: SessionLog,
        text: str,
        acts: UserActs | None,
        schemas: Mapping[str, ServiceSchema],
        key: str | None,
    ) -> TurnResult:
        """A turn under its session's locks, on ``log`` folded up to the store's newest
        event."""
        pipeline = self.pipeline
        for attempt in (1, 2):
            if attempt == 2:  # the first try's append was refused: fold the session anew
                log = await self._session(session_id)
            limit = self.config.max_turns_per_session
            if limit and len(log.history) >= 2 * limit:
                raise InputError(
                    f"the session has reached its limit of {limit} turns",
                    hint="start a new session",
                )
            context = log.context(schemas)
            user, system = await pipeline.turn(session_id, context, text, acts)
            if system is None:  # the NLU declined the message: nothing is stored
                result = TurnResult.rejected(session_id, user.notice or "")
                break
            events = user_events(user) + system_events(system)
            result = TurnResult.of(session_id, user, system)
            try:
                await self._append(session_id, events, log.count, key, result)
            except StoreConflict as conflict:  # deleted or rewritten elsewhere
                self._sessions.pop(session_id, None)
                if attempt == 2:
                    raise
                call = system.service_call
                if call is not None and self._transacted(system.service, call):
                    # running the turn again would make the transaction twice
                    raise StoreConflict(
                        f"{conflict}; the turn's {call.method} call on "
                        f"{system.service} was made and is not repeated",
                        where=session_id,
                        hint="the transaction stands; this turn is not in the session's log",
                    ) from conflict
                continue  # fold it anew and run the turn once more
            log.apply(events)  # what was just stored, without reading it back
            break
        await pipeline.turn_finished(session_id, result)
        return result
