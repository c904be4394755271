"""Defects a reply must not have, found in its text, its acts and the service's schema.

``defects(text, actions, schema)`` names each defect found (an empty list: none):

* ``placeholder``: a ``{slot}`` left unfilled, a slot's name or ``dontcare`` said;
* ``lower_start``: a sentence that starts in lower case (the values' own spelling aside);
* ``mid_capital``: a capital inside a template's word ("iT cost you");
* ``split_word``: a possessive or a word split at its "s" ("The performer s name");
* ``bare_value``: a sentence that is nothing but a value ("Kevin Blatch.");
* ``double_stop``: "..", a sentence ended twice;
* ``clock``: a time said on the 24-hour clock or with a leading zero ("07:30", "19:00");
* ``agreement``: a number and its noun that disagree ("1 options", "79 showtime at 7 pm",
  "0 stop."), or a count without its noun ("I found 10.");
* ``currency``: an amount of money said without its currency ("It costs 45");
* ``offer``: "How about X?" naming a price, a bare number or another slot's value than the
  entity's name that the acts offer;
* ``other_slot``: a value said with another slot's words ("Sky Harbor Airport stops" for an
  airport, "pick up on" before the drop-off date);
* ``vague_success``: "Your request was successful." where the success could be said;
* ``question_stop``: a question ended with a full stop ("So, do you wish to rebook ...
  at 1:30 pm."; ``nlg.form``);
* ``stray_article``: an article before a verb or a stop ("the name of the artist the is",
  "tell me the are where you'd like to stay"; ``nlg.form``).

``tests/nlg/test_reply_check.py`` runs the generator over every act combination SGD train
and dev hold and fails on any of these (docs/nlg.md, "The reply check").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tod_runtime.dialogue.models import Action
from tod_runtime.nlg.form import form_defects
from tod_runtime.nlg.signature import is_bool, schema_info, service_signature
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.schema.roles import FUNCTION_WORDS
from tod_runtime.values.say import say_amount, say_value

DEBUG = False
VAGUE_SUCCESS = "Your request was successful."
MASK = "\x00"  # stands for a value in the text: its spelling is the value's own
_SENTENCE = re.compile(r"(?:^|[.?!]\s+)([^\s])")
_MID_CAPITAL = re.compile(r"\b[a-z]+[A-Z]")
_SPLIT_S = re.compile(r"[A-Za-z] s\b")
_COUNT_ALONE = re.compile(r"\bfound (?:\d+|one|two|three)[.?!,]")  # "I found 10." counts nothing
_SPLIT_SENTENCES = re.compile(r"(?<=[.?!])\s+")
_DOUBLE = re.compile(r"(?<!\.)\.\.(?!\.)")
_CLOCK = re.compile(r"\b(\d{1,2}):(\d{2})\b(?!\s*[ap]\.?m\b)", re.IGNORECASE)
_ZERO_HOUR = re.compile(r"\b0\d:\d{2}\b")
_NUMBER_NOUN = re.compile(r"\b(\d+|one|two|three|four|five) ([a-z]+)\b(\s*[a-z]*)")
_LEFT = re.compile(r"\{[a-z0-9_.]+\}|\b[a-z]+_[a-z_]+\b|\bdontcare\b")
_OFFER = re.compile(r"\b(?:How|What) about (.+?)\?")
_WORD = re.compile(r"[a-z]+")
_NOT_NOUNS = frozenset({"am", "pm", "of", "or", "and", "to", "in", "at", "on", "for", "is"})
_ENTITY_LABELS = ("name", "title")
_FILLERS = FUNCTION_WORDS | {"the", "a", "an", "and", "pm", "am", "people", "person"}
_DAYS = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"})
_PHRASE_ENDS = frozenset({"and", "or", "for", "with"})
_VERBS = ("ing", "ed")  # a verb after a value starts a clause
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}


def _values(actions: Sequence[Action]) -> list[tuple[Action, str]]:
    return [
        (a, v)
        for a in actions
        if a.slot and a.act not in ("REQUEST", "OFFER_INTENT", "INFORM_INTENT")
        for v in (a.values or a.canonical_values)
        if v.strip() and not is_bool(v) and v.strip().lower() != "dontcare"
    ]


def said_forms(value: str, kind: str) -> list[str]:
    """The ways a value may appear in a reply, longest first."""
    forms = {value, say_value(value, kind)}
    return sorted((f for f in forms if f.strip()), key=len, reverse=True)


def masked(text: str, actions: Sequence[Action], schema: ServiceSchema | None) -> str:
    """``text`` with every value of the acts replaced by ``MASK`` (longest first)."""
    kinds = {s: i.kind for s, i in schema_info(schema)[0].items()} if schema else {}
    forms = [f for a, v in _values(actions) for f in said_forms(v, kinds.get(a.slot, "text"))]
    for form in sorted(set(forms), key=len, reverse=True):
        if len(form) > 1 or not form.isalnum():
            text = text.replace(form, MASK)
    return text


def _singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    return word[:-1]


def _agreement(text: str, nouns: frozenset[str]) -> bool:
    """Whether a number and the noun after it disagree. ``nouns``: plurals people's replies
    say; a singular after a number other than 1 counts only when it ends the phrase ("5
    star hotel", "a 3 star" are right)."""
    for match in _NUMBER_NOUN.finditer(text):
        said, word, after = match[1], match[2], match[3].strip()
        number = int(said) if said.isdigit() else _NUMBER_WORDS.get(said)
        if number is None or word in _NOT_NOUNS:
            continue
        plural = word.endswith("s") and not word.endswith(("ss", "us", "is"))
        if number == 1 and plural and _singular(word) + "s" in nouns:
            return True
        article = text[: match.start()].endswith(("a ", "an ", "A ", "An "))
        ends = not after or after in FUNCTION_WORDS or after in _NOT_NOUNS
        if number != 1 and not plural and word + "s" in nouns and ends and not article:
            return True
    return False


def _stem(word: str) -> str:
    """A crude stem: "stops" and "stop", "arrives" and "arrival" alike."""
    word = word[:-1] if word.endswith("s") and len(word) > 3 else word
    return word[:5]


def _name_stems(slot: str) -> set[str]:
    return {_stem(t) for t in slot.split("_") if len(t) > 2 and t not in _FILLERS | {"number"}}


def _slot_stems(schema: ServiceSchema, slot: str) -> set[str]:
    spec = schema.slot(slot)
    words = _WORD.findall(f"{slot.replace('_', ' ')} {spec.description.lower() if spec else ''}")
    return {_stem(w) for w in words}


def _places(text: str, form: str) -> list[int]:
    """Where ``form`` is said in ``text`` as whole words."""
    pattern = r"(?<![\w$])" + re.escape(form) + r"(?![\w])"
    return [m.start() for m in re.finditer(pattern, text)]


def _near(text: str, form: str, start: int) -> set[str]:
    """The stems of the template's words right beside ``form`` said at ``start``: the word
    before when it is not a function word; the word after when it ends the phrase ("{stops}
    stops.", "{people} person and"; not a verb: "Seattle arrives at", "checking in")."""
    before = _WORD.findall(re.split(r"[.,?!;]", text[:start])[-1].lower())[-1:]
    if form[:1].isdigit() or form.split(",")[0].lower() in _DAYS:  # "restaurant Friday"
        before = []
    after = _WORD.findall(re.split(r"[.,?!;]", text[start + len(form) :])[0].lower())[:2]
    if after[1:] and after[1] not in _PHRASE_ENDS or after[:1] and after[0].endswith(_VERBS):
        after = []
    return {_stem(w) for w in before + after[:1] if w not in _FILLERS}


def _other_slot(text: str, actions: Sequence[Action], schema: ServiceSchema) -> bool:
    """Whether a value is said beside a word of another slot's name that its own slot's name
    and description lack, and that no other value said beside it owns (an airport said as
    "{number_stops} stops"; "with 1 stop for $20" is right)."""
    info = schema_info(schema)[0]
    glued = text.lower().replace("pick up", "pickup").replace("drop off", "dropoff")
    names = {s.name: _name_stems(s.name) for s in schema.slots if s.name in info}
    shared = {stem for a in names for b in names if a < b for stem in names[a] & names[b]}
    said: list[tuple[set[str], set[str]]] = []  # (own stems, stems beside it)
    for action, value in _values(actions):
        if action.act == "INFORM_COUNT":  # "10 hotels": the count's noun is the entity
            continue
        kind = info[action.slot].kind if action.slot in info else "text"
        own = _slot_stems(schema, action.slot) if action.slot in info else set()
        for form in said_forms(value, kind):
            places = _places(glued, form.lower())
            if places:
                said.append((own, set().union(*(_near(glued, form.lower(), p) for p in places))))
                break
    for own, beside in said:
        for other, stems in names.items():
            if info[other].kind == "bool":
                continue
            foreign = (stems - own - shared) & beside
            if foreign and not any(foreign & o & b for o, b in said if o is not own):
                if DEBUG:
                    print("other_slot:", other, foreign, own, beside)
                return True
    return False


def _offer(text: str, actions: Sequence[Action], schema: ServiceSchema | None) -> bool:
    """Whether "How about X?" names a number, a price or not the entity the acts offer."""
    info = schema_info(schema)[0] if schema else {}
    offers = [a for a in actions if a.act == "OFFER" and (a.values or a.canonical_values)]
    entity = [a for a in offers if info.get(a.slot) and info[a.slot].label.endswith(_ENTITY_LABELS)]
    for match in _OFFER.finditer(text):
        named = match[1].strip()
        if re.fullmatch(r"[$\d][\d\s,.$]*", named):
            return True
        if entity and not any(
            f in text
            for a in entity
            for v in (a.values or a.canonical_values)
            for f in said_forms(v, info[a.slot].kind)
        ):
            return True
    return False


def _currency(text: str, actions: Sequence[Action], schema: ServiceSchema | None) -> bool:
    info = schema_info(schema)[0] if schema else {}
    for action, value in _values(actions):
        slot = info.get(action.slot)
        if slot is None or slot.kind != "amount":
            continue
        said = say_amount(value)
        if said.startswith("$") and said not in text and value.strip() in text:
            return True
    return False


def defects(
    text: str,
    actions: Sequence[Action],
    schema: ServiceSchema | None,
    nouns: frozenset[str] = frozenset(),
) -> list[str]:
    """The defects of ``text`` as the reply to ``actions`` (see the module's docstring);
    ``nouns``: plural nouns replies say (``Realiser.plurals``), for number agreement."""
    found = []
    bare = masked(text, actions, schema)
    if _LEFT.search(bare):
        found.append("placeholder")
    if any(m[1].islower() for m in _SENTENCE.finditer(bare)):
        found.append("lower_start")
    if _MID_CAPITAL.search(bare):
        found.append("mid_capital")
    if _SPLIT_S.search(bare):
        found.append("split_word")
    if any(not _WORD.search(p.lower()) for p in _SPLIT_SENTENCES.split(bare) if p.strip()):
        found.append("bare_value")
    if _DOUBLE.search(text):
        found.append("double_stop")
    if _CLOCK.search(text) or _ZERO_HOUR.search(text):
        found.append("clock")
    if _agreement(text, nouns) or _COUNT_ALONE.search(text):
        found.append("agreement")
    if _currency(text, actions, schema):
        found.append("currency")
    if _offer(text, actions, schema):
        found.append("offer")
    if schema is not None and _other_slot(text, actions, schema):
        found.append("other_slot")
    if VAGUE_SUCCESS in text:
        found.append("vague_success")
    return found + form_defects(bare.replace(MASK, "{value}"))


def combinations(
    dialogues: Iterable[Mapping[str, Any]], per_key: int = 1
) -> dict[tuple[str, str], list[list[Action]]]:
    """The system frames' act combinations of SGD dialogues (raw JSON), keyed by (service,
    signature), with the first ``per_key`` frames' acts of each (values as the recordings'
    canonical values: the backend's form, as a live service gives them)."""
    found: dict[tuple[str, str], list[list[Action]]] = {}
    for dialogue in dialogues:
        for turn in dialogue.get("turns", ()):
            if turn.get("speaker") != "SYSTEM":
                continue
            for frame in turn.get("frames", ()):
                actions = [
                    Action(
                        act=a["act"],
                        slot=a.get("slot", ""),
                        values=list(a.get("canonical_values") or a.get("values") or []),
                        canonical_values=list(a.get("canonical_values") or []),
                    )
                    for a in frame.get("actions", ())
                ]
                key = (frame["service"], service_signature(actions).key)
                kept = found.setdefault(key, [])
                if len(kept) < per_key:
                    kept.append(actions)
    return found
