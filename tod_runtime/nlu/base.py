"""The NLU stage: text in, user acts per service out."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from tod_runtime.dialogue.context import TurnContext, UserActs


@runtime_checkable
class NLU(Protocol):
    """Turns a user utterance into acts per service frame.

    ``parse`` returns {service: [Action, ...]}; INFORM values are the words the user used
    (SGD state semantics), ``canonical_values`` the schema's value where one matched.
    Return {} when nothing was understood. Raise ``NotUnderstood(notice)`` to decline a
    message outright (a language the NLU does not read): the user gets ``notice`` as the
    reply and the session is left as it was.
    """

    async def parse(self, text: str, context: TurnContext) -> UserActs: ...


class NotUnderstood(Exception):
    """Raised by an NLU that declines a message; ``notice`` is the reply the user gets."""

    def __init__(self, notice: str) -> None:
        super().__init__(notice)
        self.notice = notice
