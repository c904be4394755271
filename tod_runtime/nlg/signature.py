"""Act signatures and placeholders, shared by the template miner and the generator.

An act becomes one signature item: ``REQ_MORE``, ``REQUEST(city)`` (a slot without values),
``OFFER(restaurant_name)`` (one value: placeholder ``{restaurant_name}``),
``REQUEST(cuisine*2)`` (two values: ``{cuisine}`` and ``{cuisine.2}``),
``INFORM(has_live_music=True)`` (a boolean's value is part of the key, never a placeholder)
and ``OFFER_INTENT(intent=ReserveRestaurant)``. A frame's signature is its sorted items joined
by spaces.

Two namings of the slots give two signatures of the same acts:

* per service: the slot's own name (``restaurant_name``);
* generic, across services, by what the slot is: its *label*, the head of its description
  (the words before the first function word and a last "in", ``head_words``: "Name of the
  restaurant" -> ``name``, "Check in date for reservation" -> ``check_in_date``), ``bool``
  for a boolean, or the value kind when the head is empty; an intent's label is the first
  word of its description ("Reserve a table at a restaurant" -> ``reserve``). Two slots of
  one frame with the same label are told apart by order (``name``, ``name_2``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from tod_runtime.dialogue.models import Action
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.schema.roles import description_head
from tod_runtime.values.normalise import Kind, slot_kind

INTENT_ACTS = frozenset({"OFFER_INTENT", "INFORM_INTENT"})
PLACEHOLDER = re.compile(r"\{([a-z0-9_.]+)\}")
_WORD = re.compile(r"[a-z]+")
_ARTICLES = frozenset({"the", "a", "an"})


@dataclass(frozen=True)
class SlotInfo:
    kind: Kind
    label: str


def head_words(description: str) -> list[str]:
    """A description's head (``schema.roles.description_head``) without a last "in": "City
    in which the restaurant is located" -> city (was "city in")."""
    head = description_head(description)
    return head[:-1] if head[-1:] == ["in"] else head


def _label(description: str, kind: str) -> str:
    if kind == "bool":
        return kind
    head = [w for w in head_words(description) if w not in _ARTICLES][-3:]
    return "_".join(head) or kind


def schema_info(schema: ServiceSchema) -> tuple[dict[str, SlotInfo], dict[str, str]]:
    """Every slot's kind and label, and every intent's label; computed once per schema."""
    return schema.derived("nlg.signature.schema_info", lambda: _schema_info(schema))


def _schema_info(schema: ServiceSchema) -> tuple[dict[str, SlotInfo], dict[str, str]]:
    slots = {}
    for slot in schema.slots:
        kind = slot_kind(schema, slot.name)
        slots[slot.name] = SlotInfo(kind, _label(slot.description, kind))
    intents = {}
    for intent in schema.intents:
        words = _WORD.findall(intent.description.lower())
        intents[intent.name] = words[0] if words else "intent"
    return slots, intents


def is_bool(value: str) -> bool:
    return value.strip().lower() in ("true", "false")


def _value_bool(values: Sequence[str]) -> str:
    return "True" if values[0].strip().lower() == "true" else "False"


@dataclass(frozen=True)
class Signature:
    """The signature of some acts under one naming, and the values of its placeholders."""

    key: str
    values: dict[str, str]  # placeholder -> value as given
    slots: dict[str, str]  # placeholder -> slot


Namer = Callable[[str], str]


