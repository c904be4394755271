"""The learned NLU's reading of a turn: what the scorers and the value reader made of it, a
frozen value that the repairs (``repairs.py``) each turn into a new one.

A reading is built in three steps, each followed by its repairs (``Repair.step``):

- ``route``: the scorer's ranking and its choice of frame (service and intent);
- ``read``: the values read among the chosen intent's slots and its near rivals', and the
  probability that each slot is asked about;
- ``acts``: the acts the turn yields (``INFORM_INTENT``, the dialogue acts, requests, values).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from typing import Protocol, Self

from tod_runtime.dialogue.context import TurnContext
from tod_runtime.dialogue.models import Action
from tod_runtime.nlu.learned.model import Thresholds
from tod_runtime.nlu.learned.scorer import Intent, Scorer, TurnView
from tod_runtime.nlu.learned.values import SlotView
from tod_runtime.schema.models import ServiceSchema

ON_TABLE = frozenset({"OFFER", "CONFIRM", "NOTIFY_SUCCESS", "INFORM"})  # what a user asks about
Ranked = tuple[tuple[float, Intent | None], ...]  # (score, intent or None: NONE), best first


@dataclass(frozen=True)
class Reading:
    text: str  # the user's turn, typos repaired
    context: TurnContext
    turn: TurnView
    last_service: str | None  # the service of the system's last frame
    system: tuple[Action, ...]  # the acts of the system's last frame
    intents: Mapping[str, str]  # each frame's active intent before the turn
    ranked: Ranked
    predicted: Intent | None  # the frame chosen; None: the scorer says no task (NONE)
    choices: tuple[Intent, ...] = ()  # tasks it could not tell apart, the chosen one first
    # read: the service's acts in the system's last turn; the intent's near rivals
    said: tuple[Action, ...] = ()
    near: tuple[tuple[float, str], ...] = ()  # (logits under the chosen, intent)
    read: tuple[Action, ...] = ()  # INFORM acts of the values read
    asks: Mapping[str, float] = field(default_factory=dict)  # slot -> P(asked about)
    requested: tuple[str, ...] = ()  # the slots asked about
    # acts: the turn's acts, and the slots they fill
    acts: tuple[Action, ...] = ()
    filled: frozenset[str] = frozenset()

    @property
    def service(self) -> str | None:
        """The chosen frame's service, else the service the dialogue is in."""
        return self.predicted[0] if self.predicted else self.turn.current[0]

    @property
    def intent(self) -> str:
        """The chosen intent, else the frame's active one."""
        if self.predicted:
            return self.predicted[1]
        return self.intents.get(self.service or "", "NONE")

    @property
    def same(self) -> bool:
        """The turn answers the service the system spoke for last."""
        return self.service == self.last_service

    @property
    def opening(self) -> bool:
        """The chosen service has no active intent yet."""
        return self.intents.get(self.service or "", "NONE") == "NONE"

    def asked(self) -> list[str]:
        """The slots the system asked for in its last turn, when the turn answers it."""
        return [a.slot for a in self.system if a.act == "REQUEST" and a.slot] if self.same else []

    def adding(self, acts: Sequence[Action], filled: Sequence[str] = ()) -> Self:
        """The reading with ``acts`` added (and ``filled`` among the slots filled)."""
        return replace(self, acts=(*self.acts, *acts), filled=self.filled | set(filled))

    def with_acts(self, acts: Sequence[Action]) -> Self:
        return replace(self, acts=tuple(acts))


class AliasIndex(Protocol):
    def of(self, token: str, slot: str) -> str | None:
        """The one known value of ``slot`` that ``token`` abbreviates, else None."""
        ...

    def ending(self, token: str, slot: str) -> str | None:
        """The one known value of ``slot`` whose last word ``token`` is, else None."""
        ...

    def owns(self, token: str) -> bool:
        """Whether ``token`` is some value's own word, whatever its slot."""
        ...

    def own_values(self, token: str, slot: str) -> AbstractSet[str]:
        """The values of ``slot`` whose own word ``token`` is."""
        ...


