"""The rules NLU: user acts from keyword cues, the schema and the backend's known values.

Frame resolution: the service whose intent the user names this turn, else the service the
system spoke about last, else the newest frame in the state. Values are recognised against
the schema's possible values and the backend's entity values (exact phrase, then fuzzy for
the slot the system asked for), plus numbers, times, dates and yes/no slots; a bare answer to
a system REQUEST fills the requested slot.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Mapping, Sequence

from tod_runtime.components import ComponentContext
from tod_runtime.dialogue.context import TurnContext, UserActs
from tod_runtime.dialogue.models import DONTCARE, Action, UserActName, act
from tod_runtime.nlu.values import (
    DATE,
    NUMBER,
    TIME,
    Found,
    ValueIndex,
    canonical_time,
    number_value,
    slot_words,
    words,
)
from tod_runtime.schema.models import IntentSchema, ServiceSchema
from tod_runtime.schema.roles import slot_roles

YES = re.compile(
    r"\b(yes|yeah|yep|yup|sure|ok(ay)?|correct|right|exactly|perfect|great|sounds good|"
    r"that works|works for me|go ahead|please do|do it|definitely|absolutely|"
    # "that will do, book it" to "Please confirm: ...": the transaction's verb said of it
    r"that will do|that'?ll do|(book|reserve|buy|purchase|order|rent|schedule) (it|that|them))\b"
    r"|^\W*(i )?confirm(ed)?( it| that)?( please)?\W*$"  # "confirm", not "confirm the time?"
)
NO = re.compile(
    r"\b(no|nope|nah|not really|don'?t|do not|negative|wrong)\b"
    # declining for now, as SGD train's users do ("Not right now.", "Maybe later.", "Nothing,
    # thanks."): 937 of 3,404 NEGATE_INTENTs to an offered intent and 707 of 5,713 NEGATEs to
    # "anything else?" had none of the words above
    r"|\bnot (right |just )?(now|yet|today)\b|\bnot at (the|this) (moment|time)\b"
    r"|\b(maybe|perhaps) (later|another time)\b|^\W*nothing\b"
)
THANKS = re.compile(r"\b(thanks|thank you|thx|ty|cheers|appreciated?)\b")
# "that's all correct" and a bare "yes, that's it" answer a question (SGD train: the old
# pattern said GOODBYE in 1,961 user turns without one; these exceptions drop 231 of them
# and miss 6 of 3,282 goodbyes)
BYE = re.compile(
    r"\b(bye|goodbye|that's all|that is all|nothing else|i'm done|that's it)\b"
    r"(?! (correct|right|good|fine|perfect|great)\b)"
)
ANSWER_THATS_IT = re.compile(r"^\W*(yes|yeah|yep|yup|correct|right)\W+(that's it|that is it)\W*$")
ALTS = re.compile(
    r"\b(anything else|something else|other options?|others|another|different one|"
    r"what else|any other|alternatives?)\b"
)
# "what about the 11th?", "how about dumbo?" after an offer: another one, not the one offered
# (SGD train: 4 of 386 such turns after an OFFER select it; 297 ask for others, 85 ask about it)
OTHER_THAN_OFFERED = re.compile(r"^\W*(what|how) about\b")
# saying any value will do, over plain words (lower case, no apostrophes): "i don't care",
# "any is fine" (the conversation pattern ``skip``; the learned NLU's ``any_of_a_value``)
SKIP_SAID = (
    r"i dont care|dont care|doesnt matter|does not matter|no preference|(?:any|anything|either"
    r"|whatever)(?: \w+)? (?:is|are|will be|would be|works?|sounds) (?:fine|ok|okay|good|great)"
    r"|up to you|surprise me|i dont mind|not fussy|no matter"
)
DONTCARE_CUE = re.compile(
    r"\b(any|anything|doesn't matter|does not matter|don't care|whatever|no preference|"
    r"don't know|do not know|not sure|you choose|surprise me)\b"
)
_APOSTROPHE = re.compile(r"[’']")
_NOT_WORD = re.compile(r"[^a-z0-9:$ ]+")


def plain_words(text: str) -> str:
    """Lower case, apostrophes dropped ("don't" -> "dont"), punctuation as spaces."""
    text = _APOSTROPHE.sub("", text.lower())
    return " ".join(_NOT_WORD.sub(" ", text).split())


CANCEL_SAID = (  # the task under way called off (patterns' Cancel, the NLU's task switch)
    r"never ?mind|nvm|forget (?:(?:the|that|this|my) \w+|it|that|this|about (?:it|that))|"
    r"cancel(?: (?:(?:the|that|this|my) \w+|it|that|this|everything))?|scratch that|"
    r"dont bother|call (?:it|that) off"
)
CANCELS = re.compile(rf"(?:^| )(?:{CANCEL_SAID})(?: |$)")  # in ``plain_words``
QUESTION = re.compile(
    r"\?|\b(what|what's|whats|which|where|when|how|is it|is there|does it|do they|can you tell)\b"
)
SYNONYMS = {  # general English verbs of task requests; nouns come from the schema
    "book": "reserve", "booking": "reserve", "reservation": "reserve", "buy": "purchase",
    "search": "find", "look": "find", "looking": "find", "show": "find", "get": "find",
}  # fmt: skip
GENERIC = {"has", "is", "number", "of", "name", "type", "num"}
STOP = {"a", "an", "the", "to", "for", "of", "at", "in", "on", "and", "or", "my", "me", "i", "you"}


def _stem(word: str) -> str:
    word = SYNONYMS.get(word, word)
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def _keys(text: str) -> set[str]:
    return {_stem(w) for w in words(text) if w not in STOP}


def _camel(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", " ", name)


def _answer(
    text: str, sys_kinds: set[str], same_service: bool, new_intent: bool
) -> UserActName | None:
    """The act a turn answers the system's last acts with: yes or no to an offered intent or
    a confirmation, another or this one of an offer, no or yes to "anything else?"."""
    yes, no = bool(YES.search(text)), bool(NO.search(text))
    alts = bool(ALTS.search(text))
    if same_service and "OFFER_INTENT" in sys_kinds and (yes or no):
        return "NEGATE_INTENT" if no else "AFFIRM_INTENT"
    if same_service and "CONFIRM" in sys_kinds and (yes or no):
        return "NEGATE" if no else "AFFIRM"
    if (
        same_service
        and "OFFER" in sys_kinds
        and not alts
        and (yes or new_intent)
        and not no
        and not OTHER_THAN_OFFERED.search(text)
    ):
        return "SELECT"
    if same_service and alts:
        return "REQUEST_ALTS"
    if no and sys_kinds & {"REQ_MORE", "NOTIFY_SUCCESS", "NOTIFY_FAILURE"}:
        return "NEGATE"
    if yes and "REQ_MORE" in sys_kinds:
        return "AFFIRM"  # "yes" to "anything else?": more, to be said
    return None


class RulesNLU:
    def __init__(self, ctx: ComponentContext) -> None:
        self.schemas = ctx.schemas
        self.backend = ctx.backend
        self._indexes: dict[str, ValueIndex] = {}
        self._entities: dict[str, Mapping[str, list[str]]] = {}
        self._intent_keys = {
            (s.service_name, i.name): _keys(_camel(i.name) + " " + i.description)
            for s in self.schemas.values()
            for i in s.intents
        }
        self._service_keys = {
            s.service_name: _keys(_camel(s.service_name.split("_")[0]) + " " + s.description)
            for s in self.schemas.values()
        }
        self._name_keys = {
            (s.service_name, slot.name): {
                _stem(w) for w in words(slot.name.replace("_", " ")) if w not in GENERIC
            }
            for s in self.schemas.values()
            for slot in s.slots
        }
        self._kind_counts = {
            s.service_name: Counter(r.value_type for r in slot_roles(s).values())
            for s in self.schemas.values()
        }
        self._slot_keys = {
            (s.service_name, slot.name): {_stem(w) for w in slot_words(slot)}
            for s in self.schemas.values()
            for slot in s.slots
        }

    async def _entity_values(self, service: str) -> Mapping[str, list[str]]:
        """The backend's values of the service's slots, asked for once."""
        if service not in self._entities:
            self._entities[service] = (
                await self.backend.entity_values(service) if self.backend else {}
            )
        return self._entities[service]

    async def _index(self, service: str) -> ValueIndex:
        if service not in self._indexes:
            values = await self._entity_values(service)
            self._indexes[service] = ValueIndex(self.schemas[service], values)
        return self._indexes[service]

    def detect_intent(
        self, text: str, prefer: Sequence[str], among: Collection[str] | None = None
    ) -> tuple[str, IntentSchema] | None:
        """The best intent by keywords; with ``among``, only those services' intents."""
        keys = _keys(text)
        best, best_score = None, 0.0
        for (service, name), intent_keys in self._intent_keys.items():
            if among is not None and service not in among:
                continue
            hits = keys & intent_keys
            service_hits = keys & self._service_keys[service]
            verbs = keys & _keys(_camel(name).split()[0])
            score = len(hits) + 0.5 * len(service_hits) + (0.5 if verbs else 0)
            score += 0.25 if service in prefer else 0
            if (verbs or service_hits) and score > best_score and len(hits | service_hits) >= 1:
                best, best_score = (service, name), score
        if best is None or best_score < 1.5:
            return None
        return best[0], self.schemas[best[0]].intent_map[best[1]]

    async def parse(self, text: str, context: TurnContext) -> UserActs:
        lowered = text.lower()
        last = context.history.last_system_frame
        last_service = last.service if last else None
        system = last.actions if last else []
        sys_kinds: set[str] = {a.act for a in system}
        requested = [a.slot for a in system if a.act == "REQUEST"]
        in_state = list(reversed(context.state))
        intent = self.detect_intent(text, [last_service or "", *in_state], context.schemas)
        service = intent[0] if intent else last_service or (in_state[0] if in_state else None)
        if service is None or service not in self.schemas:
            return {}
        schema = self.schemas[service]
        acts: list[Action] = []
        current = context.state.get(service)
        if intent and (current is None or current.active_intent != intent[1].name):
            acts.append(act("INFORM_INTENT", "intent", [intent[1].name]))
        acts += self._dialogue_acts(lowered, sys_kinds, service == last_service, bool(acts))
        acts += self._requests(lowered, service, schema)
        acts += await self._values(
            text, service, schema, requested if service == last_service else []
        )
        return {service: dedupe(acts)} if acts else {}

    def _dialogue_acts(
        self, text: str, sys_kinds: set[str], same_service: bool, new_intent: bool
    ) -> list[Action]:
        out = [act(kind)] if (kind := _answer(text, sys_kinds, same_service, new_intent)) else []
        if THANKS.search(text):
            out.append(act("THANK_YOU"))
        if BYE.search(text) and not ANSWER_THATS_IT.search(text):
            out.append(act("GOODBYE"))
        return out

    def _requests(self, text: str, service: str, schema: ServiceSchema) -> list[Action]:
        if not QUESTION.search(text):
            return []
        keys = _keys(text)
        scored = []
        for slot in schema.slots:
            slot_keys = self._slot_keys[(service, slot.name)]
            name_keys = self._name_keys[(service, slot.name)]
            head = _stem(words(slot.name.replace("_", " "))[-1])
            if not name_keys:
                continue
            if (
                name_keys <= keys
                or (head in name_keys and head in keys)
                or (len(keys & slot_keys) >= 2 and keys & name_keys)
            ):
                scored.append(slot.name)
        return [act("REQUEST", s) for s in scored]

    async def _values(
        self, text: str, service: str, schema: ServiceSchema, requested: Sequence[str]
    ) -> list[Action]:
        index = await self._index(service)
        found = index.exact(text)
        if not found and requested:
            found = index.fuzzy(text, requested)
        lowered = text.lower()
        keys = _keys(text)
        times = [m.span() for m in TIME.finditer(lowered)]
        for slot in schema.slots:
            kind = slot_roles(schema)[slot.name].value_type
            name_keys = self._name_keys[(service, slot.name)]
            named = bool(name_keys) and name_keys <= keys
            described = bool(keys & self._slot_keys[(service, slot.name)] - GENERIC)
            asked = slot.name in requested
            # A time or date fits its slot unasked when no other slot of the kind could take it.
            sure = asked or named or not requested or self._kind_counts[service][kind] == 1
            if kind == "time" and (m := TIME.search(lowered)) and sure:
                found.append(
                    Found(slot.name, text[m.start() : m.end()], canonical_time(m), *m.span())
                )
            elif kind == "date" and (m := DATE.search(lowered)) and sure:
                found.append(
                    Found(
                        slot.name, text[m.start() : m.end()], text[m.start() : m.end()], *m.span()
                    )
                )
            elif kind == "number" and (asked or described):
                slot_keys = self._slot_keys[(service, slot.name)] - GENERIC
                fits = [
                    m
                    for m in NUMBER.finditer(lowered)
                    if str(number_value(m.group(1))) in slot.possible_values
                    and not any(s <= m.start() < e for s, e in times)
                ]
                # "that one, 3 tickets": the number before a word of the slot comes first.
                fits.sort(
                    key=lambda m: _stem(next(iter(words(lowered[m.end() :])), "")) not in slot_keys
                )
                if fits:
                    m = fits[0]
                    value = str(number_value(m.group(1)))
                    found.append(Found(slot.name, m.group(1), value, *m.span()))
            elif kind == "bool" and (asked or named):
                if asked and (YES.search(lowered) or NO.search(lowered)):
                    truth = "False" if NO.search(lowered) else "True"
                    found.append(Found(slot.name, truth, truth, 0, 0))
                elif named and not asked:
                    negated = re.search(r"\b(no|not|without|don't)\b", lowered)
                    truth = "False" if negated else "True"
                    found.append(Found(slot.name, truth, truth, 0, 0))
        acts = _pick(found, schema)
        if not acts and len(requested) == 1 and DONTCARE_CUE.search(lowered):
            acts.append(act("INFORM", requested[0], [DONTCARE]))
        return acts


def _pick(found: Sequence[Found], schema: ServiceSchema) -> list[Action]:
    """One value per slot and one slot per span: earlier (longer, exact) finds win."""
    acts: list[Action] = []
    slots: set[str] = set()
    spans: list[tuple[int, int]] = []
    for f in found:
        overlaps = any(f.start < e and s < f.end for s, e in spans if f.end > f.start)
        if f.slot in slots or overlaps or f.slot not in schema.slot_map:
            continue
        slots.add(f.slot)
        if f.end > f.start:
            spans.append((f.start, f.end))
        acts.append(act("INFORM", f.slot, [f.value], [f.canonical]))
    return acts


def dedupe(acts: Sequence[Action]) -> list[Action]:
    seen, out = set(), []
    for a in acts:
        if a.key() not in seen:
            seen.add(a.key())
            out.append(a)
    return out
