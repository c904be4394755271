"""The dialogue so far, and the one reader of what was said in it.

``History`` is the turns of a dialogue (a ``Sequence[Turn]``) plus indexes kept up to date
as turns are appended, so every question a stage asks about the past ("what did the system
just say in this service?", "what is on offer?", "was this slot asked for?", "what did the
last search return?") is answered without scanning the dialogue: a turn costs the same at
turn 10 and at turn 5,000. A session appends to one History as the dialogue goes on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import overload

from tod_runtime.dialogue.models import Action, Frame, Turn

# A place in the order "newest first, then earlier acts first within a turn": larger is found
# first by a newest-first scan.
Rank = tuple[int, int]


class History(Sequence[Turn]):
    def __init__(self, turns: Iterable[Turn] = ()) -> None:
        self._turns: list[Turn] = []
        self._last_system: Turn | None = None
        self._offers: dict[str, list[Action]] = {}
        self._offer_at: dict[str, int] = {}  # service -> the turn of its current offer
        # (service, slot) -> the user's last INFORM of it: its turn, its values (lower case)
        self._user_told: dict[tuple[str, str], tuple[int, frozenset[str]]] = {}
        self._offered: dict[tuple[str, str], set[str]] = {}
        self._confirmed: dict[tuple[str, str], list[str]] = {}
        self._asked: set[tuple[str, str]] = set()
        self._search: dict[str, tuple[Frame, int]] = {}
        self._on_offer: dict[str, list[int]] = {}  # service -> results the last offer named
        self._entities: dict[str, list[dict[str, str]]] = {}  # service -> entities offered
        self._calls: dict[tuple[str, str], Frame] = {}
        self._told: dict[str, dict[str, tuple[Rank, list[str]]]] = {}
        self._canonical: dict[tuple[str, str], tuple[Rank, str]] = {}
        self._canonical_any: dict[str, tuple[Rank, str]] = {}
        for turn in turns:
            self.append(turn)

    # ------------------------------------------------------------ the sequence

    @overload
    def __getitem__(self, index: int) -> Turn: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Turn]: ...

    def __getitem__(self, index: int | slice) -> Turn | Sequence[Turn]:
        return self._turns[index]

    def __len__(self) -> int:
        return len(self._turns)

    def __iter__(self) -> Iterator[Turn]:
        return iter(self._turns)

    def __reversed__(self) -> Iterator[Turn]:
        return reversed(self._turns)

    def __repr__(self) -> str:
        return f"History({len(self._turns)} turns)"

    def append(self, turn: Turn) -> None:
        """Add the next turn and index it (the turn must not be changed afterwards)."""
        position = len(self._turns)
        self._turns.append(turn)
        acts = [a for f in turn.frames for a in f.actions]
        for order, act in reversed(list(enumerate(acts))):  # earlier acts win: written last
            self._index_canonical((position, -order), act)
        if turn.speaker == "SYSTEM":
            self._last_system = turn
            for frame in turn.frames:
                self._index_system_frame(position, frame)
        else:
            for frame in turn.frames:
                for a in frame.actions:
                    if a.act == "INFORM" and a.slot:
                        said = frozenset(v.lower() for v in (*a.values, *a.canonical_values))
                        self._user_told[(frame.service, a.slot)] = (position, said)

    def _index_canonical(self, rank: Rank, act: Action) -> None:
        firsts: dict[str, str] = {}  # a value listed twice keeps its first canonical form
        for value, canonical in zip(act.values, act.canonical_values, strict=False):
            firsts.setdefault(value, canonical)
        for value, canonical in firsts.items():
            self._canonical[(value, act.slot)] = (rank, canonical)
            if canonical:
                self._canonical_any[value] = (rank, canonical)

    def _index_system_frame(self, position: int, frame: Frame) -> None:
        service, actions = frame.service, frame.actions
        offers = [a for a in actions if a.act == "OFFER" and a.slot]
        if offers:
            self._offers[service] = offers
            self._offer_at[service] = position
        elif any(a.act == "NOTIFY_FAILURE" for a in actions):
            self._offers.pop(service, None)  # "nothing else": no offer stands any more
        self._index_system_acts(position, service, actions)
        offered = any(a.act == "OFFER" for a in actions)
        entities = _offered_entities(offers)
        if frame.service_call is not None:
            self._calls[(service, frame.service_call.method)] = frame
        if frame.service_call is not None and frame.service_results is not None:
            self._place(service, frame, entities, 0, offered)
        elif offered and service in self._search:
            search, shown = self._search[service]
            self._place(service, search, entities, shown, True)
        self._entities.setdefault(service, []).extend(entities)
        if offers and service in self._search:
            call = self._search[service][0].service_call
            if call is not None:
                self._offered.setdefault((service, call.method), set()).update(
                    a.slot for a in offers
                )

    def _index_system_acts(self, position: int, service: str, actions: Sequence[Action]) -> None:
        """What the system confirmed, told (informed or offered) and asked, per slot."""
        told = self._told.setdefault(service, {})
        for order, act in reversed(list(enumerate(actions))):  # the first act of a slot wins
            if act.act == "CONFIRM" and act.slot and act.values:
                self._confirmed[(service, act.slot)] = list(act.values)
            if act.act in ("INFORM", "OFFER") and act.slot and act.values:
                told[act.slot] = ((position, -order), list(act.values))
            if act.act == "REQUEST" and act.slot:
                self._asked.add((service, act.slot))

    def _place(
        self, service: str, search: Frame, entities: list[dict[str, str]], shown: int, offered: bool
    ) -> None:
        """Index the results of ``search`` an offer named (``entities``, several when it
        listed them), the next to offer after the last of them; an offer that names none
        names the next result (``shown``)."""
        results = search.service_results or []
        # an offer made again names the result it named before, not a later one alike
        before = self._search.get(service)
        again = self._on_offer.get(service, []) if before and before[0] is search else []
        named = [i for e in entities if (i := _named(e, results, shown, again)) >= 0]
        if not named and offered:
            named = [shown]
        self._search[service] = (search, max(named) + 1 if named else shown)
        self._on_offer[service] = named

    # ------------------------------------------------------------ what the system said

    @property
    def last_system_turn(self) -> Turn | None:
        return self._last_system

    @property
    def last_system_frame(self) -> Frame | None:
        """The previous system turn's first frame (the service it spoke for and its acts),
        where a user's answer starts from; None before the first system turn, or when that
        turn only greeted or said what the system can do: such a turn names a service only
        because every turn does, and the answer to it starts from nothing, as at the start."""
        turn = self._last_system
        if turn is None or not turn.frames:
            return None
        frame = turn.frames[0]
        return None if all(_about_no_service(a) for a in frame.actions) else frame

    def last_system_acts(self, service: str) -> list[Action]:
        """The previous system turn's acts in ``service`` (empty if it spoke of another)."""
        if self._last_system is None:
            return []
        frame = self._last_system.frame(service)
        return list(frame.actions) if frame else []

    def current_offer(self, service: str) -> list[Action]:
        """The OFFER acts of the latest system turn in ``service`` that made an offer, unless
        a later NOTIFY_FAILURE there took it off the table."""
        return list(self._offers.get(service, ()))

    def told_since_offer(self, service: str, slot: str) -> frozenset[str]:
        """The values (lower case, as said and canonical) the user last gave ``slot`` of
        ``service``, when that was after the current offer was made ("i'd like tickets for
        the 5 pm show" after the 2 pm show was offered); empty otherwise."""
        at = self._offer_at.get(service)
        told = self._user_told.get((service, slot))
        if at is None or told is None or told[0] < at:
            return frozenset()
        return told[1]

    def offered(self, service: str, method: str) -> frozenset[str] | None:
        """The slots the system has offered in ``service`` of the results of a ``method`` call
        in this dialogue (None when it has offered none of them yet)."""
        found = self._offered.get((service, method))
        return frozenset(found) if found is not None else None

    def confirmed(self, service: str, slot: str) -> list[str]:
        """The values the system last asked the user to confirm for ``slot`` in ``service``."""
        return list(self._confirmed.get((service, slot), ()))

    def asked(self, service: str, slot: str) -> bool:
        """Whether the system has requested ``slot`` of ``service`` in this dialogue."""
        return (service, slot) in self._asked

    def last_told(self, service: str, which: Callable[[str], bool]) -> list[str]:
        """The values of the newest INFORM or OFFER in ``service`` of a slot that ``which``
        accepts (say, an address or a venue), else empty."""
        best: tuple[Rank, list[str]] | None = None
        for slot, (rank, values) in self._told.get(service, {}).items():
            if which(slot) and (best is None or rank > best[0]):
                best = (rank, values)
        return list(best[1]) if best else []

    def last_search(self, service: str) -> tuple[Frame | None, int]:
        """The newest system frame of ``service`` holding a call and its results, and the
        place after the results on offer (the last one the newest offer named, else one more
        for each system turn since the call that offered an entity): the index of the next to
        offer."""
        return self._search.get(service, (None, 0))

    def on_offer(self, service: str) -> list[int]:
        """The indexes of the last search's results the newest offer of them named: one, or
        several when the offer listed them ("A, B or C"); empty before any offer."""
        return list(self._on_offer.get(service, ()))

    def first_unoffered(self, service: str, results: Sequence[dict[str, str]]) -> int:
        """The index of the first of ``results`` that no offer in ``service`` named earlier in
        the dialogue (0 when every one was): a search made again, the user asking for another
        with one more constraint, offers a new one. SGD's systems do: of train's offers after a
        call whose first result had been offered before, 617 of 642 name the first result not
        offered yet, none the first result (every other file)."""
        entities = self._entities.get(service, [])
        for index, result in enumerate(results):
            if not any(_names(entity, result) for entity in entities):
                return index
        return 0

    def last_success(
        self, service: str, method: str
    ) -> tuple[dict[str, str], dict[str, str]] | None:
        """(parameters, first result) of the newest call of ``method``, if it succeeded."""
        frame = self._calls.get((service, method))
        if frame is None or frame.service_call is None or not frame.service_results:
            return None
        return dict(frame.service_call.parameters), frame.service_results[0]

    # ------------------------------------------------------------ values

    def canonical(self, values: Sequence[str], slot: str | None) -> str | None:
        """The canonical form the newest act naming one of ``values`` gave: an act of ``slot``,
        or of any slot when ``slot`` is None. None when no act did."""
        best: tuple[Rank, str] | None = None
        for value in values:
            if slot is None:
                found = self._canonical_any.get(value)
            else:
                found = self._canonical.get((value, slot))
            if found is not None and (best is None or found[0] > best[0]):
                best = found
        return best[1] if best else None


