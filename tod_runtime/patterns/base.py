"""What a conversation pattern reads and returns.

A pattern is a named unit (``name``, ``applies``, ``apply``) run by the pipeline after the
tracker, on every turn with text: it reads the words said, the dialogue so far, and the acts
and state the NLU and the tracker made of them, and returns them amended, with, when the
pattern itself answers the turn (a repeat, a cancellation), the system acts to say instead of
asking the policy.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Protocol

from tod_runtime.dialogue.context import DialogueState, TurnContext, UserActs
from tod_runtime.dialogue.models import Action
from tod_runtime.nlu.rules import plain_words


@dataclass(frozen=True)
class PatternTurn:
    """One user turn as the patterns see it. ``context.state`` is the state before the turn;
    ``acts`` and ``state`` what the NLU and the tracker made of it (``choices``: the tasks the
    NLU hesitated between, its guess first); ``answer`` the system acts
    a pattern says instead of the policy (for ``answer_service``), None when the policy
    decides."""

    text: str
    context: TurnContext
    acts: UserActs
    state: DialogueState
    choices: tuple[tuple[str, str], ...] = ()  # tasks the NLU could not tell apart (``Unsure``)
    answer: tuple[Action, ...] | None = None
    answer_service: str | None = None
    applied: tuple[str, ...] = ()

    @cached_property
    def words(self) -> str:
        """``plain_words`` of the text, worked out once per turn (the patterns ask often)."""
        return plain_words(self.text)

    @property
    def service(self) -> str | None:
        """The service the dialogue is about: the one the user addressed this turn, else the
        one the system spoke for last."""
        if self.acts:
            return next(reversed(self.acts))
        frame = self.context.history.last_system_frame
        return frame.service if frame is not None else None

    def previous(self, service: str | None = None) -> list[Action]:
        """The system's last acts for ``service`` (default: this turn's service)."""
        service = service or self.service
        return self.context.history.last_system_acts(service) if service else []

    def acts_copy(self) -> dict[str, list[Action]]:
        """This turn's acts, in lists of its own to amend."""
        return {service: list(acts) for service, acts in self.acts.items()}

    def amended(self, **changes: object) -> PatternTurn:
        return replace(self, **changes)  # type: ignore[arg-type]


class Pattern(Protocol):
    """A conversation pattern: ``applies`` decides from the turn alone; ``apply`` returns
    the turn amended (acts, state, or an answer of its own)."""

    @property
    def name(self) -> str: ...

    def applies(self, turn: PatternTurn) -> bool: ...

    def apply(self, turn: PatternTurn) -> PatternTurn: ...
