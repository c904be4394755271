"""Pydantic models of SGD dialogue files, with SGD's own field names.

``Dialogue.model_validate(json)`` reads a dialogue and ``dialogue.to_json()`` writes it back
unchanged. The same models carry data between pipeline stages: a user turn's acts are
``Action`` lists, per-frame state is ``State`` and a backend request is a ``ServiceCall``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

UserActName = Literal[
    "INFORM_INTENT",
    "NEGATE_INTENT",
    "AFFIRM_INTENT",
    "INFORM",
    "REQUEST",
    "AFFIRM",
    "NEGATE",
    "SELECT",
    "REQUEST_ALTS",
    "THANK_YOU",
    "GOODBYE",
]
SystemActName = Literal[
    "INFORM",
    "REQUEST",
    "CONFIRM",
    "OFFER",
    "NOTIFY_SUCCESS",
    "NOTIFY_FAILURE",
    "INFORM_COUNT",
    "OFFER_INTENT",
    "REQ_MORE",
    "GOODBYE",
    "GREETING",
    "FALLBACK",
    "CANCEL",
    "CLARIFY",
]
"""SGD's system acts, and four of the runtime's own: ``CANCEL`` (the task was dropped, as the
user asked), ``GREETING`` and ``FALLBACK`` (nothing understood), whose values, when they
have any, are what the system can do (intent descriptions; canonical values: the intent
names), and ``CLARIFY`` (the NLU could not tell two tasks apart: "Do you want to find a
restaurant or find a hotel?"; values: the intents' descriptions, canonical values:
``Service/Intent`` of each)."""
ActName = Literal[
    "INFORM_INTENT",
    "NEGATE_INTENT",
    "AFFIRM_INTENT",
    "INFORM",
    "REQUEST",
    "AFFIRM",
    "NEGATE",
    "SELECT",
    "REQUEST_ALTS",
    "THANK_YOU",
    "GOODBYE",
    "CONFIRM",
    "OFFER",
    "NOTIFY_SUCCESS",
    "NOTIFY_FAILURE",
    "INFORM_COUNT",
    "OFFER_INTENT",
    "REQ_MORE",
    "GREETING",
    "FALLBACK",
    "CANCEL",
    "CLARIFY",
]
USER_ACTS: frozenset[str] = frozenset(get_args(UserActName))
SYSTEM_ACTS: frozenset[str] = frozenset(get_args(SystemActName))
Speaker = Literal["USER", "SYSTEM"]
DONTCARE = "dontcare"
CLOSING_ACTS: frozenset[str] = frozenset({"NEGATE", "NEGATE_INTENT", "THANK_YOU", "GOODBYE"})
"""User acts that close a task ("no, that's all", "thanks, bye")."""


class _SGDModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Action(_SGDModel):
    """One dialogue act: ``act(slot=values)``. ``slot`` is "" for acts without a slot."""

    act: ActName
    slot: str = ""
    values: list[str] = Field(default_factory=list)
    canonical_values: list[str] = Field(default_factory=list)

    def key(self) -> tuple[str, str, tuple[str, ...]]:
        return (self.act, self.slot, tuple(self.values))

    def __str__(self) -> str:
        vals = "=" + "|".join(self.values) if self.values else ""
        return f"{self.act}({self.slot}{vals})"


def act(
    name: ActName,
    slot: str = "",
    values: Sequence[str] = (),
    canonical: Sequence[str] | None = None,
) -> Action:
    """The one act constructor: ``act("INFORM", "city", ["SF"], ["San Francisco"])``.
    ``canonical`` defaults to the values themselves."""
    exact = list(values if canonical is None else canonical)
    return Action(act=name, slot=slot, values=list(values), canonical_values=exact)


def found_nothing(acts: Sequence[Action]) -> bool:
    """Whether the system said that its search found nothing (``INFORM_COUNT(count=0)``)."""
    return any(a.act == "INFORM_COUNT" and a.values[:1] == ["0"] for a in acts)


def change_asks(acts: Sequence[Action]) -> list[Action]:
    """The REQUESTs of a system turn asking which of several details to change (each
    proposes its value: ``policy.talk.what_to_change``; SGD's systems never say such a turn),
    else none."""
    asks = [a for a in acts if a.act == "REQUEST"]
    return asks if len(asks) > 1 and all(a.values for a in asks) else []


class SlotSpan(_SGDModel):
    """A character span of a slot value in the turn's utterance (exclusive end)."""

    slot: str
    start: int
    exclusive_end: int


class State(_SGDModel):
    """Dialogue state of one frame: slot_values maps a slot to its equivalent values."""

    active_intent: str = "NONE"
    requested_slots: list[str] = Field(default_factory=list)
    slot_values: dict[str, list[str]] = Field(default_factory=dict)


class ServiceCall(_SGDModel):
    method: str
    parameters: dict[str, str] = Field(default_factory=dict)


class Frame(_SGDModel):
    """One service's part of a turn. User frames carry ``state``; system frames may carry a
    ``service_call`` and its ``service_results``."""

    service: str
    slots: list[SlotSpan] = Field(default_factory=list)
    actions: list[Action] = Field(default_factory=list)
    state: State | None = None
    service_call: ServiceCall | None = None
    service_results: list[dict[str, str]] | None = None


class Turn(_SGDModel):
    speaker: Speaker
    utterance: str
    frames: list[Frame] = Field(default_factory=list)

    @model_validator(mode="after")
    def _check(self) -> Turn:
        allowed = USER_ACTS if self.speaker == "USER" else SYSTEM_ACTS
        size = len(self.utterance)
        for f_index, frame in enumerate(self.frames):
            for a_index, action in enumerate(frame.actions):
                if action.act not in allowed:
                    raise ValueError(
                        f"frames[{f_index}].actions[{a_index}].act: {action.act} is not a "
                        f"{self.speaker} act"
                    )
            for s_index, span in enumerate(frame.slots):
                if not 0 <= span.start < span.exclusive_end <= size:
                    raise ValueError(
                        f"frames[{f_index}].slots[{s_index}]: span {span.start}:"
                        f"{span.exclusive_end} lies outside the utterance ({size} characters)"
                    )
            if self.speaker == "USER" and (frame.service_call or frame.service_results):
                raise ValueError(f"frames[{f_index}]: a USER frame has no service_call")
        return self

    def frame(self, service: str) -> Frame | None:
        for frame in self.frames:
            if frame.service == service:
                return frame
        return None


class Dialogue(_SGDModel):
    dialogue_id: str
    services: list[str]
    turns: list[Turn]

    @model_validator(mode="after")
    def _check_services(self) -> Dialogue:
        known = set(self.services)
        for t_index, turn in enumerate(self.turns):
            for f_index, frame in enumerate(turn.frames):
                if frame.service not in known:
                    raise ValueError(
                        f"turns[{t_index}].frames[{f_index}].service: {frame.service!r} is not "
                        f"among the dialogue's services {self.services}"
                    )
        return self

    def to_json(self) -> dict[str, Any]:
        """SGD JSON: optional fields that are absent in SGD files stay absent."""
        return self.model_dump(mode="json", exclude_none=True)
