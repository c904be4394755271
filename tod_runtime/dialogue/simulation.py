"""The simulator's seams: a ``Simulator`` component (registered through
``register_simulators``) hands out one ``SimulatedUser`` per dialogue, with its ``Goal``; the
user answers each system turn with user acts; a ``UserRealiser`` turns acts into text for the
text level. They live with the data model, not in ``simulate/``, because ``plugins`` builds
simulators and ``simulate``'s runner builds a runtime through ``plugins``: the seam below both
keeps the packages out of a circle. ``tod_runtime.simulate.base`` is their public name."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from tod_runtime.dialogue.context import UserActs
from tod_runtime.dialogue.models import Action
from tod_runtime.schema.models import ServiceSchema


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Task(_Model):
    """One task of a goal, in one service: find with ``intent`` (a search) or complete it (a
    transaction), meeting ``constraints`` (slot -> value in the backend's form), then learn
    ``requests``. A transaction after a search (``search`` set) books the entity found."""

    service: str
    intent: str
    transactional: bool = False
    search: str | None = None  # the search that finds the entity a transaction books
    constraints: dict[str, str] = Field(default_factory=dict)
    search_constraints: dict[str, str] = Field(default_factory=dict)
    requests: list[str] = Field(default_factory=list)
    achievable: bool = True  # False: the backend cannot meet it; the system must say so
    carried: list[str] = Field(default_factory=list)  # slots left for carry-over to fill
    linked: list[str] = Field(default_factory=list)  # shared with the task before: said unasked
    change: dict[str, str] = Field(default_factory=dict)  # said first, corrected later


class Goal(_Model):
    """What a simulated user wants: one task per service, in order."""

    tasks: list[Task]

    @property
    def services(self) -> list[str]:
        return list(dict.fromkeys(t.service for t in self.tasks))


class SystemTurnView(_Model):
    """What the user perceives of a system turn: its acts (one service) and utterance."""

    service: str | None = None
    actions: list[Action] = Field(default_factory=list)
    utterance: str = ""


@runtime_checkable
class SimulatedUser(Protocol):
    """One simulated user, for one dialogue."""

    goal: Goal
    ended: str  # why the user left before its goal was played out ("" otherwise)

    def respond(self, system: SystemTurnView | None) -> UserActs:
        """The user's next acts: to ``None`` the opening turn, else to the system's last turn.
        Empty acts end the dialogue (the user has left)."""
        ...


@runtime_checkable
class Simulator(Protocol):
    """A kind of simulated user, built from a ``ComponentContext`` (schemas, backend)."""

    async def new_user(self, rng: random.Random) -> SimulatedUser:
        """A user with a freshly sampled goal; all randomness comes from ``rng``."""
        ...


class UserRealiser(Protocol):
    """User acts as text (the text level). ``acts`` are one service's acts."""

    def realise(self, acts: Sequence[Action], schema: ServiceSchema, rng: random.Random) -> str: ...
