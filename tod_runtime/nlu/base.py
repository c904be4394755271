"""The NLU stage: text in, user acts per service out."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol, runtime_checkable

from tod_runtime.dialogue.context import TurnContext, UserActs
from tod_runtime.dialogue.models import Action


@runtime_checkable
class NLU(Protocol):
    """Turns a user utterance into acts per service frame.

    ``parse`` returns {service: [Action, ...]}; INFORM values are the words the user used
    (SGD state semantics), ``canonical_values`` the schema's value where one matched.
    Return {} when nothing was understood, an ``Unsure`` when it could not tell two tasks
    apart (the system then asks which is meant). Raise ``NotUnderstood(notice)`` to decline a
    message outright (a language the NLU does not read): the user gets ``notice`` as the
    reply and the session is left as it was.
    """

    async def parse(self, text: str, context: TurnContext) -> UserActs: ...


class Unsure(dict[str, list[Action]]):
    """What an NLU returns when it could not tell tasks apart: the acts of its best guess,
    and ``choices``, the (service, intent) pairs it hesitated between, its guess first. The
    conversation pattern ``clarify`` asks which is meant; without it, the guess stands."""

    def __init__(self, acts: Mapping[str, list[Action]], choices: Iterable[tuple[str, str]]):
        super().__init__(acts)
        self.choices = tuple(choices)


def choices_of(acts: UserActs) -> tuple[tuple[str, str], ...]:
    """The tasks an NLU hesitated between (``Unsure``), else ()."""
    return acts.choices if isinstance(acts, Unsure) else ()


class NotUnderstood(Exception):
    """Raised by an NLU that declines a message; ``notice`` is the reply the user gets."""

    def __init__(self, notice: str) -> None:
        super().__init__(notice)
        self.notice = notice
