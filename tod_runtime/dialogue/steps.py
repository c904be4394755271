"""What the two steps of a turn produce, as data: the user step (NLU -> DST) and the system step
(policy -> service call -> policy -> NLG), and the ``TurnResult`` a caller gets back."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from tod_runtime.dialogue.context import DialogueState, UserActs
from tod_runtime.dialogue.models import Action, ServiceCall


class UserStep(BaseModel):
    """The user's side of a turn: what was said, the acts read from it, the new state.

    ``notice`` is set when the NLU declined the message (say, a language it does not read):
    then ``acts`` is empty and ``state`` is the state before the turn."""

    model_config = ConfigDict(extra="forbid")
    text: str
    acts: UserActs = Field(default_factory=dict)
    state: DialogueState = Field(default_factory=dict)
    notice: str | None = None
    answer: list[Action] | None = None  # what a conversation pattern says instead of the policy
    answer_service: str | None = None


class SystemStep(BaseModel):
    """The system's side of a turn: acts for one service, the call made (if any) with its
    results, and the utterance."""

    model_config = ConfigDict(extra="forbid")
    service: str
    actions: list[Action] = Field(default_factory=list)
    service_call: ServiceCall | None = None
    service_results: list[dict[str, str]] | None = None
    utterance: str = ""


class TurnResult(BaseModel):
    """What one turn produced. ``notice`` is set (and nothing stored) when the input was
    rejected before or by the NLU (empty, too long, a language the NLU does not read)."""

    session_id: str
    utterance: str
    service: str | None = None
    actions: list[Action] = Field(default_factory=list)
    user_acts: UserActs = Field(default_factory=dict)
    state: DialogueState = Field(default_factory=dict)
    service_call: ServiceCall | None = None
    service_results: list[dict[str, str]] | None = None
    notice: str | None = None

    @classmethod
    def of(cls, session_id: str, user: UserStep, system: SystemStep) -> TurnResult:
        return cls(
            session_id=session_id,
            utterance=system.utterance,
            service=system.service,
            actions=system.actions,
            user_acts=user.acts,
            state=user.state,
            service_call=system.service_call,
            service_results=system.service_results,
        )

    @classmethod
    def rejected(cls, session_id: str, notice: str) -> TurnResult:
        return cls(session_id=session_id, utterance=notice, notice=notice)
