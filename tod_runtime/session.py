"""The per-session event log and what is derived from it (history, state).

A session is an append-only list of events. Everything else (the SGD turns so far, the current
state per frame, the services in use) is a fold of that list (``SessionLog``), kept up to date
event by event, so undo, reset and replay need no extra bookkeeping and a turn costs the same
however long the session is. Events are pydantic models, so stores can keep them as JSON.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from tod_runtime.dialogue.context import DialogueState, TurnContext, UserActs
from tod_runtime.dialogue.history import History
from tod_runtime.dialogue.models import Action, Dialogue, Frame, ServiceCall, Turn
from tod_runtime.dialogue.steps import SystemStep, UserStep
from tod_runtime.schema.models import ServiceSchema


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


def user_events(user: UserStep) -> list[Event]:
    """The events of a turn's user step."""
    return [
        UserUttered(text=user.text),
        UserActsParsed(acts=user.acts),
        StateTracked(state=user.state),
    ]


def system_events(system: SystemStep) -> list[Event]:
    """The events of a turn's system step."""
    events: list[Event] = []
    if system.service_call is not None:
        call, results = system.service_call, system.service_results or []
        events.append(ServiceCalled(service=system.service, call=call, results=results))
    events.append(SystemActed(service=system.service, actions=system.actions))
    events.append(SystemUttered(text=system.utterance))
    return events


class SessionLog:
    """A session folded from its events, one event at a time: the SGD turns since the last
    reset, the current state, and ``count``, the number of events folded so far (so a store
    can hand over only newer ones). Folding an event costs the same at turn 5 and 5,000."""

    def __init__(self, events: Iterable[_Event] = ()) -> None:
        self.count = 0
        self._start_over()
        self.apply(events)

    def _start_over(self) -> None:
        self.history = History()
        self.state: DialogueState = {}
        self._user_text = ""
        self._acts: UserActs = {}
        self._call: ServiceCalled | None = None
        self._system: SystemActed | None = None

    def apply(self, events: Iterable[_Event]) -> None:
        for event in events:
            self._fold(event)
            self.count += 1

    def _fold(self, event: _Event) -> None:
        if isinstance(event, SessionReset):
            self._start_over()
        elif isinstance(event, UserUttered):
            self._user_text, self._acts, self._call, self._system = event.text, {}, None, None
        elif isinstance(event, UserActsParsed):
            self._acts = event.acts
        elif isinstance(event, StateTracked):
            self.state = event.state
            frames = [
                Frame(service=s, actions=list(self._acts.get(s, [])), state=self.state[s])
                for s in _turn_services(self._acts, self.state)
            ]
            self.history.append(Turn(speaker="USER", utterance=self._user_text, frames=frames))
        elif isinstance(event, ServiceCalled):
            self._call = event
        elif isinstance(event, SystemActed):
            self._system = event
        elif isinstance(event, SystemUttered) and self._system is not None:
            frame = Frame(service=self._system.service, actions=list(self._system.actions))
            if self._call is not None and self._call.service == self._system.service:
                frame.service_call = self._call.call
                frame.service_results = self._call.results
            self.history.append(Turn(speaker="SYSTEM", utterance=event.text, frames=[frame]))
            self._call = self._system = None

    def context(self, schemas: Mapping[str, ServiceSchema]) -> TurnContext:
        """What the stages read at the start of the next turn."""
        return TurnContext(schemas, self.history, self.state)

    def dialogue(self, dialogue_id: str) -> Dialogue:
        """The session as an SGD dialogue (for ``/save`` and recording), replayable by
        ``tod replay``."""
        services: list[str] = []
        for turn in self.history:
            for frame in turn.frames:
                if frame.service not in services:
                    services.append(frame.service)
        return Dialogue(dialogue_id=dialogue_id, services=services, turns=list(self.history))


def _turn_services(acts: UserActs, state: DialogueState) -> list[str]:
    """Frames of a user turn: the services addressed this turn, else the last one in state."""
    services = [s for s in acts if s in state]
    if not services and state:
        services = [next(reversed(state))]
    return services