class KnownIndex(Protocol):
    @property
    def slots(self) -> Mapping[str, frozenset[str]]: ...  # normalised value -> its slots
    @property
    def spelt(self) -> Mapping[tuple[str, str], str]: ...  # (slot, normalised) -> as stored


class NameIndex(Protocol):
    @property
    def values(self) -> AbstractSet[str]: ...  # every known value, lower case

    @property
    def one_word(self) -> AbstractSet[str]: ...  # those values of one word

    def names_said(self, said: Sequence[str], padded: str) -> list[str]:
        """The names the turn says (its tokens ``said``; ``padded``: them joined)."""
        ...

    def slot_named(self, said: Sequence[str], padded: str, mine: NameIndex) -> str | None:
        """The slot one of whose rare names the turn says, when ``mine`` (another service's
        names) lacks it and does not hold each of its rare words as a value."""
        ...

    def name_said(
        self, said: Sequence[str], padded: str, mine: NameIndex
    ) -> tuple[str, str] | None:
        """``slot_named``'s slot and the name said."""
        ...


class Parts(Protocol):
    """What the repairs use of the learned NLU (``LearnedNLU`` provides it): the schemas,
    the scorers, the words of each description and the value readers."""

    @property
    def schemas(self) -> Mapping[str, ServiceSchema]: ...
    @property
    def scorer(self) -> Scorer: ...
    @property
    def views(self) -> Mapping[str, Sequence[SlotView]]: ...
    @property
    def verbs(self) -> Mapping[str, Mapping[str, str]]: ...  # an intent's verb, by service
    @property
    def service_words(self) -> Mapping[str, AbstractSet[str]]: ...
    @property
    def described(self) -> Mapping[str, AbstractSet[str]]: ...  # every description's words
    @property
    def nouns(self) -> Mapping[Intent, AbstractSet[str]]: ...  # an intent's head, no verb
    @property
    def all_nouns(self) -> AbstractSet[str]: ...
    @property
    def categories(self) -> Mapping[str, AbstractSet[str]]: ...  # categorical values, lower
    @property
    def value_words(self) -> Mapping[str, AbstractSet[str]]: ...  # the words of those
    @property
    def own_words(self) -> AbstractSet[str]: ...  # words few services' descriptions hold
    @property
    def families(self) -> Mapping[str, AbstractSet[str]]: ...  # a service with its sisters
    @property
    def thresholds(self) -> Thresholds: ...

    async def read_values(
        self, text: str, service: str, intents: Sequence[str], system: Sequence[Action]
    ) -> list[Action]:
        """INFORM acts of the values the reader finds among the slots ``intents`` take."""
        ...

    async def rule_values(self, text: str, service: str, slots: Sequence[str]) -> list[Action]:
        """The rules' value finder for ``slots``: known values, times, dates, numbers."""
        ...

    def takes(self, service: str, intent: str, slots: AbstractSet[str]) -> int:
        """How many of ``slots`` the intent takes."""
        ...

    def word_count(self, word: str) -> int:
        """How often ``word`` is used in SGD train's turns outside the values they annotate
        (``vocabulary.txt``'s talk column): a word of talk, or only of names."""
        ...

    async def known_values(self, service: str) -> Mapping[str, list[str]]:
        """The backend's values of the service's slots."""
        ...

    async def known(self, service: str) -> KnownIndex:
        """The service's known values (the backend's and the schema's), indexed."""
        ...

    async def aliases(self, service: str) -> AliasIndex:
        """The short forms of the service's known values."""
        ...

    async def kinds(self) -> Mapping[str, AbstractSet[str]]:
        """Per service, the values of its free-text inputs that list kinds
        (``routing.listed_kinds``)."""
        ...

    async def known_names(self, service: str) -> NameIndex:
        """The service's known values and its rare names, indexed (``routing.KnownNames``)."""
        ...
