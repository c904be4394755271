"""Typed inputs and outputs that pass between pipeline stages in one turn.

Data flows one way: ``text -> NLU -> UserActs -> DST -> DialogueState -> policy ->
SystemPlan (-> service call -> results -> policy) -> NLG -> utterance``. Every stage also
sees the dialogue ``history``: the session's earlier turns as SGD ``Turn`` objects (user turns
with acts and state per frame, system turns with acts, service call and results) in a
``History``, which answers questions about them without scanning.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from tod_runtime.dialogue.history import History, as_history
from tod_runtime.dialogue.models import Action, ServiceCall, State
from tod_runtime.dialogue.refusal import Refusal
from tod_runtime.schema.models import ServiceSchema

UserActs = dict[str, list[Action]]
"""A user turn's acts, per service (frame). Services the user did not address are absent."""

DialogueState = dict[str, State]
"""The dialogue state, per service (frame), of every service touched so far."""


@dataclass(frozen=True)
class TurnContext:
    """What every stage may read about the dialogue so far (never mutated by a stage)."""

    schemas: Mapping[str, ServiceSchema]
    history: History  # the one reader of what was said so far (a list of turns is wrapped)
    state: DialogueState

    def __post_init__(self) -> None:
        object.__setattr__(self, "history", as_history(self.history))


@dataclass(frozen=True)
class TrackerInput:
    context: TurnContext  # state before this turn
    user_acts: UserActs  # this turn's acts
    utterance: str = ""


@dataclass(frozen=True)
class PolicyInput:
    context: TurnContext  # state *after* this turn's update
    user_acts: UserActs
    active_service: str | None
    service_call: ServiceCall | None = None  # set on the second call, after the backend ran
    service_results: list[dict[str, str]] | None = None
    refusal: Refusal | None = None  # why the service refused the call, when it said


@dataclass
class SystemPlan:
    """The policy's decision: acts for one service, or a call to make first."""

    service: str
    actions: list[Action] = field(default_factory=list)
    service_call: ServiceCall | None = None
