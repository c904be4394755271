"""Acts to text with mined templates, composing what they do not cover.

For the acts of one frame: the whole frame's signature in the service's own table (or, for a
service without one, in the closest services' tables with its slots renamed:
``nlg.neighbours``), then in the generic table (by slot labels). When none has it, the
largest set of acts of two or more kinds that a table has a template for is said with it
(``INFORM(address) NOTIFY_SUCCESS``: "Your tickets are booked. The address is ..."; the
first table that has one, in the same order), and the other acts are split into runs of one
act kind (in the order a reply says them: notify, confirm, count, offer, inform, request,
offer intent, more, goodbye); each run is looked up the same way, then each act of a run
alone; what is still uncovered is composed from the schema's descriptions (``nlg.compose``).

A template from another service's table (borrowed, or generic) is used only when every
*service word* it carries is in the service's own vocabulary (``neighbours.service_words``):
no "movie" in a hotel's reply; and every *owned word* (``neighbours.owned_words``, a word
people say for a few services only: "forecast") is owned by the service or by a neighbour
whose templates it borrows. Acts saying a boolean's value are never looked up in the
generic table (its label ``bool`` knows only yes or no: "It is not."); the slot's own
statement is composed from its description instead.

Values are said as people say them (``values.say``: dates, times, amounts) by the slot's kind.
A key's templates are stored best first; the first ``choices`` of them are equivalent, and
one of them is chosen by a hash of the acts, their values and a caller's seed,
weighted by how often people wrote it: the same acts give the same reply (replay is stable),
and other values or another seed may give another wording.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import groupby

from tod_runtime.dialogue.models import Action, change_asks, found_nothing
from tod_runtime.nlg.compose import CHANGE, PROPOSE, named_offers, unnamed_offer
from tod_runtime.nlg.form import form_defects, repaired
from tod_runtime.nlg.index import TableIndexes
from tod_runtime.nlg.mine import Table
from tod_runtime.nlg.neighbours import (
    CLOSE,
    Alignment,
    neighbours,
    profile_of,
    template_words,
    vocabulary,
    words,
)
from tod_runtime.nlg.signature import (
    INTENT_ACTS,
    Signature,
    fill,
    generic_signature,
    is_bool,
    placeholders,
    schema_info,
)
from tod_runtime.nlg.signature import service_signature as own_signature
from tod_runtime.nlg.store import TemplateSet
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.values.say import say_value

ORDER = {
    name: i
    for i, name in enumerate(
        (
            "GREETING", "FALLBACK", "CANCEL", "NOTIFY_SUCCESS", "NOTIFY_FAILURE", "CONFIRM",
            "INFORM_INTENT",
            "INFORM_COUNT", "OFFER", "SELECT", "AFFIRM", "AFFIRM_INTENT", "NEGATE", "NEGATE_INTENT",
            "INFORM", "REQUEST", "REQUEST_ALTS", "OFFER_INTENT", "REQ_MORE", "THANK_YOU", "GOODBYE",
            "CLARIFY",
        )
    )
}  # fmt: skip
DONTCARE_SAID = "any"
# generic labels that say what a value measures but not of what: its words would be another
# slot's ("{number} stops" for passengers); such values are said with the service's own (or a
# neighbour's) templates, or composed from the slot's description
VAGUE_LABELS = frozenset({"number", "type", "kind", "count", "amount", "text"})
ONCE = frozenset({"OFFER", "CONFIRM", "INFORM_COUNT", "OFFER_INTENT", "INFORM_INTENT"})

Compose = Callable[[str, Sequence[Action], ServiceSchema | None, Callable[[Action], str]], str]


def _stop(text: str) -> str:
    text = text.strip()
    return text if not text or text[-1] in ".?!" else text + "."


Say = Callable[[str, str], str]  # (slot, value) -> the value as said


Fits = Callable[[str], bool]  # template -> whether it may be said for the service


def _own(template: str) -> bool:
    return True


@dataclass(frozen=True)
class Source:
    """A table, how acts are keyed in it (None: they cannot be) and which of its templates
    fit the service (all of them in its own table)."""

    table: Table
    signature: Callable[[Sequence[Action]], Signature | None]
    say: Say
    fits: Fits = _own


_WORD = re.compile(r"[a-z]+")
_YES = re.compile(r"(?i)(?:yes|yeah|yep)\b")


class Realiser:
    """Mined tables (per service and generic) and a composer, for one side."""

    # a frame no template covers whole is first said with a mixed-kind template (measured on
    # the system's replies; the user's side, ``nlg.user``, keeps runs of one kind)
    mixed_kinds = True
    brief_pieces = True
    # the system's questions are never asked with a generic template: the one a label ("date",
    # "number") has says another service's meaning ("When would you like to leave?" for a
    # reservation's date, "How many?"); composed from the slot's description instead. A
    # user's question about a slot ("What's their phone number?") reads the same anywhere.
    generic_questions = False
    # a template that says a value alone ("{director}.") is not used: in a reply of several
    # sentences it reads as a stray name. A user's answer may be the value alone ("Oslo.").
    bare_values = False
    # a template never leaves out a value of its acts: a question proposing a value no
    # template says is asked without it, then the value proposed ("Where do you want to pick
    # it up from? How about Long Beach?", ``_run``). The user's side keeps the value-less
    # question.
    every_value = True
    # a template with a defect of form (``nlg.form``: a question ended with a stop, a
    # REQ_MORE that asks nothing) is passed over for the key's others, else for pieces and
    # composed wording. The user's side keeps them (its wording is measured by task success).
    well_formed = True

    def __init__(
        self,
        templates: TemplateSet,
        compose: Compose,
        *,
        choices: int = 2,
        empty: str = "",
    ) -> None:
        self.services = templates.services
        self.generic = templates.generic
        self.profiles = templates.profiles
        self.compose = compose
        self._aligned: dict[tuple[str, int], list[Alignment]] = {}
        self.indexes = TableIndexes()
        self.service_words = templates.service_words
        self.owned_words = templates.owned_words
        self._fits: dict[tuple[str, int], Fits] = {}
        self._placeholders: dict[str, frozenset[str]] = {}
        self._lengths: dict[str, int] = {}
        self._form: dict[tuple[str, str], tuple[str, ...]] = {}
        self.choices = max(1, choices)
        self.empty = empty

    @cached_property
    def plurals(self) -> frozenset[str]:
        """The plurals the templates say, for a count other than 1 ("I found 25 movies");
        read at the first reply, not at start-up."""
        return frozenset(
            word
            for table in (*self.services.values(), self.generic)
            for entries in table.values()
            for template, _ in entries
            for word in _WORD.findall(template.lower())
            if word.endswith("s")
        )

    # ------------------------------------------------------------ values

    @staticmethod
    def sayer(schema: ServiceSchema | None) -> Callable[[str, str], str]:
        """(slot, value) -> the value as said, by the slot's kind."""
        slots = schema_info(schema)[0] if schema else {}

        def say(slot: str, value: str) -> str:
            if value.strip().lower() == "dontcare":
                return DONTCARE_SAID
            info = slots.get(slot)
            return say_value(value, info.kind) if info else value

        return say

    # ------------------------------------------------------------ lookup

    def _choose(self, entries: Sequence[tuple[str, int]], digest: int) -> str:
        if len(entries) == 1:
            return entries[0][0]
        pool = entries[: self.choices]
        total = sum(n for _, n in pool)
        pick = digest % total
        for text, n in pool:
            if pick < n:
                return text
            pick -= n
        return pool[-1][0]  # pragma: no cover - pick < total

    def _from(
        self,
        source: Source,
        sig: Signature,
        seed: int,
        brief: bool = False,
        unsaid: frozenset[str] = frozenset(),
        lenient: bool = False,
    ) -> str | None:
        entries = self._usable(source, sig.key, unsaid, lenient)
        if not entries:
            return None
        # a key's templates with and without a request's value: those saying exactly the
        # acts' values first; with ``every_value``, only those ("When would you like to
        # visit?" drops the date a REQUEST(visit_date=March 4th) proposes: ``_run`` asks
        # the question, then proposes the value)
        wanted = frozenset(sig.values)
        exact = [e for e in entries if self._holders(e[0]) == wanted]
        if not exact and self.every_value:
            return None
        entries = exact or entries
        if not {"True", "False"} & set(sig.values.values()):
            # "Yes, it will be held at ..." answers no yes/no question: a template without
            # the "Yes" is chosen when the key has one (SGD's agents said it to "can you tell
            # me where?", and to "where?" it reads wrong)
            entries = [e for e in entries if not _YES.match(e[0])] or entries
        if brief and self.brief_pieces and len(entries) > 1:
            # a piece of a reply is said briefly: the shortest of the key's choices
            entries = [min(entries, key=lambda e: self._length(e[0]))]
        values = {h: source.say(sig.slots[h], v) for h, v in sig.values.items()}
        basis = sig.key + "\x1f" + "\x1f".join(values.values())
        digest = zlib.crc32(basis.encode()) ^ seed
        text = fill(self._choose(entries, digest), values, self.plurals)
        if text is None or _offers_a_number(text):
            # an edited template naming a value the acts lack, or "How about $12?" (a price
            # names no entity): try the others
            for other, _ in entries:
                text = fill(other, values, self.plurals)
                if text is not None and not _offers_a_number(text):
                    return text
            return None
        return text

    def _usable(
        self, source: Source, key: str, unsaid: frozenset[str], lenient: bool
    ) -> list[tuple[str, int]]:
        """The templates of ``key`` that may be said for the service: fitting it, worded,
        free of defects of form (``lenient``: mended), not saying an ``unsaid`` slot."""
        entries = [
            e
            for e in source.table.get(key, ())
            if source.fits(e[0])
            and (self.bare_values or _worded(e[0]))
            and (not self.well_formed or self._formed(e[0], key, lenient))
            and (not unsaid or unsaid.isdisjoint(template_words(e[0])))
        ]
        if lenient:  # the questions ended with a stop, ended with a question mark
            entries = [(repaired(t), n) for t, n in entries]
        return entries

    def _formed(self, template: str, key: str, lenient: bool = False) -> bool:
        """Whether ``template`` has no defect of form (``lenient``: none but a question
        ended with a stop, which ``form.repaired`` mends)."""
        found = self._form.get((template, key))
        if found is None:
            found = self._form[(template, key)] = tuple(form_defects(template, key))
        return not found or (lenient and found == ("question_stop",))

    def _length(self, template: str) -> int:
        found = self._lengths.get(template)
        if found is None:
            found = self._lengths[template] = len(template.split())
        return found

    def _holders(self, template: str) -> frozenset[str]:
        found = self._placeholders.get(template)
        if found is None:
            found = self._placeholders[template] = frozenset(placeholders(template))
        return found

    def sources(
        self,
        service: str,
        schema: ServiceSchema | None,
        say: Say,
        alike: frozenset[str] = frozenset(),
    ) -> list[Source]:
        """Where templates for ``service`` are looked up, in order. ``alike``: slots the
        generic table is not asked for (``_alike``)."""
        own = self.services.get(service)
        found = []
        fits = self.fits(service, schema)
        if own is not None:
            found.append(Source(own, own_signature, say))
        elif schema is not None:
            found += [self._borrowing(a, say, fits) for a in self.neighbours(service, schema)]
        if self.generic:
            questions = self.generic_questions

            def keyed(acts: Sequence[Action]) -> Signature | None:
                if alike and any(a.slot in alike for a in acts):
                    return None
                return _generic(acts, schema, questions)

            generic = Source(self.generic, keyed, say, fits)
            found.append(generic)
        return found

    def fits(self, service: str, schema: ServiceSchema | None) -> Fits:
        """Whether a template from another service may be said for ``service``: the service
        words it carries are all in the service's own vocabulary, and its owned words are
        owned by the service or a neighbour it borrows from (computed once a template)."""
        cache_key = (service, id(schema))
        found = self._fits.get(cache_key)
        if found is None:
            own = vocabulary(service, profile_of(schema)) if schema else words(service)
            foreign = self.service_words - own
            if self.owned_words:  # the words of a few services: theirs and their borrowers'
                kin = {service}
                if schema is not None and service not in self.services:
                    kin |= {a.service for a in self.neighbours(service, schema)}
                foreign |= {w for w, by in self.owned_words.items() if kin.isdisjoint(by)} - own
            verdicts: dict[str, bool] = {}

            def fit(template: str) -> bool:
                verdict = verdicts.get(template)
                if verdict is None:
                    said = template_words(template)
                    verdict = verdicts[template] = foreign.isdisjoint(said)
                return verdict

            found = self._fits[cache_key] = fit
        return found

    def lookup(
        self,
        service: str,
        schema: ServiceSchema | None,
        actions: Sequence[Action],
        say: Say,
        seed: int = 0,
        sources: Sequence[Source] | None = None,
    ) -> str | None:
        """A mined template for exactly these acts, filled; None when none covers them. A
        template of any source free of defects of form (``nlg.form``) goes before a mended
        one."""
        sources = self.sources(service, schema, say) if sources is None else sources
        for lenient in (False, True) if self.well_formed else (False,):
            for source in sources:
                found = self._said(source, actions, seed, lenient=lenient)
                if found is not None:
                    return found
        return None

    def cover(
        self, run: Sequence[Action], sources: Sequence[Source], seed: int
    ) -> tuple[str, list[Action]] | None:
        """The template covering most acts of ``run`` (acts of one kind) and the acts it
        covers; None when no template covers any. The generic table is searched only when
        the service's own or borrowed templates cover less than half of the run."""
        best: tuple[int, int, Source, list[Action]] | None = None
        for source in sources:
            if source.table is self.generic and best is not None and 2 * best[0] >= len(run):
                break  # the service's own (or its neighbour's) wording covers half: keep it
            items = _items(source, run)
            have = frozenset(items)
            for key, itemset, weight in self.indexes.by_kind(source.table).get(run[0].act, ()):
                size = len(itemset)
                if best is not None and (size, weight) <= best[:2]:
                    continue
                if itemset <= have and any(source.fits(t) for t, _ in source.table[key]):
                    # in the key's order: a set's order changes with the process's string
                    # hashing, and the acts' order seeds the choice among templates
                    acts = [items[i] for i in dict.fromkeys(key.split(" "))]
                    best = (size, weight, source, acts)
        if best is None:
            return None
        _, _, source, acts = best
        left = [a for a in run if not any(a is u for u in acts)]
        unsaid = _unsaid(source, acts, left) if run[0].act in ("CONFIRM", "OFFER") else frozenset()
        text = self._said(source, acts, seed, brief=True, unsaid=unsaid)
        if text is None and self.well_formed:
            text = self._said(source, acts, seed, brief=True, unsaid=unsaid, lenient=True)
        return None if text is None else (text, acts)

    def cover_mixed(
        self, actions: Sequence[Action], sources: Sequence[Source], seed: int
    ) -> tuple[str, list[Action]] | None:
        """The template of the most acts of two or more kinds among ``actions`` ("The address
        is {address}. Your tickets are booked."), from the first source that has one, and
        the acts it covers; None when no table has such a key."""
        for source in sources:
            items = _items(source, actions)
            hits: dict[str, int] = {}
            postings = self.indexes.mixed(source.table)
            for item in items:
                for key in postings.get(item, ()):
                    hits[key] = hits.get(key, 0) + 1
            best: tuple[int, int, str] | None = None
            for key, n in hits.items():
                size = key.count(" ") + 1
                if n < size or (best is not None and size < best[0]):
                    continue
                weight = sum(c for t, c in source.table[key] if source.fits(t))
                if weight and (best is None or (size, weight, key) > best):
                    best = (size, weight, key)
            if best is None:
                continue
            acts = [items[i] for i in best[2].split(" ")]
            text = self._said(source, acts, seed, brief=True)
            if text is None and self.well_formed:
                text = self._said(source, acts, seed, brief=True, lenient=True)
            if text is not None:
                return text, acts
        return None

    def _said(
        self,
        source: Source,
        acts: Sequence[Action],
        seed: int,
        brief: bool = False,
        unsaid: frozenset[str] = frozenset(),
        lenient: bool = False,
    ) -> str | None:
        """``acts`` said with one of ``source``'s templates for their signature, if any
        (``brief``: the shortest, for a piece of a reply; ``unsaid``: words of the slots
        the piece leaves to others, which its template must not say, ``_unsaid``)."""
        sig = source.signature(acts)
        return self._from(source, sig, seed, brief, unsaid, lenient) if sig is not None else None

    def neighbours(self, service: str, schema: ServiceSchema) -> list[Alignment]:
        """The closest services with templates, for a service without (computed once)."""
        cache_key = (service, id(schema))
        found = self._aligned.get(cache_key)
        if found is None:
            found = self._aligned[cache_key] = neighbours(profile_of(schema), self.profiles)
        return found

    def _borrowing(self, alignment: Alignment, say: Say, fits: Fits) -> Source:
        """A neighbour's table, with the acts' slots and intents renamed to its own."""
        back = {theirs: mine for mine, theirs in reversed(alignment.slots.items())}

        def renamed_signature(actions: Sequence[Action]) -> Signature | None:
            if alignment.score < CLOSE and not any(a.slot for a in actions):
                return None
            renamed = []
            used: dict[str, str] = {}
            for action in actions:
                update: dict[str, object] = {}
                if action.slot and action.act in INTENT_ACTS:
                    values = action.values or action.canonical_values
                    mapped = [alignment.intents.get(v) for v in values]
                    if not all(mapped):
                        return None
                    update = {"values": mapped, "canonical_values": []}
                elif action.slot:
                    slot = alignment.slots.get(action.slot)
                    if slot is None or used.get(slot, action.slot) != action.slot:
                        return None
                    used[slot] = action.slot
                    update = {"slot": slot}
                renamed.append(action.model_copy(update=update) if update else action)
            return own_signature(renamed)

        def say_theirs(slot: str, value: str) -> str:
            return say(back.get(slot, slot), value)

        return Source(self.services[alignment.service], renamed_signature, say_theirs, fits)

    # ------------------------------------------------------------ realise

    def realise(
        self,
        service: str,
        schema: ServiceSchema | None,
        actions: Sequence[Action],
        seed: int = 0,
    ) -> str:
        if not actions:
            return self.empty
        say = self.sayer(schema)

        def said(action: Action) -> str:
            values = action.values or action.canonical_values
            said = [say(action.slot, v) for v in values]
            return ", ".join(said[:-1]) + " or " + said[-1] if len(said) > 1 else "".join(said)

        nothing = [a for a in actions if found_nothing([a])]
        if nothing:  # people in SGD never say "I found 0": no mined template fits it
            rest = [a for a in actions if a not in nothing]
            first = _stop(self.compose("INFORM_COUNT", nothing, schema, said))
            return f"{first} {self.realise(service, schema, rest, seed)}" if rest else first
        asks = change_asks(actions)
        if asks:  # no mined template asks it: composed, after the turn's other acts
            question = self.compose(CHANGE, asks, schema, said)
            rest = [a for a in actions if a.act != "REQUEST"]
            return (
                f"{_stop(self.realise(service, schema, rest, seed))} {question}"
                if rest
                else question
            )
        sources = self.sources(service, schema, say, _alike(actions, schema))
        # only generic wording (no own or neighbour's templates): it does not know what the
        # service offers, so an offer of what is not a proper name says what it is
        unnamed = all(s.table is self.generic for s in sources)
        whole = self.lookup(service, schema, actions, say, seed, sources)
        if whole is not None:
            return self._named(unnamed, _stop(whole), actions, schema, say)

        placed: list[tuple[int, str]] = []  # (order of its first act, sentence)
        mixed = self.cover_mixed(actions, sources, seed) if self.mixed_kinds else None
        if mixed is not None:
            text, used = mixed
            placed.append((min(_rank(a) for a in used), text))
            actions = [a for a in actions if not any(a is u for u in used)]
        ordered = sorted(actions, key=_rank)
        for kind, group in groupby(ordered, key=lambda a: a.act):
            sentences = self._run(kind, list(group), sources, seed, schema, said, unnamed)
            placed += [(ORDER.get(kind, len(ORDER)), s) for s in sentences]
        placed.sort(key=lambda p: p[0])
        text = " ".join(_stop(s) for _, s in placed if s.strip()) or self.empty
        return self._named(unnamed, text, actions, schema, say)

    @staticmethod
    def _named(
        unnamed: bool,
        text: str,
        actions: Sequence[Action],
        schema: ServiceSchema | None,
        say: Say,
    ) -> str:
        """``compose.named_offers`` where only generic wording is said (a service's own
        templates or its neighbour's know what it offers: "How about 45 park lane?" is a
        hotel's)."""
        return named_offers(text, actions, schema, say) if unnamed else text

    def _run(
        self,
        kind: str,
        left: list[Action],
        sources: Sequence[Source],
        seed: int,
        schema: ServiceSchema | None,
        said: Callable[[Action], str],
        unnamed: bool = False,
    ) -> list[str]:
        """A run of acts of one kind: the templates covering most of it, the rest composed.
        An offer or a confirmation is said once: the acts its template leaves are facts
        (INFORM acts, with their own templates)."""
        sentences: list[str] = []
        if kind == "OFFER" and unnamed and unnamed_offer(left, schema, said):
            # an entity that is not a proper name ("Pick up kids", an alarm): composed, what
            # it is and when in one question (``compose._offer``)
            return [self.compose(kind, left, schema, said)]
        while left:
            found = self.cover(left, sources, seed)
            if found is None:
                break
            sentences.append(found[0])
            left = [a for a in left if not any(a is u for u in found[1])]
            if kind in ONCE and left:
                facts = [a.model_copy(update={"act": "INFORM"}) for a in left]
                return sentences + self._run("INFORM", facts, sources, seed, schema, said)
        proposed = _proposed(left) if kind == "REQUEST" and self.every_value else []
        if proposed:  # the questions no template asks with their values, then the values
            asked = [
                a.model_copy(update={"values": [], "canonical_values": []})
                if any(a is p for p in proposed)
                else a
                for a in left
            ]
            sentences += self._run(kind, asked, sources, seed, schema, said)
            return [*sentences, self.compose(PROPOSE, proposed, schema, said)]
        if left:
            sentences.append(self.compose(kind, left, schema, said))
        return sentences


