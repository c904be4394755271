"""The per-session event log and what is derived from it (history, state).

A session is an append-only list of events. Everything else (the SGD turns so far, the current
state per frame, the services in use) is computed by folding that list, so undo, reset and
replay need no extra bookkeeping. Events are pydantic models, so stores can keep them as JSON.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from tod_runtime.dialogue.context import DialogueState, UserActs
from tod_runtime.dialogue.models import Action, Dialogue, Frame, ServiceCall, Turn


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid")
    at: float = Field(default_factory=time.time)


class UserUttered(_Event):
    type: Literal["user_uttered"] = "user_uttered"
    text: str


class UserActsParsed(_Event):
    type: Literal["user_acts"] = "user_acts"
    acts: UserActs


class StateTracked(_Event):
    type: Literal["state"] = "state"
    state: DialogueState


class ServiceCalled(_Event):
    type: Literal["service_called"] = "service_called"
    service: str
    call: ServiceCall
    results: list[dict[str, str]]


class SystemActed(_Event):
    type: Literal["system_acts"] = "system_acts"
    service: str
    actions: list[Action]


class SystemUttered(_Event):
    type: Literal["system_uttered"] = "system_uttered"
    text: str


class SessionReset(_Event):
    type: Literal["reset"] = "reset"


Event = Annotated[
    UserUttered
    | UserActsParsed
    | StateTracked
    | ServiceCalled
    | SystemActed
    | SystemUttered
    | SessionReset,
    Field(discriminator="type"),
]
EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


def since_reset(events: Sequence[_Event]) -> Sequence[_Event]:
    for index in range(len(events) - 1, -1, -1):
        if isinstance(events[index], SessionReset):
            return events[index + 1 :]
    return events


def current_state(events: Sequence[_Event]) -> DialogueState:
    for event in reversed(since_reset(events)):
        if isinstance(event, StateTracked):
            return {k: v.model_copy(deep=True) for k, v in event.state.items()}
    return {}


def history(events: Sequence[_Event]) -> list[Turn]:
    """The session since its last reset as SGD turns (user frames carry acts and state)."""
    turns: list[Turn] = []
    user_text: str | None = None
    acts: UserActs = {}
    state: DialogueState = {}
    call: ServiceCalled | None = None
    sys_acts: SystemActed | None = None
    for event in since_reset(events):
        if isinstance(event, UserUttered):
            user_text, acts, call, sys_acts = event.text, {}, None, None
        elif isinstance(event, UserActsParsed):
            acts = event.acts
        elif isinstance(event, StateTracked):
            state = event.state
            frames = [
                Frame(service=s, actions=list(acts.get(s, [])), state=state[s])
                for s in _turn_services(acts, state)
            ]
            turns.append(Turn(speaker="USER", utterance=user_text or "", frames=frames))
        elif isinstance(event, ServiceCalled):
            call = event
        elif isinstance(event, SystemActed):
            sys_acts = event
        elif isinstance(event, SystemUttered) and sys_acts is not None:
            frame = Frame(service=sys_acts.service, actions=list(sys_acts.actions))
            if call is not None and call.service == sys_acts.service:
                frame.service_call = call.call
                frame.service_results = call.results
            turns.append(Turn(speaker="SYSTEM", utterance=event.text, frames=[frame]))
    return turns


def _turn_services(acts: UserActs, state: DialogueState) -> list[str]:
    """Frames of a user turn: the services addressed this turn, else the last one in state."""
    services = [s for s in acts if s in state]
    if not services and state:
        services = [next(reversed(state))]
    return services


def as_dialogue(dialogue_id: str, events: Sequence[_Event]) -> Dialogue:
    """The session as an SGD dialogue (for ``/save`` and recording), replayable by ``tod
    replay``."""
    turns = history(events)
    services: list[str] = []
    for turn in turns:
        for frame in turn.frames:
            if frame.service not in services:
                services.append(frame.service)
    return Dialogue(dialogue_id=dialogue_id, services=services, turns=turns)
