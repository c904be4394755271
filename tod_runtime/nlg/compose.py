"""Composed wording, for acts no mined template covers: phrases made from the schema's
descriptions, one act (or one run of acts of a kind) at a time.

* A slot's *noun phrase* is its description's head ("City where the restaurant is located" ->
  "city"), or the whole description when the head alone says little ("Number of people in
  the party").
* A boolean slot's description ("Whether the restaurant has live music") becomes a yes/no
  question ("Does the restaurant have live music?") and statements ("The restaurant has live
  music." / "The restaurant does not have live music."), never "is False".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tod_runtime.dialogue.models import Action
from tod_runtime.nlg.signature import head_words, schema_info
from tod_runtime.nlg.success import success
from tod_runtime.schema.models import ServiceSchema, SlotSchema
from tod_runtime.schema.roles import FUNCTION_WORDS
from tod_runtime.schema.roles import names_entity as roles_names_entity

_WORD = re.compile(r"[A-Za-z0-9'-]+|[^\sA-Za-z0-9'-]")
VAGUE_HEADS = frozenset({"number", "amount", "type", "kind", "count", "whether", "boolean"})
# heads that say little without what they are of, in the system's composed clauses ("The name
# is American Kitchen", "What length would you like?")
OF_WHAT = frozenset({"name", "title", "length"})
# the person the system speaks to, as descriptions name them as an owner ("The user's ...")
SPOKEN_TO = frozenset({"user's", "customer's", "users'", "customers'"})
AUX = frozenset({"is", "are", "was", "were", "can", "will", "should", "could", "would", "has"})
ARTICLES = frozenset({"the", "a", "an"})
BREAKS = FUNCTION_WORDS | {"in"}  # where a description's noun phrase ends
BE = frozenset({"is", "are"})
IRREGULAR = {"has": "have", "does": "do", "goes": "go"}


def lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[1:2].islower() or len(text) == 1 else text


def upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def join(parts: Sequence[str], last: str = "and") -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + f" {last} " + parts[-1]


def noun_phrase(schema: ServiceSchema | None, slot: str) -> str:
    spec = schema.slot(slot) if schema else None
    if spec is None:
        return slot.replace("_", " ")
    head = [w for w in head_words(spec.description) if w not in ARTICLES]
    if head and len(head) <= 3 and not set(head) & VAGUE_HEADS:
        return " ".join(head)
    return description_phrase(spec)


def description_phrase(spec: SlotSchema) -> str:
    """A slot's whole description as a noun phrase: no final stop, no leading article ("The
    account type of the user" -> "account type of the user"), no leading owner that is the
    person spoken to ("The user's account type" -> "account type": "What user's account
    type would you like?" read wrong)."""
    words = spec.description.rstrip(". ").split()
    if len(words) > 1 and words[0].lower() in ARTICLES:
        words = words[1:]
    if len(words) > 1 and words[0].lower() in SPOKEN_TO:
        words = words[1:]
    return lower_first(" ".join(words))


def short_noun_phrase(schema: ServiceSchema | None, slot: str) -> str:
    """``noun_phrase`` cut after the words its vague head is "of" ("Number of stopovers made
    by the flight" -> "number of stopovers made"; "Number of the movie tickets to be
    purchased" -> "number of movie tickets"): the system's composed clauses name a slot as
    people do, briefly. Worked out once per slot of a schema, kept with the schema."""
    if schema is None or schema.slot(slot) is None:  # kept for the schema's slots only
        return _short_noun_phrase(schema, slot)
    phrases: dict[str, str] = schema.derived("nlg.compose.short_noun_phrase", dict)
    phrase = phrases.get(slot)
    if phrase is None:
        phrase = phrases[slot] = _short_noun_phrase(schema, slot)
    return phrase


def _short_noun_phrase(schema: ServiceSchema | None, slot: str) -> str:
    spec = schema.slot(slot) if schema else None
    phrase = noun_phrase(schema, slot)
    of_what = spec is not None and " ".join(head_words(spec.description)).lower() in OF_WHAT
    if spec is not None and of_what and description_phrase(spec).split()[1:2] == ["of"]:
        phrase = description_phrase(spec)  # "name of the restaurant", "length of stay"
    elif spec is None or phrase == " ".join(head_words(spec.description)):
        return phrase
    words = phrase.split()
    cut = [i for i, w in enumerate(words) if w.lower().strip(",") in BREAKS]
    vague = VAGUE_HEADS - {"whether", "boolean"}
    if cut and cut[0] == 1 and words[1].lower() == "of" and words[0].lower() in OF_WHAT | vague:
        words = _of_what(words)
    elif len(cut) >= 2 and {w.lower() for w in words[: cut[0]]} & vague:
        words = [w for i, w in enumerate(words[: cut[1]]) if i != cut[0] + 1 or w not in ARTICLES]
    return " ".join(words)


def _of_what(words: list[str]) -> list[str]:
    """A vague head, "of" and what it is of, up to three words, an article kept (or put) after
    a name: "name of the restaurant", "name of the airline" (from "Name of airline operating
    the flight"), "type of therapist", "number of bed rooms"."""
    keep = words[0].lower() in ("name", "title")
    what: list[str] = []
    for w in words[2:]:
        if w.lower() in BREAKS or w.lower().endswith(("ing", "ed")) or len(what) == 3:
            break
        if keep or w.lower() not in ARTICLES:
            what.append(w)
    while what and what[-1].lower() in ARTICLES:  # "name of the artist the song is by"
        what.pop()
    if keep and what and what[0].lower() not in ARTICLES:  # "Name of actor starring in movie"
        what.insert(0, "the")
    return words[:2] + what if what else words


@dataclass(frozen=True)
class YesNo:
    question: str  # asked of the entity: "Does the restaurant have live music?"
    yes: str
    no: str
    wish: str = ""  # asked of the user: "Do you want the restaurant to have live music?"

    @property
    def asked(self) -> str:
        """The system's question whether the user wants it (a REQUEST of the slot)."""
        return self.wish or self.question


def yes_no(description: str) -> YesNo:
    """A boolean slot's description as a question and two statements."""
    words = description.rstrip(". ?").split()
    if [w.lower() for w in words[-2:]] == ["or", "not"]:  # "Whether ... is refundable or not"
        words = words[:-2]
    lowered = [w.lower() for w in words[:5]]
    for marker in ("whether", "if"):
        if marker in lowered:
            words = words[lowered.index(marker) + 1 :]
            break
    if [w.lower() for w in words[:2]] == ["or", "not"]:  # "Whether or not smoking is allowed"
        words = words[2:]
    if not words:
        return YesNo("Is that so?", "Yes.", "No.")
    words[0] = lower_first(words[0])
    for i, word in enumerate(words[1:], start=1):
        w = word.lower()
        subject, rest = " ".join(words[:i]), " ".join(words[i + 1 :])
        if w in AUX and w != "has":
            return YesNo(
                f"{upper_first(w)} {subject} {rest}".strip() + "?",
                upper_first(f"{subject} {w} {rest}".strip()) + ".",
                upper_first(f"{subject} {w} not {rest}".strip()) + ".",
                f"Do you want {subject} to be {rest}".strip() + "?" if w in BE else "",
            )
        if w.endswith("s") and not w.endswith("ss") and i <= 3 and w.isalpha():
            base = _verb_base(w)
            return YesNo(
                f"Does {subject} {base} {rest}".strip() + "?",
                upper_first(f"{subject} {w} {rest}".strip()) + ".",
                upper_first(f"{subject} does not {base} {rest}".strip()) + ".",
                f"Do you want {subject} to {base} {rest}".strip() + "?",
            )
    phrase = upper_first(" ".join(words))
    return YesNo(f"{phrase}?", f"{phrase}: yes.", f"{phrase}: no.")


def _verb_base(verb: str) -> str:
    """The base form of a third-person verb: has -> have, offers -> offer, serves -> serve."""
    if verb in IRREGULAR:
        return IRREGULAR[verb]
    if verb.endswith("ies"):
        return verb[:-3] + "y"
    if verb.endswith(("ches", "shes", "xes", "sses", "zes")):
        return verb[:-2]
    return verb[:-1]


def _bool_phrases(schema: ServiceSchema | None, slot: str) -> YesNo:
    spec = schema.slot(slot) if schema else None
    return yes_no(spec.description if spec else slot.replace("_", " "))


def _is_flag(schema: ServiceSchema | None, slot: str) -> bool:
    spec = schema.slot(slot) if schema else None
    values = {v.lower() for v in spec.possible_values} if spec else set()
    return bool(values) and values <= {"true", "false"}


def _is_bool(action: Action) -> bool:
    vals = action.values or action.canonical_values
    return bool(vals) and vals[0].strip().lower() in ("true", "false")


def _truth(action: Action) -> bool:
    vals = action.values or action.canonical_values
    return vals[0].strip().lower() == "true"


Say = Callable[[Action], str]  # an act's value as said
_BARE_NUMBER = re.compile(r"[$\d][\d\s,.$]*")  # a number or an amount: "13", "$1,210.50"


def names(acts: Sequence[Action], schema: ServiceSchema | None) -> list[str]:
    """Each act's slot as a noun phrase (``short_noun_phrase``), told apart where two would
    read alike: those say their whole descriptions ("the date to pick up the car is ... and
    the date to return the car is ...", not "the date is ... and the date is ...")."""
    short = [short_noun_phrase(schema, a.slot) for a in acts]
    shared = alike(schema)
    out = []
    for action, phrase in zip(acts, short, strict=True):
        spec = schema.slot(action.slot) if schema else None
        if spec is not None and (short.count(phrase) > 1 or phrase in shared or _units(phrase)):
            phrase = description_phrase(spec)
        out.append(_numbered_name(phrase, schema, action.slot))
    return out


# the prepositions and particles that may end a participle's phrase ("flying out from")
_PARTICLES = frozenset({"to", "from", "at", "in", "on", "into", "out", "for", "with", "by"})


def _numbered_name(phrase: str, schema: ServiceSchema | None, slot: str) -> str:
    """A name its description calls a number ("Number of the airport flying to" for the slot
    ``destination_airport_name``: its own name says it is a name) said as what it names,
    and a participle that ends in a preposition said of the user ("the airport you are
    flying to", was "the airport flying to")."""
    if schema is None or not phrase.startswith("number of "):
        return phrase
    if not {"name", "title"} & set(slot.split("_")):  # a count, as its description says
        return phrase
    words = phrase.removeprefix("number of ").split()
    if words[:1] and words[0] in ARTICLES:
        words = words[1:]
    verb = next((i for i, w in enumerate(words) if w.endswith("ing") and i > 0), None)
    tail = words[verb + 1 :] if verb is not None else []
    if verb is not None and tail and all(w in _PARTICLES for w in tail):
        words = [*words[:verb], "you", "are", *words[verb:]]
    return " ".join(words)


def _units(phrase: str) -> bool:
    """A count of a unit alone ("number of days") says nothing of what takes them: the
    description does ("number of days for the transfer to go through")."""
    return phrase.startswith("number of ") and phrase.removeprefix("number of ") in UNITS


def alike(schema: ServiceSchema | None) -> frozenset[str]:
    """The short noun phrases two or more of a service's slots share (Flights' origin and
    destination are both "city"): a slot named so alone would not say which it is ("What
    city would you like?"), so its whole description is said ("What is the city in which the
    journey originates?")."""
    if schema is None:
        return frozenset()
    phrases = [short_noun_phrase(schema, s.name) for s in schema.slots]
    return frozenset(p for p in phrases if phrases.count(p) > 1)


UNITS = frozenset({"minutes", "hours", "days", "nights", "weeks", "months", "years"})


def _unit(schema: ServiceSchema | None, slot: str) -> str:
    """The unit a description ends with ("Length of stay in days": days), else ""."""
    spec = schema.slot(slot) if schema else None
    words = spec.description.lower().rstrip(". ").split() if spec else []
    return words[-1] if words[-2:-1] == ["in"] and words[-1] in UNITS else ""


def names_entity(schema: ServiceSchema | None, slot: str) -> bool:
    """Whether a slot names the entity on offer (``roles.names_entity``)."""
    return roles_names_entity(schema.slot(slot) if schema else None)


def explained(schema: ServiceSchema | None, slot: str, value: str) -> str:
    """What the slot's description says a value means ("Language to use for subtitles (or
    None for no subtitles)": None is "no subtitles"), else "". Said after the value: "the
    language is None (no subtitles)"."""
    spec = schema.slot(slot) if schema else None
    if spec is None or not value.strip():
        return ""
    found = re.search(rf"\b{re.escape(value)} for ([a-z][a-z ]*[a-z])", spec.description)
    return found[1] if found else ""


def _slot_named(schema: ServiceSchema | None, slot: str, name: str) -> str:
    """A one-word name said with the slot's own name when that name is the word after the
    words its description holds ("subtitle_language", "Language to use for subtitles":
    "subtitle language", not "language"): said of an explained value, whose meaning needs
    to know what the value is of ("the subtitle language is None (no subtitles)")."""
    parts = slot.split("_")
    spec = schema.slot(slot) if schema else None
    if spec is None or len(parts) < 2 or parts[-1] != name:
        return name
    said = [w.lower() for w in re.findall(r"[A-Za-z]+", spec.description)]
    if all(any(w.startswith(p) for w in said) for p in parts[:-1]):
        return " ".join(parts)
    return name


def _clause(action: Action, schema: ServiceSchema | None, say: Say, name: str | None = None) -> str:
    """ "the city is Oslo", or a boolean's statement (without its final stop)."""
    if _is_bool(action):
        phrases = _bool_phrases(schema, action.slot)
        return lower_first((phrases.yes if _truth(action) else phrases.no).rstrip("."))
    name = name or short_noun_phrase(schema, action.slot)
    value = say(action)
    if meant := explained(schema, action.slot, value):  # "None for no subtitles"
        # the value itself is said too: a reply must say its acts' values (replay's slot
        # error rate counted "no subtitles" alone as a miss, 80 of dev's 157)
        return f"the {_slot_named(schema, action.slot, name)} is {value} ({meant})"
    unit = _unit(schema, action.slot)
    if unit and value.isdigit():  # "Length of stay in days": "the length of stay is 3 days"
        value += f" {unit}" if value != "1" else f" {unit[:-1]}"
    if name.startswith("number of ") and not any(c.isdigit() for c in value):
        # a description calling a name a number ("Number of the airport flying to")
        name = name.removeprefix("number of ").removeprefix("the ")
    return f"the {name} is {value}"


def clauses(acts: Sequence[Action], schema: ServiceSchema | None, say: Say) -> list[str]:
    """The acts' clauses; a boolean's statement that begins as the boolean's before it does
    (a subject and a verb: "the restaurant has ...") says only what follows."""
    out: list[str] = []
    before: str | None = None  # the previous boolean's whole statement
    for action, name in zip(acts, names(acts, schema), strict=True):
        clause = _clause(action, schema, say, name)
        said = clause
        if _is_bool(action) and before is not None:
            lead = " ".join(clause.split()[:3]) + " "
            if before.startswith(lead) and len(clause) > len(lead):
                said = clause.removeprefix(lead)
        before = clause if _is_bool(action) else None
        out.append(said)
    return out


def _intent_phrase(schema: ServiceSchema | None, name: str) -> str:
    """An intent's description as a verb phrase, up to its first comma ("Rent a movie to
    watch, with optional subtitles" -> "rent a movie to watch")."""
    intent = schema.intent(name) if schema else None
    return lower_first(intent.description.split(",")[0].rstrip(". ")) if intent else name


# The policies' acts that may say what the system can do (their values: intent descriptions),
# and what leads the sentence; a REQ_MORE says so answering a bare "yes" to "anything else?"
CAN_DO = {
    "GREETING": "Hello!",
    "FALLBACK": "Sorry, I did not get that.",
    "REQ_MORE": "What can I help you with?",
}


# the question which detail to change (``dialogue.models.change_asks``)
CHANGE = "CHANGE"
# the values a system's questions propose, after the questions (``realise._proposed``)
PROPOSE = "PROPOSE"


def _request(acts: Sequence[Action], schema: ServiceSchema | None, say: Say) -> str:
    """The system's questions: the plain slots' in one, then each boolean's; the values a
    question proposes said as people say them ("for example Monday, March 4th or Friday,
    March 8th", was "for example 2019-03-04 or 2019-03-08")."""
    flags = [a for a in acts if _is_flag(schema, a.slot)]
    plain = [a for a in acts if not _is_flag(schema, a.slot)]
    questions = [_bool_phrases(schema, a.slot).asked for a in flags]
    if plain:
        what = join(names(plain, schema))
        unit = _unit(schema, plain[0].slot)
        if len(plain) > 1:
            text = f"Could you tell me the {what}"
        elif what != short_noun_phrase(schema, plain[0].slot):  # told apart: the description
            text = f"What is the {what}"
        elif what.startswith("number of "):  # "How many days would you like?"
            text = f"How many {what.removeprefix('number of ')} would you like"
        elif unit:  # "Length of stay in days"
            text = f"How many {unit} would you like"
        else:
            text = f"What {what} would you like"
        options = [
            say(a.model_copy(update={"values": [v], "canonical_values": []}))
            for a in plain
            for v in a.values
        ]
        if options:
            text += ", for example " + join(options).replace(" and ", " or ")
        questions.insert(0, text + "?")
    return " ".join(questions)


def _offer(acts: Sequence[Action], schema: ServiceSchema | None, say: Say) -> str:
    """An offer: "How about {the entity}?", then its other values as facts."""
    acts = sorted(acts, key=lambda a: not names_entity(schema, a.slot))
    first, rest = acts[0], acts[1:]
    if _BARE_NUMBER.fullmatch(say(first)) or _is_bool(first):
        # "How about 13?" names nothing: what is offered is said ("The humidity is 13.")
        return upper_first(join(clauses(acts, schema, say))) + "."
    named = say(first)
    single = len(first.values or first.canonical_values) == 1  # not a list of options
    if not (noun := offered_noun(schema, first.slot, named) if single else ""):
        tail = " " + upper_first(join(clauses(acts, schema, say)[1:])) + "." if rest else ""
        return f"How about {named}?{tail}"
    # not a proper name: what it is, and when, in one question ("How about the alarm Pick up
    # kids at 4:30 pm?", was "What about Pick up kids? It starts at 4:30 pm.")
    named = f"the {noun} {named}"
    kinds = schema_info(schema)[0] if schema else {}
    for kind, word in (("date", "on"), ("time", "at")):
        when = next((a for a in rest if a.slot in kinds and kinds[a.slot].kind == kind), None)
        if when is not None:
            named += f" {word} {say(when)}"
            rest = [a for a in rest if a is not when]
    tail = " " + upper_first(join(clauses(rest, schema, say))) + "." if rest else ""
    return f"How about {named}?{tail}"


def _option(action: Action, name: str, schema: ServiceSchema | None, say: Say) -> str:
    """One thing to change: "the time (7 pm)", a yes/no slot by its statement ("whether pets
    are allowed (yes)")."""
    if _is_bool(action):
        statement = lower_first(_bool_phrases(schema, action.slot).yes.rstrip("."))
        return f"whether {statement} ({say(action)})"
    return f"the {name} ({say(action)})"


def compose_system(
    kind: str, acts: Sequence[Action], schema: ServiceSchema | None, say: Say
) -> str:
    """One run of system acts of one kind, composed."""
    if kind == CHANGE:
        options = [
            _option(a, n, schema, say) for a, n in zip(acts, names(acts, schema), strict=True)
        ]
        return "What would you like to change: " + join(options).replace(" and ", " or ") + "?"
    if kind == PROPOSE:  # "How about Long Beach?"
        return f"How about {join([say(a) for a in acts])}?"
    if kind == "REQUEST":
        return _request(acts, schema, say)
    if kind in ("INFORM", "CONFIRM"):
        facts = clauses(acts, schema, say)
        if kind == "CONFIRM":
            return "Please confirm: " + join(facts) + "."
        return upper_first(join(facts)) + "."
    if kind == "OFFER":
        return _offer(acts, schema, say)
    if kind == "INFORM_COUNT":
        count = say(acts[0]) if acts and acts[0].values else ""
        if count == "0":
            return "Sorry, I found nothing that matches."
        return f"I found {count} option{'' if count == '1' else 's'} for you."
    can = [v for a in acts for v in a.values]
    if kind in CAN_DO and (can or kind != "REQ_MORE"):  # the policies' own: what it can do
        return CAN_DO[kind] + (f" I can help you {join(can)}." if can else "")
    if kind == "CLARIFY":  # which of the tasks the NLU could not tell apart
        return f"Do you want to {join(can, 'or')}?"
    if kind == "OFFER_INTENT":
        vals = acts[0].values or acts[0].canonical_values
        return f"Would you like to {_intent_phrase(schema, vals[0] if vals else '')}?"
    if kind == "NOTIFY_SUCCESS":
        return success(schema)
    fixed = {
        "NOTIFY_FAILURE": "Sorry, that did not work out.",
        "REQ_MORE": "Is there anything else I can help you with?",
        "GOODBYE": "Have a great day. Goodbye!",
        "CANCEL": "Okay, I have cancelled that.",
    }
    if kind in fixed:
        return fixed[kind]
    # An act this generator does not know yet: say its values plainly.
    plain = [_clause(a, schema, say) for a in acts if a.slot and a.values]
    return upper_first(join(plain)) + "." if plain else "Okay."


def compose_user(kind: str, acts: Sequence[Action], schema: ServiceSchema | None, say: Say) -> str:
    """One run of user acts of one kind, composed."""
    if kind == "INFORM_INTENT":
        vals = acts[0].values or acts[0].canonical_values
        return f"I'd like to {_intent_phrase(schema, vals[0] if vals else '')}."
    if kind == "INFORM":
        said = []
        for a in acts:
            if _is_bool(a):
                said.append(_clause(a, schema, say))
            elif (a.values or [""])[0] == "dontcare":
                said.append(f"any {noun_phrase(schema, a.slot)} is fine")
            else:
                said.append(f"the {noun_phrase(schema, a.slot)} should be {say(a)}")
        return upper_first(join(said)) + "."
    if kind == "REQUEST":
        return "Can you tell me the " + join([noun_phrase(schema, a.slot) for a in acts]) + "?"
    fixed = {
        "AFFIRM": "Yes, that works.",
        "NEGATE": "No, thanks.",
        "AFFIRM_INTENT": "Yes, please.",
        "NEGATE_INTENT": "No, not now.",
        "SELECT": "That one sounds good.",
        "REQUEST_ALTS": "Can you find something else?",
        "THANK_YOU": "Thank you.",
        "GOODBYE": "Goodbye.",
    }
    return fixed.get(kind, "Okay.")


# words a proper name may keep in lower case ("How to Train Your Dragon", "Pirates of the
# Caribbean", "Beauty and the Beast")
_NAME_SMALL = FUNCTION_WORDS | ARTICLES | {"and", "in", "a", "de", "la", "le", "y", "von"}
_OFFERED = re.compile(r"\b((?:How|What) about )([^?]+)\?")


def proper_name(value: str) -> bool:
    """Whether a value reads as a proper name: each word a capital or a digit first, the
    small words of a title aside ("Auntie Mame", "How to Train Your Dragon"; not "Pick up
    kids", an alarm's label)."""
    found = [w.strip("\"'(),.:;!?&-") for w in value.split()]
    found = [w for w in found if w and w.lower() not in _NAME_SMALL]
    return bool(found) and all(not w[0].isalpha() or w[0].isupper() for w in found)


def offered_noun(schema: ServiceSchema | None, slot: str, said: str) -> str:
    """What an entity offered as ``said`` is, when the value is not a proper name and the
    slot's description says it ("Name of the alarm": "alarm"); else ""."""
    if not names_entity(schema, slot) or not said.strip() or proper_name(said):
        return ""
    spec = schema.slot(slot) if schema else None
    words = description_phrase(spec).split() if spec else []
    if words[1:2] != ["of"] or said.split()[0].lower() in ARTICLES:
        return ""
    return " ".join(w for w in _of_what(words)[2:] if w.lower() not in ARTICLES)


def unnamed_offer(acts: Sequence[Action], schema: ServiceSchema | None, say: Say) -> bool:
    """Whether ``acts`` offer an entity whose value is not a proper name (``offered_noun``):
    composed as one question ("How about the alarm Pick up kids at 4:30 pm?")."""
    return any(
        a.act == "OFFER"
        and len(a.values or a.canonical_values) == 1
        and offered_noun(schema, a.slot, say(a))
        for a in acts
    )


def named_offers(
    text: str, acts: Sequence[Action], schema: ServiceSchema | None, say: Callable[[str, str], str]
) -> str:
    """An offer of an entity whose value is not a proper name names what it is: "How about
    the alarm Pick up kids?" (was "What about Pick up kids?", as if a place), the noun from
    the slot's description ("Name of the alarm")."""
    if schema is None or "about" not in text:
        return text
    nouns: dict[str, str] = {}
    for action in acts:
        values = action.values or action.canonical_values
        if action.act != "OFFER" or len(values) != 1:
            continue
        said = say(action.slot, values[0])
        if noun := offered_noun(schema, action.slot, said):
            nouns[said] = noun

    def named(match: re.Match[str]) -> str:
        noun = nouns.get(match[2].strip())
        return f"{match[1]}the {noun} {match[2]}?" if noun else match[0]

    return _OFFERED.sub(named, text) if nouns else text