def signature(
    actions: Sequence[Action],
    slot_name: Namer,
    intent_name: Namer,
) -> Signature:
    """The signature of ``actions`` with slots named by ``slot_name`` and intent values by
    ``intent_name``; placeholders get the acts' values (first occurrence wins)."""
    items: list[str] = []
    values: dict[str, str] = {}
    slots: dict[str, str] = {}
    owner: dict[str, str] = {}  # name -> slot, to tell two slots with one label apart
    for action in actions:
        if not action.slot:
            items.append(action.act)
            continue
        vals = action.values or action.canonical_values
        if action.act in INTENT_ACTS:
            items.append(f"{action.act}(intent={intent_name(vals[0]) if vals else ''})")
            continue
        name = slot_name(action.slot)
        base, n = name, 2
        while owner.get(name, action.slot) != action.slot:
            name, n = f"{base}_{n}", n + 1
        owner[name] = action.slot
        if not vals:
            items.append(f"{action.act}({name})")
        elif len(vals) == 1 and is_bool(vals[0]):
            items.append(f"{action.act}({name}={_value_bool(vals)})")
        else:
            items.append(f"{action.act}({name}{'' if len(vals) == 1 else f'*{len(vals)}'})")
            for i, value in enumerate(vals):
                holder = name if i == 0 else f"{name}.{i + 1}"
                if holder not in values:
                    values[holder], slots[holder] = value, action.slot
    return Signature(" ".join(sorted(items)), values, slots)


def service_signature(actions: Sequence[Action]) -> Signature:
    return signature(actions, _same, _same)


def generic_signature(actions: Sequence[Action], schema: ServiceSchema | None) -> Signature:
    if schema is None:
        return signature(actions, _same, _same)
    slots, intents = schema_info(schema)

    def slot_label(slot: str) -> str:
        info = slots.get(slot)
        return info.label if info else slot

    return signature(actions, slot_label, lambda name: intents.get(name, name))


def _same(name: str) -> str:
    return name


_COUNTED = re.compile(r"\b(\d+) ([A-Za-z]+)\(s\)")
_DOUBLE_STOP = re.compile(r"(?<!\.)\.\.(?!\.)")  # a value's own stop ("D.C.") and the template's
_ON_DAY = re.compile(r"\bon (today|tonight|tomorrow|the day after tomorrow)\b", re.IGNORECASE)


def _agree(match: re.Match[str]) -> str:
    return f"{match[1]} {match[2]}" + ("" if match[1] == "1" else "s")


def _tidy(text: str) -> str:
    """The words a filled template leaves wrong: "night(s)" after a number agrees with it,
    "on tomorrow" (a date said as the user said it) is "tomorrow"."""
    text = _ON_DAY.sub(r"\1", _COUNTED.sub(_agree, text))
    return _DOUBLE_STOP.sub(".", text) if ".." in text else text


_ONE_OF = re.compile(r"\{([a-z0-9_.]+)\} ([a-z]+[^s\W]s)\b")


def _singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses", "uses")):
        return word[:-2]
    return word[:-1]


_COUNT_OF = re.compile(r"\{count\} ([A-Za-z]+)\b(?: ([a-z]+)\b)?")


def _plural(word: str) -> str:
    if word == "person":
        return "people"
    if word.endswith("y") and word[-2:-1] not in ("a", "e", "i", "o", "u"):
        return word[:-1] + "ies"
    if word.endswith(("ch", "sh", "x", "s", "z")):
        return word + "es"
    return word + "s"


def _counted(template: str, values: Mapping[str, str], plurals: Collection[str] = ()) -> str:
    """A plural after a placeholder whose value is 1 made singular ("I found {count}
    flights" with 1: "I found 1 flight"): a key's templates were written for any count.
    And the reverse after ``{count}`` (INFORM_COUNT's value) other than 1, when the plural
    is a word of ``plurals`` ("I found {count} movie" with 25: "I found 25 movies"; not
    "25 available"), or of the word after it ("{count} weather result": "4 weather results")."""

    def one(match: re.Match[str]) -> str:
        if values.get(match[1], "").strip() not in ("1", "one"):
            return match[0]
        return "{" + match[1] + "} " + _singular(match[2])

    def many(match: re.Match[str]) -> str:
        count = values.get("count", "").strip()
        if not count.isdigit() or count == "1":
            return match[0]
        first, second = match[1], match[2]
        if _plural(first) in plurals:
            return f"{{count}} {_plural(first)}" + (f" {second}" if second else "")
        if second and _plural(second) in plurals:
            # a noun after a word that takes no plural ("{count} weather result")
            return f"{{count}} {first} {_plural(second)}"
        return match[0]

    template = _ONE_OF.sub(one, template) if "s" in template else template
    return _COUNT_OF.sub(many, template) if plurals and "{count}" in template else template


