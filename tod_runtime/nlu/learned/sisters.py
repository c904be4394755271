"""Sister services: two services offering an intent of the same name (two hotel services'
``SearchHotel``, two flight services' ``SearchOnewayFlight``). The user cannot see which one
the understanding chose, so a detail only the other can hold moves the task there
(``SisterSlot``), and a task that moves takes its details along (``SisterCarry``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import replace

from tod_runtime.dialogue.models import DONTCARE, Action, act
from tod_runtime.nlu.learned.casual import SKIPS
from tod_runtime.nlu.learned.reading import ON_TABLE, Parts, Reading
from tod_runtime.nlu.learned.text import QUESTION_WORDS, stem
from tod_runtime.nlu.learned.values import SlotView, normalised
from tod_runtime.nlu.rules import plain_words

COUNTS = {("number",), ("count",), ("size",)}  # a count's description's first word


class SisterSlot:
    """A feature the chosen service cannot say that a sister can ("is it pet friendly?" to a
    hotel service with no word of pets, when another hotel service's search takes "Whether
    pets are allowed"; "is it a red eye?" to the flight service without one): the turn moves
    to the one other service that offers the chosen intent by name and has a yes/no slot of
    it the user's words name (``SlotView.named_with``) with words no slot of the chosen
    service is named with, or a categorical one named so whose possible value the user says
    with it ("something with at least 4 stars" to the hotel service rated by reviews, when
    another rates by stars, 1 to 5), or, for a question about a detail while the task under
    way has nothing on the table, any slot named so ("who directed it?" while the cinemas
    ask where the user is: the films streamed name their directors), or a categorical one
    one of whose values the user says whole and the chosen service neither allows nor knows
    ("pool is fine" to the ride service that only shares rides or not). Otherwise yes/no and
    categorical slots only: the features a service lists differ between sisters, while
    times, dates and places are named with words any of them may use ("what time does it
    start?", "checking in on the 12th")."""

    name = "sister_slot"
    step = "route"

    def applies(self, parts: Parts, r: Reading) -> bool:
        return r.predicted is not None and len(r.context.schemas) > 1

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        assert r.predicted is not None
        service, intent = r.predicted
        asks = _asks_unoffered(r)
        found = [
            other
            for other in r.context.schemas
            if other != service
            and other in parts.views
            and await holds_named(parts, r, (other, intent), service, asks)
        ]
        return replace(r, predicted=(found[0], intent)) if len(found) == 1 else r


async def holds_named(
    parts: Parts,
    r: Reading,
    frame: tuple[str, str],
    other: str,
    asks: bool = False,
    leave: AbstractSet[str] = frozenset(),
) -> bool:
    """Whether the turn names a detail the intent of ``frame`` (service, intent) can hold and
    the service ``other`` cannot: a yes/no slot named with words no slot or description of
    ``other`` is named with ("is it pet friendly?"), a categorical slot named so with one of
    its values beside ("at least 4 stars"), with ``asks`` any slot named so (``_names``); or
    a categorical value said whole that ``other`` neither allows, nor knows, nor describes
    itself with ("pool is fine"; not "music" to the music service: ``_holds_said``). Words
    in ``leave`` (a name the turn says) name nothing."""
    service, intent = frame
    if parts.schemas[service].intent(intent) is None:
        return False
    theirs = parts.described[other]
    words = {stem(w) for w in r.turn.utterance.content} - leave
    named = words - {w for v in parts.views[other] for w in v.named_with} - theirs
    said = [w.lower() for w in r.turn.utterance.words if stem(w.lower()) not in leave]
    if named and _names(parts, service, intent, named, said, asks):
        return True
    # the values ``other`` allows or its backend knows ("pop", a genre it lists)
    allowed = {normalised(x) for v in parts.views[other] if v.categorical for x in v.values}
    known = (await parts.known(other)).slots
    padded = f" {normalised(' '.join(said))} "
    return _holds_said(parts, service, intent, padded, (allowed, known, theirs))


def _asks_unoffered(r: Reading) -> bool:
    """Whether the turn asks about a detail ("who directed it?": its first word a question
    word), or gives one up ("director doesnt matter to me": ``casual.SKIPS``), of a task
    under way that has nothing on the table yet (the system asking for a detail): no
    question that opens a task ("can you find a match around me?")."""
    assert r.predicted is not None
    first = r.text.lower().split()[:1]
    state = r.context.state.get(r.predicted[0])
    return (
        bool(first)
        and (first[0] in QUESTION_WORDS or SKIPS.search(plain_words(r.text)) is not None)
        and state is not None
        and state.active_intent != "NONE"
        and not ON_TABLE & {a.act for a in r.system}
    )


def _names(
    parts: Parts,
    service: str,
    intent: str,
    words: AbstractSet[str],
    said: Sequence[str],
    asks: bool = False,
) -> bool:
    """Whether ``service`` offers ``intent`` and a yes/no slot of it is named with
    ``words``, or a categorical one one of whose possible values the user ``said`` next to
    such a word ("at least 4 stars": a star rating of 1 to 5; not "3 nights" for 3 rooms to
    book). Not a count ("Number of tickets", "Size of group"): every sister has one, named
    its own way ("2 tickets" to the service that books seats)."""
    spec = parts.schemas[service].intent(intent)
    if spec is None:
        return False
    slots = {*spec.required_slots, *spec.optional_slots, *spec.result_slots}
    return any(
        (v.value_type == "bool" or asks)
        and v.named_with & words
        or v.categorical
        and v.description[:1] not in COUNTS
        and _said_with(said, {x.lower() for x in v.values}, v.named_with & words)
        for v in parts.views[service]
        if v.name in slots
    )


def _holds_said(
    parts: Parts,
    service: str,
    intent: str,
    padded: str,
    theirs: tuple[AbstractSet[str], Mapping[str, object], AbstractSet[str]],
) -> bool:
    """Whether ``service``'s ``intent`` has a categorical slot of words (no yes/no, no
    number, no count) one of whose possible values the turn (``padded``, normalised) says
    whole and the other service neither allows, nor knows, nor describes itself with
    (``theirs``: the values it allows, those its backend knows, its descriptions' words):
    "pool is fine" to the ride service that asks whether to share, when its sister's rides
    are Pool, Regular or Luxury."""
    spec = parts.schemas[service].intent(intent)
    if spec is None:
        return False
    slots = {*spec.required_slots, *spec.optional_slots}
    return any(
        f" {value} " in padded
        for v in parts.views[service]
        if v.name in slots
        and v.categorical
        and v.value_type not in ("bool", "number")
        and v.description[:1] not in COUNTS
        for value in map(normalised, v.values)
        if value
        and not value.isdigit()
        and value not in theirs[0]
        and value not in theirs[1]
        and not {stem(w) for w in value.split()} & theirs[2]
    )


def _said_with(said: Sequence[str], values: AbstractSet[str], names: AbstractSet[str]) -> bool:
    """Whether a word of ``values`` is said next to a word whose stem is in ``names``."""
    return any(
        word in values and {stem(n) for n in said[max(0, i - 1) : i + 2]} & names
        for i, word in enumerate(said)
    )


class SisterValues:
    """A task opened with a value only a sister can hold ("whats playing in berkeley? i want
    something scary, like a horror movie" scored as the films streamed, which know no
    place): the turn moves to the sister scored within ``intent_margin`` of the chosen
    intent whose intent of the same name takes more of the values read, one of them a value
    the backend knows for a free-text slot of the sister (Berkeley, a city the cinemas are
    in) that the chosen service's reading left unread. The scorer tells sisters apart by
    little more than chance, and the user cannot see which one they ask. Only a value the
    backend vouches for moves the task: a sister taking more values of any kind (the cinemas
    read "my friend and I" as 2 tickets) moved SGD's own streaming and event requests (train's
    held-out chat check lost joint goal on folds 0 and 1: docs/learned.md)."""

    name = "sister_values"
    step = "route"

    def _sisters(self, parts: Parts, r: Reading) -> list[str]:
        if r.predicted is None or r.predicted != r.ranked[0][1]:
            return []
        service, intent = r.predicted
        state = r.context.state.get(service)
        if state is not None and state.active_intent != "NONE":
            return []
        top = r.ranked[0][0]
        return [
            c[0]
            for score, c in r.ranked[1:]
            if c
            and c[1] == intent
            and c[0] != service
            and top - score < parts.thresholds.intent_margin
        ]

    def applies(self, parts: Parts, r: Reading) -> bool:
        return bool(self._sisters(parts, r))

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        assert r.predicted is not None
        service, intent = r.predicted
        mine = await parts.read_values(r.text, service, [intent], ())
        said = {normalised(v) for a in mine for v in a.values}
        taken = parts.takes(service, intent, {a.slot for a in mine})
        for sister in self._sisters(parts, r):
            theirs = await parts.read_values(r.text, sister, [intent], ())
            if parts.takes(sister, intent, {a.slot for a in theirs}) <= taken:
                continue
            known = (await parts.known(sister)).slots
            free = {v.name for v in parts.views[sister] if not v.categorical}
            if any(
                a.slot in free
                and normalised(a.values[0]) not in said
                and a.slot in known.get(normalised(a.values[0]), ())
                for a in theirs
                if a.values
            ):
                return replace(r, predicted=(sister, intent))
        return r


class SisterCarry:
    """A task moved to a sister service (the chosen frame offers, by name, the intent the
    dialogue's current frame is active in) takes its details along: each input of the
    intent the turn left empty takes the value the current frame holds for its paired slot
    (``paired``), so "is it a red eye?" after a flight search searches the other flight
    service from the same cities on the same day."""

    name = "sister_carry"
    step = "acts"

    def _source(self, r: Reading) -> str | None:
        current = r.turn.current[0]
        if r.predicted is None or current is None or current == r.predicted[0]:
            return None
        state = r.context.state.get(current)
        if state is None or state.active_intent != r.predicted[1]:
            return None
        return current

    def applies(self, parts: Parts, r: Reading) -> bool:
        return self._source(r) is not None

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        source = self._source(r)
        assert source is not None and r.predicted is not None
        service, intent = r.predicted
        spec = parts.schemas[service].intent(intent)
        held = r.context.state[source].slot_values
        if spec is None or source not in parts.views:
            return r
        inputs = [*spec.required_slots, *spec.optional_slots]
        theirs = [v for v in parts.views[source] if held.get(v.name)]
        mine = [v for v in parts.views[service] if v.name in inputs and v.name not in r.filled]
        acts: list[Action] = []
        for slot, other in paired(mine, theirs).items():
            values = held[other]
            target = parts.schemas[service].slot(slot)
            if values and (values[0] == DONTCARE or target is None or target.allows(values[0])):
                # as the user said it, and as the source's act read it ("nyc": New York)
                canonical = r.context.history.canonical(values, other) or values[0]
                acts.append(act("INFORM", slot, [values[0]], [canonical]))
        return r.adding(acts, [a.slot for a in acts])


def paired(mine: list[SlotView], theirs: list[SlotView]) -> dict[str, str]:
    """Each of ``mine`` paired with the slot of ``theirs`` of its value type whose name and
    description words it shares most of (``named_with``), best pairs first, one to one; a
    pair shares a word at least ("origin_city", "Starting city for the trip" with "origin",
    "City of origin for the flight", not with "destination")."""
    scored = sorted(
        (
            (-len(a.named_with & b.named_with), a.name, b.name)
            for a in mine
            for b in theirs
            if a.value_type == b.value_type and a.named_with & b.named_with
        ),
    )
    pairs: dict[str, str] = {}
    for _, a, b in scored:
        if a not in pairs and b not in pairs.values():
            pairs[a] = b
    return pairs
