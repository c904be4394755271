"""What a transaction did, said from the service's schema: ``NOTIFY_SUCCESS`` composed from
the one transactional intent's description ("Reserve a table at a restaurant" -> "I have
reserved the table at the restaurant."; docs/nlg.md)."""

from __future__ import annotations

import re

from tod_runtime.schema.models import IntentSchema, ServiceSchema
from tod_runtime.schema.roles import FUNCTION_WORDS

ARTICLES = frozenset({"the", "a", "an"})


def lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[1:2].islower() or len(text) == 1 else text


# English verbs whose past participle is not the regular -ed (and two that double a letter)
PARTICIPLES = {
    "set": "set", "put": "put", "buy": "bought", "make": "made", "send": "sent", "pay": "paid",
    "get": "got", "find": "found", "transfer": "transferred", "cancel": "cancelled",
}  # fmt: skip
_OBJECT_ENDS = FUNCTION_WORDS - {"at"} | {"and", "based"}
_CHOSEN = frozenset({"selected", "given", "specified", "particular", "specific", "chosen"})
SUCCESS = "Your request was successful."


def participle(verb: str) -> str:
    """A verb's past participle: booked, reserved, bought, carried."""
    if verb in PARTICIPLES:
        return PARTICIPLES[verb]
    if verb.endswith("e"):
        return verb + "d"
    if verb.endswith("y") and verb[-2:-1] not in ("a", "e", "i", "o", "u"):
        return verb[:-1] + "ied"
    return verb + "ed"


def success(schema: ServiceSchema | None) -> str:
    """What a booking did, said from the service's one transactional intent's description
    ("Reserve a table at a restaurant" -> "I have reserved the table at the restaurant.";
    "Buy tickets for a bus journey" -> "I have bought the tickets."); ``SUCCESS`` when the
    service has no such intent or several."""
    intents = [i for i in schema.intents if i.is_transactional] if schema else []
    done = what_was_done(intents[0]) if len(intents) == 1 else None
    return f"I have {done[0]} {' '.join(done[1])}." if done else SUCCESS


def what_was_done(intent: IntentSchema) -> tuple[str, list[str]] | None:
    """A transactional intent's description as what was done and to what ("Reserve a table
    at a restaurant": ``("reserved", ["the", "table", "at", "the", "restaurant"])``), else
    None."""
    words = re.findall(r"[A-Za-z'-]+|,", intent.description)
    if len(words) < 2:
        return None
    verb, thing = words[0].lower(), []
    for word in words[1:]:
        lowered = word.lower()
        if word == "," or lowered in _OBJECT_ENDS:
            break
        if lowered not in _CHOSEN:
            thing.append("the" if lowered in ("a", "an") else lower_first(word))
    if not thing:
        return None
    if thing[0] not in ARTICLES and not thing[0].endswith("'s"):
        thing.insert(0, "the")
    return ("started playing" if verb == "play" else participle(verb)), thing
