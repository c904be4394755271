"""A value the backend knows, said but left unread: "then seattle, 4 star hotel" where the
reader took the stars and left the city (the span scorer rarely saw a value open a turn
without a preposition before it)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace

from tod_runtime.dialogue.models import Action, act
from tod_runtime.nlu.learned.casual import unsaid
from tod_runtime.nlu.learned.reading import Parts, Reading
from tod_runtime.nlu.learned.values import normalised

LONGEST = 6  # words of the longest value looked for
# a one-word value used this often in SGD train's turns may be the word itself ("please",
# "great", "sure"): left to the reader; a city's name is used less ("seattle" 1,029 times)
COMMON = 3000


class KnownUnread:
    """A value the backend knows for exactly one slot the intent takes that nothing fills
    (neither the turn nor the task so far: a task just done leaves its values to the next),
    said whole outside what was read: read for that slot, as the backend spells it. Only
    open text slots (categorical ones are the pick scorer's, numbers, dates and times the
    rules'); a slot the task holds is no gap ("cancel that, i need to ask my friends" at a
    confirmation is no event called Friends). Left to the reader: a common word ("please",
    "great"), a value two empty slots know ("from seattle to portland": which is which is
    the reader's), and a slot two values fit. A second value of a kind the turn read is
    read for the one empty slot that knows it ("a bus long beach to san diego": the reader
    took the destination after "to" and left the origin with no "from" before it). A turn
    that puts one thing in another's place ("instead", "changed my mind") gives a held slot
    a known value of two words or more ("hmm no, changed my mind. put on a little bit
    stronger by sara evans instead"; not "sorry, could you play it in the kitchen instead?",
    "Sorry" being a song too)."""

    name = "known_unread"
    step = "acts"

    def applies(self, parts: Parts, r: Reading) -> bool:
        return r.service is not None and r.intent != "NONE"

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        empty = _empty(parts, r)
        replacing = REPLACING.search(r.text.lower()) is not None
        held = _empty(parts, r, held_too=True) - empty if replacing else set()
        if not empty and not held:
            return r
        assert r.service is not None
        informs = [a for a in r.acts if a.act == "INFORM"]
        words = normalised(unsaid(r.text, informs)).split()
        acts = await said_known(parts, r.service, words, empty)
        acts += [a for a in await said_known(parts, r.service, words, held) if " " in a.values[0]]
        acts += await _short_start(parts, r, words, empty - {a.slot for a in acts})
        return r.adding(acts, [a.slot for a in acts])


class KnownOpens:
    """A value the backend knows for an open text slot that only an intent scored near the
    chosen one takes and that no search of the service takes or finds, said whole and left
    unread ("i need to send some money to amir" scored as a balance check: Amir is a name
    money was sent to, which only the transfer takes), is read before the intents are
    weighed by the values read (``intent_by_values``), so the transfer opens with its
    recipient. The same rules as ``KnownUnread``: one slot the value fits, no common word,
    a slot the task holds is no gap. A value a search finds (a restaurant's name, read for
    the booking when the search was scored) cost train's held-out chat check 0.013 to 0.024
    of joint goal on every fold."""

    name = "known_opens"
    step = "read"

    def _slots(self, parts: Parts, r: Reading) -> set[str]:
        if r.service is None or r.intent == "NONE" or not r.near:
            return set()
        schema = parts.schemas[r.service]
        chosen = schema.intent(r.intent)
        takes = chosen.inputs if chosen else frozenset()
        near = [i for _, name in r.near if (i := schema.intent(name))]
        searched = {
            s
            for i in schema.intents
            if not i.is_transactional
            for s in (*i.inputs, *i.result_slots)
        }
        # a lookup's own key ("when's the sounders vs timbers game?": the event's dates)
        keys = {s for i in near if not i.is_transactional for s in i.required_slots}
        inputs = {s for i in near for s in i.inputs}
        slots = (inputs - searched | keys) - takes
        return open_text(parts, r, slots - {a.slot for a in r.read})

    def applies(self, parts: Parts, r: Reading) -> bool:
        return bool(self._slots(parts, r))

    async def apply(self, parts: Parts, r: Reading) -> Reading:
        assert r.service is not None
        words = normalised(unsaid(r.text, r.read)).split()
        found = await said_known(parts, r.service, words, self._slots(parts, r))
        return replace(r, read=(*r.read, *found)) if found else r


async def said_known(parts: Parts, service: str, words: list[str], empty: set[str]) -> list[Action]:
    """INFORM acts for the known values said whole (``words``, normalised) that fit exactly
    one of the ``empty`` slots, that slot's only one, as the backend spells it; no common
    word ("please", "great")."""
    known = await parts.known(service)
    found: dict[str, set[str]] = {}  # slot -> the normalised values said for it
    for said, slots in _known_spans(words, known.slots):
        fits = slots & empty
        common = " " not in said and (said.isdigit() or parts.word_count(said) >= COMMON)
        if len(fits) == 1 and not common:
            found.setdefault(next(iter(fits)), set()).add(said)
    return [
        act("INFORM", slot, [known.spelt.get((slot, value), value)])
        for slot, values in found.items()
        if len(values) == 1
        for value in values
    ]


async def _short_start(parts: Parts, r: Reading, words: list[str], empty: set[str]) -> list[Action]:
    """The short form of a known value said right before "to" ("round trip nyc to
    seattle", the reader having read the end of the route) for the one empty slot whose
    values it abbreviates (``casual.Aliases``), as the user wrote it, the backend's value
    canonical."""
    assert r.service is not None
    aliases = await parts.aliases(r.service)
    found: list[Action] = []
    for word, after in zip(words, words[1:], strict=False):
        if after != "to" or parts.word_count(word) >= COMMON:
            continue
        named = [(slot, aliases.of(word, slot)) for slot in sorted(empty)]
        hits = [(slot, value) for slot, value in named if value is not None]
        if len(hits) == 1:
            found.append(act("INFORM", hits[0][0], [word], [hits[0][1]]))
    return found


def _empty(parts: Parts, r: Reading, held_too: bool = False) -> set[str]:
    """The open text slots the chosen intent takes that neither the turn nor the task
    fills (a task just done leaves its values to the next); with ``held_too``, those the
    task fills as well."""
    if r.service is None:
        return set()
    spec = parts.schemas[r.service].intent(r.intent)
    if spec is None:
        return set()
    return open_text(parts, r, {s for s in spec.inputs if s not in r.filled}, held_too)


def open_text(parts: Parts, r: Reading, slots: set[str], held_too: bool = False) -> set[str]:
    """Those of ``slots`` that are open text and that the task does not hold (a task just
    done leaves its values to the next); with ``held_too``, those it holds as well."""
    assert r.service is not None
    state = r.context.state.get(r.service)
    done = held_too or "NOTIFY_SUCCESS" in r.turn.sys_acts
    held = {s for s, v in state.slot_values.items() if v} if state and not done else set()
    return text_slots(parts, r.service, slots - held)


def text_slots(parts: Parts, service: str, slots: set[str]) -> set[str]:
    """Those of ``slots`` that are open text: no categorical slot, no number, date or time."""
    views = {v.name: v for v in parts.views[service]}
    return {
        s
        for s in slots
        if s in views and views[s].value_type == "text" and not views[s].categorical
    }


async def known_unread(
    parts: Parts, service: str, intents: Sequence[str], text: str, read: Sequence[Action]
) -> set[str]:
    """The open text slots of ``intents`` for which the turn says whole, outside what was
    ``read``, a value the backend knows for that slot alone (``said_known``): "american food
    in walnut creek?" takes a cuisine for the restaurants never seen in training, whose
    reader left "american" unread (``routing.service_for_values`` counts them)."""
    schema = parts.schemas[service]
    inputs = {s for i in intents if (spec := schema.intent(i)) for s in spec.inputs}
    slots = text_slots(parts, service, inputs - {a.slot for a in read})
    if not slots:
        return set()
    words = normalised(unsaid(text, [a for a in read if a.act == "INFORM"])).split()
    return {a.slot for a in await said_known(parts, service, words, slots)}


REPLACING = re.compile(r"\b(?:instead|changed? my mind)\b")


def _known_spans(
    words: list[str], known: Mapping[str, frozenset[str]]
) -> Iterator[tuple[str, frozenset[str]]]:
    """The known values said, left to right, the longest at each place (up to LONGEST
    words), and the slots each is a value of."""
    i = 0
    while i < len(words):
        for j in range(min(len(words), i + LONGEST), i, -1):
            said = " ".join(words[i:j])
            slots = known.get(said)
            if slots is not None:
                yield said, slots
                i = j - 1
                break
        i += 1