def _offered_entities(offers: Sequence[Action]) -> list[dict[str, str]]:
    """The entities an offer names, each as its values by slot (canonical, lower-cased): one,
    or several when it lists values ("A, B or C": the i-th value of each slot names the i-th)."""
    out: list[dict[str, str]] = []
    for a in offers:
        values = a.canonical_values or a.values
        if a.slot == "intent":
            continue
        for i, value in enumerate(values):
            if i == len(out):
                out.append({})
            out[i][a.slot] = value.strip().lower()
    return out


def _names(entity: dict[str, str], result: dict[str, str]) -> bool:
    """Whether an offer's values name ``result``: every offered slot it holds has the offered
    value, and it holds one."""
    held = [slot for slot in entity if slot in result]
    return bool(held) and all(result[s].strip().lower() == entity[s] for s in held)


def _named(
    entity: dict[str, str],
    results: Sequence[dict[str, str]],
    start: int = 0,
    first: Sequence[int] = (),
) -> int:
    """The index of the first of ``results`` the offer names: of those at ``first`` (the ones on
    offer), else from ``start`` on, else before it; -1 when none."""
    order = [*first, *range(start, len(results)), *range(min(start, len(results)))]
    return next((i for i in order if _names(entity, results[i])), -1)


def names_another(acts: Sequence[Action], slot: str | None, values: Sequence[str]) -> bool:
    """Whether ``acts`` (the user's) give ``slot``, which names the offered entity as
    ``values`` (an offer's first), another value: "is paper moons playing?" after Broken
    Compass was offered, "add lunch with sam" after a calendar's event was."""
    offered = {v.strip().lower() for v in values}
    return any(
        a.act == "INFORM"
        and a.slot == slot
        and a.values
        and not offered & {v.strip().lower() for v in (*a.values, *a.canonical_values)}
        for a in acts
    )


def _about_no_service(action: Action) -> bool:
    """A greeting, a fallback saying what the system can do (over the intents), or a
    question which of two tasks is meant."""
    return action.act in ("GREETING", "CLARIFY") or (
        action.act == "FALLBACK" and action.slot == "intent"
    )


def as_history(turns: Sequence[Turn]) -> History:
    """``turns`` as a History (itself when it is one already)."""
    return turns if isinstance(turns, History) else History(turns)