def _generic(
    actions: Sequence[Action], schema: ServiceSchema | None, questions: bool
) -> Signature | None:
    """The acts' generic signature; None when one says a boolean's value: the generic label
    ``bool`` knows only yes or no ("It is not."), the slot's own statement says what ("The
    restaurant does not have live music.", ``compose.yes_no``); None for a question (a
    REQUEST without a value) unless ``questions``; None when a value's slot has a vague
    label (``VAGUE_LABELS``: "Number of stops", "Number of passengers" and "Number of the
    airport" are all ``number``, so the generic "{number} stops" said an airport's name)."""
    labels = schema_info(schema)[0] if schema else {}
    for action in actions:
        values = action.values or action.canonical_values
        if values and is_bool(values[0]):
            return None
        if not questions and action.act == "REQUEST" and not values:
            return None
        info = labels.get(action.slot)
        if values and info is not None and info.label in VAGUE_LABELS:
            return None
    return generic_signature(actions, schema)


def _proposed(actions: Sequence[Action]) -> list[Action]:
    """The REQUESTs proposing one value (SGD's "Would March 4th work?", REQUEST(visit_date=
    March 4th)); not a yes/no slot's, whose value is part of its key, nor a list of options
    (those the composed question gives as examples)."""
    out = []
    for action in actions:
        values = action.values or action.canonical_values
        if action.act == "REQUEST" and len(values) == 1 and not is_bool(values[0]):
            out.append(action)
    return out


