"""The one stage sequence of a turn. ``Runtime`` (chat, the Python API) and replay both run it.

    user step:    text --NLU--> user acts --DST--> state
    system step:  state --policy--> plan (--backend--> results --policy--> plan) --NLG--> reply

Each step takes a ``TurnContext`` (the schemas, the history so far, a state) and returns plain
data (``UserStep``, ``SystemStep``); it stores nothing. The caller folds the steps into the
session's event log: the runtime from what the pipeline produced, replay from what the
recording says the system did. Observer hooks (``turn_started``, ``service_called``,
``turn_finished``) are fired from here; an async hook implementation is awaited.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TypeVar

import pluggy

from tod_runtime.backends.base import Backend, call_outcome
from tod_runtime.dialogue.context import (
    DialogueState,
    PolicyInput,
    TrackerInput,
    TurnContext,
    UserActs,
)
from tod_runtime.dialogue.models import Action, ServiceCall
from tod_runtime.dialogue.providers import moved_task, provider_call
from tod_runtime.dialogue.refusal import CallOutcome
from tod_runtime.dialogue.steps import SystemStep, TurnResult, UserStep
from tod_runtime.dst.base import Tracker
from tod_runtime.errors import StageFailed, TodError
from tod_runtime.nlg.base import Generator
from tod_runtime.nlu.base import NLU, NotUnderstood, choices_of
from tod_runtime.patterns import Patterns, PatternTurn
from tod_runtime.policy.base import Policy


@dataclass(frozen=True)
class Stages:
    """The built components of one pipeline."""

    nlu: NLU
    tracker: Tracker
    policy: Policy
    generator: Generator
    backend: Backend
    names: Mapping[str, str] = field(default_factory=dict)  # stage -> "nlu 'x' of plugin y"


T = TypeVar("T")
Moved = tuple[DialogueState, UserActs]  # a task moved to another service: state, acts


class _Running:
    """The stage a turn is awaiting: the one named when the turn's time limit interrupts it."""

    name = "the pipeline"


_RUNNING: ContextVar[_Running | None] = ContextVar("tod_running_stage", default=None)