_SAID_YOU = ("uni", "use", "usu", "uti", "eu", "one")  # a vowel letter said as a consonant
_ARTICLE_OF = re.compile(r"\b([Aa]n?) \{([a-z0-9_.]+)\}")


def _articles(template: str, values: Mapping[str, str]) -> str:
    """ "a" or "an" before a placeholder as its value begins ("an {airlines} flight" with
    "Delta Airlines": "a Delta Airlines flight"); by the first letter ("a United Airlines
    flight": a few beginnings said as a consonant)."""

    def article(match: re.Match[str]) -> str:
        value = values.get(match[2], "").strip()
        if not value[:1].isalpha():
            return match[0]
        lowered = value.lower()
        vowel = lowered[0] in "aeiou" and not lowered.startswith(_SAID_YOU)
        said = "an" if vowel else "a"
        return f"{said if match[1][0] == 'a' else said.capitalize()} {{{match[2]}}}"

    return _ARTICLE_OF.sub(article, template) if "{" in template else template


_THE_OF = re.compile(r"\b([Tt])he \{([a-z0-9_.]+)\}")
_NUMBERED_NAME = re.compile(r"\d+[A-Za-z]*\s+[A-Z]")  # "11 Howard", "45 Park Lane", "1 Hotel"
_POSSESSIVE_NAME = re.compile(r"[A-Za-z]'[Ss]\b")  # "Batty Langley's Hotel", "Denny's"


def _numbered_names(template: str, values: Mapping[str, str]) -> str:
    """No "the" before a name that starts with its number ("The {place_name} is a nice
    hotel." with "11 Howard": "11 Howard is ...", was "The 11 Howard is ...") or holds a
    possessive ("Batty Langley's Hotel is ...", was "The Batty Langley's Hotel"); "the
    {count} options" keeps it."""

    def drop(match: re.Match[str]) -> str:
        value = values.get(match[2], "").strip()
        named = _NUMBERED_NAME.match(value) or _POSSESSIVE_NAME.search(value)
        return f"{{{match[2]}}}" if named else match[0]

    return _THE_OF.sub(drop, template) if "he {" in template else template


_ARTICLE_ENDS = re.compile(r"\b[Aa]n? \{([a-z0-9_.]+)\}(?=\s*(?:[.?!,;]|$))")
_NOT_PLURAL = ("ss", "us", "is", "'s")


def _a_plural(template: str, values: Mapping[str, str]) -> bool:
    """Whether "a" or "an" ends its phrase with a value of one word that reads as a plural
    ("This movie is a {genre}." with "Sports": "a Sports."; "a Sports movie" is right)."""
    for match in _ARTICLE_ENDS.finditer(template):
        value = values.get(match[1], "").strip().lower()
        if value.isalpha() and value.endswith("s") and not value.endswith(_NOT_PLURAL):
            return True
    return False


_MID_CAPITAL = re.compile(r"(?<![{\w])([a-z]+[A-Z][A-Za-z]*)\b")
_LONE_I = re.compile(r"(?<![{\w'])i(?=\b[^{}]|$)(?!['.]\w)")
_STARTS = re.compile(r"(^|[.?!]\s+)([a-z])")