def _alike(actions: Sequence[Action], schema: ServiceSchema | None) -> frozenset[str]:
    """The slots of ``actions`` saying a value whose generic label another slot of them has
    (a car's pick-up and drop-off dates are both ``date``): a generic template cannot tell
    them apart ("{date} ... {date_2}" is keyed by the acts' order, which may swap them, and
    "Forecast for {date}." twice says neither)."""
    if schema is None:
        return frozenset()
    labels = schema_info(schema)[0]
    said = {a.slot for a in actions if a.slot in labels and a.act not in INTENT_ACTS}
    seen: dict[str, list[str]] = {}
    for slot in said:
        seen.setdefault(labels[slot].label, []).append(slot)
    return frozenset(s for group in seen.values() if len(group) > 1 for s in group)


def _unsaid(source: Source, said: Sequence[Action], left: Sequence[Action]) -> frozenset[str]:
    """The words of the slots of ``left`` (the acts of a run a piece leaves to others) that
    the slots of ``said`` lack, in ``source``'s naming: a piece's template saying one reads
    as if it said that act too, without its value ("Please confirm: room at {hotel_name}
    checking in {check_in_date}." beside a number of rooms said after it)."""
    left = [a for a in left if not is_bool((a.values or a.canonical_values or [""])[0])]
    if not left:
        return frozenset()

    def slot_words(acts: Sequence[Action]) -> frozenset[str]:
        slots = set()
        for action in acts:
            sig = source.signature([action]) if action.slot else None
            slots |= set(sig.slots.values()) if sig is not None and sig.slots else {action.slot}
        return words(*(s.replace("_", " ") for s in slots))

    return slot_words(left) - slot_words(said)


def _items(source: Source, actions: Sequence[Action]) -> dict[str, Action]:
    """Each act's key in ``source``'s table (one act alone), the first act of each key."""
    items: dict[str, Action] = {}
    for action in actions:
        sig = source.signature([action])
        if sig is not None:
            items.setdefault(sig.key, action)
    return items


_NUMBER_OFFERED = re.compile(r"\b(?:How|What) about [$\d][\d\s,.$]*\?")


def _offers_a_number(text: str) -> bool:
    """ "How about $12?", "What about 1793 414926?": an offer naming no entity."""
    return "about" in text and _NUMBER_OFFERED.search(text) is not None


_COUNT_ALONE = re.compile(r"\{count\}\s*[.?!,]")
_BARE = re.compile(r"\{[a-z0-9_.]+\}|[^A-Za-z]")


def _worded(template: str) -> bool:
    """Whether a template says a word besides its values: "{director}." alone (people's
    answer to a question) reads as a stray name in a reply of several sentences."""
    if _COUNT_ALONE.search(template):  # "I found {count}." counts nothing
        return False
    return all(_BARE.sub("", part) for part in re.split(r"(?<=[.?!])\s+", template.strip()))


def _rank(action: Action) -> int:
    return ORDER.get(action.act, len(ORDER))