class Pipeline:
    def __init__(
        self,
        stages: Stages,
        hooks: pluggy.HookRelay,
        turn_timeout: float = 0,
        patterns: Patterns | None = None,
    ) -> None:
        self.stages = stages
        self.hooks = hooks
        self.turn_timeout = turn_timeout
        self.patterns = patterns if patterns is not None else Patterns(())

    @asynccontextmanager
    async def time_limit(self) -> AsyncIterator[None]:
        """Within this block, the stages must finish before the turn's time limit: one timer
        for the whole block (not one per stage), which names the stage it interrupted."""
        if self.turn_timeout <= 0:
            yield
            return
        running = _Running()
        token = _RUNNING.set(running)
        timer = asyncio.timeout(self.turn_timeout)
        try:
            async with timer:
                yield
        except TimeoutError:
            if not timer.expired():
                raise
            raise StageFailed(
                f"{running.name} did not answer within the turn's {self.turn_timeout:g} s",
                hint="the turn was dropped and the session is as it was; raise turn_timeout "
                "in the config or fix the component",
            ) from None
        finally:
            _RUNNING.reset(token)

    async def _run(self, stage: str, work: Awaitable[T]) -> T:
        """Await a stage; an exception it raises (other than a TodError) becomes a
        StageFailed naming the stage and its plugin (so does running over the turn's time
        limit, in ``time_limit``)."""
        name = self.stages.names.get(stage, stage)
        running = _RUNNING.get()
        if running is not None:
            running.name = name
        try:
            return await work
        except (TodError, NotUnderstood):
            raise
        except Exception as exc:
            raise StageFailed(
                f"{name} failed: {exc!r}",
                hint="the turn was dropped and the session is as it was; "
                "TOD_TRACE_HOOKS=1 traces plugin calls",
            ) from exc

    async def user_step(
        self, context: TurnContext, text: str, acts: UserActs | None = None
    ) -> UserStep:
        """NLU (skipped when ``acts`` are given: gold acts, an act-level user), DST, then the
        conversation patterns (on text only), which may amend both or answer the turn."""
        read_text = acts is None
        if acts is None:
            try:
                acts = await self._run("nlu", self.stages.nlu.parse(text, context))
            except NotUnderstood as declined:
                return UserStep(text=text, state=context.state, notice=declined.notice)
        state = await self._run(
            "tracker", self.stages.tracker.update(TrackerInput(context, acts, text))
        )
        if not read_text or not self.patterns.units:
            return UserStep(text=text, acts=acts, state=state)
        turn = self.patterns.apply(PatternTurn(text, context, acts, state, choices_of(acts)))
        answer = list(turn.answer) if turn.answer is not None else None
        return UserStep(
            text=text,
            acts=turn.acts,
            state=turn.state,
            answer=answer,
            answer_service=turn.answer_service if answer is not None else None,
        )

    async def system_step(
        self, session_id: str, context: TurnContext, user_acts: UserActs
    ) -> SystemStep:
        """Policy; when it asks for a service call, the backend, then the policy again with
        the results; then NLG. ``context.state`` is the state after the user step."""
        step, _ = await self._system_step(session_id, context, user_acts)
        return step

    async def _system_step(
        self, session_id: str, context: TurnContext, user_acts: UserActs
    ) -> tuple[SystemStep, Moved | None]:
        """``system_step``, and the state and acts of a task the search moved to the sister
        that holds what it found (``dialogue/providers.py``)."""
        policy = self.stages.policy
        active = active_service(user_acts, context.state)
        plan = await self._run("policy", policy.decide(PolicyInput(context, user_acts, active)))
        call, results, moved = plan.service_call, None, None
        if call is not None:
            service = plan.service
            outcome = await self._call(service, call)
            provider = outcome.provider
            to = provider_call(call, provider) if provider else None
            if provider is not None and to is not None and provider.service in context.schemas:
                theirs = await self._call(provider.service, to)
                if theirs.rows:
                    moved = moved_task(context.state, user_acts, service, provider)
                    context = TurnContext(context.schemas, context.history, moved[0])
                    user_acts, service, call, outcome = moved[1], provider.service, to, theirs
            results = outcome.rows
            await self._observe(
                "service_called",
                session_id=session_id,
                service=service,
                call=call,
                results=results,
            )
            second = PolicyInput(context, user_acts, service, call, results, outcome.refusal)
            plan = await self._run("policy", policy.decide(second))
        step = SystemStep(
            service=plan.service,
            actions=plan.actions,
            service_call=call,
            service_results=results,
            utterance=await self.realise(plan.service, plan.actions),
        )
        return step, moved

    async def _call(self, service: str, call: ServiceCall) -> CallOutcome:
        return await self._run("backend", call_outcome(self.stages.backend, service, call))

    async def realise(self, service: str, actions: Sequence[Action]) -> str:
        return await self._run("generator", self.stages.generator.generate(service, actions))

    async def turn(
        self, session_id: str, context: TurnContext, text: str, acts: UserActs | None = None
    ) -> tuple[UserStep, SystemStep | None]:
        """A whole turn: the user step, then (unless the NLU declined the message) the system
        step on the new state. The system step sees the history before this turn."""
        async with self.time_limit():
            user = await self.user_step(context, text, acts)
            if user.notice is not None:
                return user, None
            if user.answer is not None and user.answer_service is not None:
                return user, await self.answer(user.answer_service, user.answer)
            after = TurnContext(context.schemas, context.history, user.state)
            system, moved = await self._system_step(session_id, after, user.acts)
            if moved is not None:  # the user's task is the sister's that holds its item
                user = user.model_copy(update={"state": moved[0], "acts": moved[1]})
            return user, system

    async def answer(self, service: str, actions: Sequence[Action]) -> SystemStep:
        """A conversation pattern's answer, said as it is: no policy, no service call."""
        utterance = await self.realise(service, actions)
        return SystemStep(service=service, actions=list(actions), utterance=utterance)

    async def turn_started(self, session_id: str, text: str) -> None:
        await self._observe("turn_started", session_id=session_id, text=text)

    async def turn_finished(self, session_id: str, result: TurnResult) -> None:
        await self._observe("turn_finished", session_id=session_id, result=result)

    async def _observe(self, hook: str, **kwargs: object) -> None:
        """Call an observer hook and await what async implementations returned; one that
        raises is a StageFailed like any component."""

        async def settle() -> None:
            for value in getattr(self.hooks, hook)(**kwargs):
                if inspect.isawaitable(value):
                    await value

        await self._run(f"an observer of {hook}", settle())


def active_service(user_acts: UserActs, state: DialogueState) -> str | None:
    """The frame the user addressed last this turn, else the most recently added frame."""
    if user_acts:
        return next(reversed(user_acts))
    return next(reversed(state)) if state else None