def cased(template: str) -> str:
    """A template people typed, in sentence case: a word with a capital inside in lower case
    ("iT cost you", "a Metalcore sonG"), "i" as "I", each sentence's first letter a capital
    ("they don't serve alcohol. the address is ..."), none after a one-word reply ("Yes, it
    will be held at"), a question's preposition once ("In what city should I look?").
    Placeholders are left as they are: a value keeps its own spelling."""
    if not any(c.isalpha() for c in template):
        return template
    text = _MID_CAPITAL.sub(lambda m: m[1].lower(), template)
    text = _LONE_I.sub("I", text)
    text = _DOUBLED.sub(r"\1 \2 \3?", text)
    text = _AFTER_REPLY.sub(lambda m: m[1] + m[2].lower(), text)
    return _STARTS.sub(lambda m: m[1] + m[2].upper(), text)


# a pronoun or a function word capitalised after a one-word reply ("Yes, It will be held at")
_AFTER_REPLY = re.compile(
    r"(^(?:Yes|No|Sure|Okay|Ok|Alright|Great|Certainly), )"
    r"(It|They|Please|The|This|That|There|These|Those|We|You|He|She|Your|Their|Its)\b"
)
_DOUBLED = re.compile(r"\b(in|at|from|to|for|with|on) (what|which) ([^.?!{}]*?) \1\?", re.I)
"""A question's preposition said twice ("In what city should I look in?"): the last one goes."""


_SOME = re.compile(
    r"(?<![Aa] )(?<![Aa]n )\{([a-z0-9_.]+)\} (\{[a-z0-9_.]+\} )?([a-z]+)\b"
    r"(?=\s*(?:[.,?!;]|$|(?:and|or|for|with|in|on|at|to|from)\b))"
)


def _many(template: str, values: Mapping[str, str], plurals: Collection[str]) -> str:
    """A singular after a number other than 1 plural when the noun ends its phrase and the
    templates say that plural ("{number_stops} stop." with 0: "0 stops."; "{group_size}
    {fare_type} ticket on" with 2: "2 Economy tickets on"; not "a {stars} star hotel")."""

    def plural(match: re.Match[str]) -> str:
        value = values.get(match[1], "").strip()
        between, word = match[2] or "", match[3]
        if not value.isdigit() or value == "1" or word.endswith("s"):
            return match[0]
        many = _plural(word)
        if many not in plurals and many != "people":
            return match[0]
        return f"{{{match[1]}}} {between}{many}"

    return _SOME.sub(plural, template) if "{" in template else template


_THERE_BE = re.compile(r"\b([Tt]here) (?:is|are) \{([a-z0-9_.]+)\}")


def _there_be(template: str, values: Mapping[str, str]) -> str:
    """ "There is {count}" agrees with the count: "There are 55 empty slots"."""

    def agree(match: re.Match[str]) -> str:
        value = values.get(match[2], "").strip()
        if not value.isdigit():
            return match[0]
        verb = "is" if value == "1" else "are"
        return f"{match[1]} {verb} {{{match[2]}}}"

    return _THERE_BE.sub(agree, template) if "here " in template else template


def fill(template: str, values: Mapping[str, str], plurals: Collection[str] = ()) -> str | None:
    """The template with its placeholders replaced and tidied (``cased``; ``_tidy``; a
    plural after a count of 1 singular and a singular after another count plural,
    ``_counted`` and ``_many``, and "there is" before it, ``_there_be``; "a" or "an"
    before a value, ``_articles``); None when one has no value, or when "a" would end its
    phrase with a plural value (``_a_plural``)."""
    missing = False
    template = _many(_counted(cased(template), values, plurals), values, plurals)
    template = _there_be(template, values)
    template = _articles(_numbered_names(template, values), values)
    if _a_plural(template, values):
        return None

    def sub(match: re.Match[str]) -> str:
        nonlocal missing
        value = values.get(match[1])
        if value is None:
            missing = True
            return ""
        return value

    text = PLACEHOLDER.sub(sub, template)
    return None if missing else _tidy(text)


def placeholders(template: str) -> set[str]:
    return set(PLACEHOLDER.findall(template))
