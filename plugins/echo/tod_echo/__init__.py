"""tod-runtime-echo: a tiny deterministic plugin that drives the tests of the runtime machinery.

Every component is named ``echo`` (a simulated user for ``tod simulate`` too). Its backend
serves one service, ``Echo_1`` (the schema in
``echo_schema.json`` beside this module), for the source ``"echo"`` only; its NLU reads
``slot=value`` words as INFORM acts for the first service; the tracker merges them into the
state; the policy calls the service when the user says ``call``; the generator prints the
acts. It also records its observer-hook calls in ``observed`` (async on purpose).

Installed, it is found through its entry point (``[project.entry-points.tod_runtime] echo =
"tod_echo"``); the module itself is the plugin.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tod_runtime import hookimpl
from tod_runtime.dialogue.context import (
    DialogueState,
    PolicyInput,
    SystemPlan,
    TrackerInput,
    TurnContext,
    UserActs,
)
from tod_runtime.dialogue.models import Action, ServiceCall, State
from tod_runtime.schema import Schemas, load_schema_file

SCHEMA = Path(__file__).with_name("echo_schema.json")
SOURCE = "echo"  # the only source the echo backend accepts with ``backend = "auto"``


class EchoBackend:
    def __init__(self) -> None:
        self._schemas = Schemas(load_schema_file(SCHEMA))
        # The latest calls (bounded: a long-running server must not grow it without end).
        self.calls: deque[tuple[str, ServiceCall]] = deque(maxlen=1000)

    def schemas(self) -> Schemas:
        return self._schemas

    async def call(self, service: str, call: ServiceCall) -> list[dict[str, str]]:
        self.calls.append((service, call))
        await asyncio.sleep(0)
        return [{**call.parameters, "name": "Thing One"}]

    async def entity_values(self, service: str) -> dict[str, list[str]]:
        return {"name": ["Thing One"]}

    async def close(self) -> None:
        pass


class EchoNLU:
    def __init__(self, ctx: Any) -> None:
        self.service = next(iter(ctx.schemas))
        self.options = ctx.options

    async def parse(self, text: str, context: TurnContext) -> UserActs:
        acts = [
            Action(act="INFORM", slot=k, values=[v])
            for k, _, v in (w.partition("=") for w in text.split() if "=" in w)
        ]
        if "bye" in text:
            acts.append(Action(act="GOODBYE"))
        if "boom" in text:
            raise RuntimeError("boom")
        return {self.service: acts} if acts or "call" in text else {}


class EchoTracker:
    def __init__(self, ctx: Any) -> None:
        pass

    async def update(self, turn: TrackerInput) -> DialogueState:
        # A new frame and slot dict per service: the state before this turn stays as it was
        # (the value lists are never changed, only replaced).
        state = {
            k: v.model_copy(update={"slot_values": dict(v.slot_values)})
            for k, v in turn.context.state.items()
        }
        for service, acts in turn.user_acts.items():
            frame = state.setdefault(service, State(active_intent="FindThing"))
            for act in acts:
                if act.act == "INFORM":
                    frame.slot_values[act.slot] = list(act.values)
        return state


class EchoPolicy:
    def __init__(self, ctx: Any) -> None:
        self.schemas = ctx.schemas

    async def decide(self, turn: PolicyInput) -> SystemPlan:
        service = turn.active_service or next(iter(self.schemas))
        if turn.service_results is not None:
            names = [r["name"] for r in turn.service_results]
            return SystemPlan(service, [Action(act="OFFER", slot="name", values=names[:1])])
        frame = turn.context.state.get(service)
        if frame is not None and turn.user_acts.get(service) == []:  # the user said "call"
            params = {k: v[0] for k, v in frame.slot_values.items()}
            return SystemPlan(
                service, service_call=ServiceCall(method="FindThing", parameters=params)
            )
        return SystemPlan(service, [Action(act="REQ_MORE")])


class EchoGenerator:
    def __init__(self, ctx: Any) -> None:
        pass

    async def generate(self, service: str, actions: Sequence[Action]) -> str:
        return " ".join(str(a) for a in actions) or "..."


class EchoUser:
    """Says ``city=Lima`` and ``call`` (so the echo policy searches), then leaves."""

    def __init__(self) -> None:
        from tod_runtime.simulate.base import Goal, Task

        self.goal = Goal(
            tasks=[Task(service="Echo_1", intent="FindThing", constraints={"city": "Lima"})]
        )
        self.ended = ""
        self.turns = 0

    def respond(self, system: Any) -> UserActs:
        self.turns += 1
        if self.turns == 1:
            return {"Echo_1": [Action(act="INFORM", slot="city", values=["Lima"])]}
        return {"Echo_1": []} if self.turns == 2 else {}


class EchoSimulator:
    def __init__(self, ctx: Any) -> None:
        pass

    async def new_user(self, rng: Any) -> EchoUser:
        return EchoUser()


# The latest observer-hook calls. Bounded: once installed, the plugin observes every runtime
# built with entry points (a long replay or server must not grow it without end).
observed: deque[tuple[str, object]] = deque(maxlen=1000)


@hookimpl
def register_nlu(register: Any) -> None:
    register("echo", EchoNLU)


@hookimpl
def register_trackers(register: Any) -> None:
    register("echo", EchoTracker)


@hookimpl
def register_policies(register: Any) -> None:
    register("echo", EchoPolicy)


@hookimpl
def register_generators(register: Any) -> None:
    register("echo", EchoGenerator)


@hookimpl
def register_simulators(register: Any) -> None:
    register("echo", EchoSimulator)


@hookimpl
def register_backends(register: Any) -> None:
    # ``accepts`` matches the exact source "echo" only, so ``backend = "auto"`` never picks this
    # backend for a services folder or an SGD split, whatever the order of the plugins.
    register("echo", lambda source: EchoBackend(), lambda source: source == SOURCE)


@hookimpl
async def turn_started(session_id: str, text: str) -> None:
    await asyncio.sleep(0)
    observed.append(("turn_started", (session_id, text)))


@hookimpl
async def service_called(
    session_id: str, service: str, call: ServiceCall, results: list[dict[str, str]]
) -> None:
    await asyncio.sleep(0)
    observed.append(("service_called", (session_id, service, call.method, len(results))))


@hookimpl
def turn_finished(session_id: str, result: Any) -> None:
    observed.append(("turn_finished", (session_id, result.utterance)))
