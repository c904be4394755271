"""What a transaction did, said with its values: the policy's ``NOTIFY_SUCCESS(slot=value)``
acts (one per input the call's result holds; SGD's ``NOTIFY_SUCCESS`` has no slot, M2M's
has) said in one sentence from the intent's description and the slots' kinds ("I have
reserved the table at Little Kitchen in San Jose for 4 people on Friday, March 8th at 7
pm."), the values that fit no phrase said as facts after it (docs/nlg.md, "What was done").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tod_runtime.dialogue.models import DONTCARE, Action
from tod_runtime.nlg.compose import clauses, join, names_entity, short_noun_phrase, upper_first
from tod_runtime.nlg.success import SUCCESS, what_was_done
from tod_runtime.schema.models import IntentSchema, ServiceSchema
from tod_runtime.values.normalise import slot_kind

SayValue = Callable[[str, str], str]  # (slot, value) -> the value as said
SINGULAR = {"people": "person", "children": "child"}
PLACE_HEADS = frozenset({"city", "town", "location"})  # said "in {value}" ("at" an address)
PREPOSITIONS = frozenset({"at", "in", "on", "with", "to", "from", "for"})


def _value(action: Action) -> str:
    values = action.values or action.canonical_values
    return values[0] if values else ""


def split_booked(actions: Sequence[Action]) -> tuple[list[Action], list[Action]]:
    """The acts saying what a transaction did (``NOTIFY_SUCCESS`` with a slot and a value),
    and the others (a bare ``NOTIFY_SUCCESS`` among them)."""
    booked = [
        a
        for a in actions
        if a.act == "NOTIFY_SUCCESS" and a.slot and _value(a).lower() not in ("", DONTCARE)
    ]
    return booked, [a for a in actions if not any(a is b for b in booked)]


def _intent(schema: ServiceSchema | None, slots: set[str]) -> IntentSchema | None:
    """The transactional intent whose inputs hold most of the booked slots."""
    intents = [i for i in schema.intents if i.is_transactional] if schema else []
    if not intents:
        return None

    def inputs(intent: IntentSchema) -> set[str]:
        return {*intent.required_slots, *intent.optional_slots}

    return max(intents, key=lambda i: (len(inputs(i) & slots), -len(inputs(i))))


def _found(schema: ServiceSchema | None, slot: str) -> bool:
    """Whether ``slot`` names an entity a search of the service finds (returns but does not
    take): the restaurant's or the movie's name, not a transfer's recipient."""
    return schema is not None and any(
        not i.is_transactional
        and slot in i.result_slots
        and slot not in {*i.required_slots, *i.optional_slots}
        for i in schema.intents
    )


def _entity(thing: list[str], name: str, noun: str) -> list[str]:
    """The intent's object with the entity (a ``noun``) named: "the table at the restaurant"
    -> "the table at Little Kitchen"; "the movie" -> "Good Boys"; "the movie tickets" -> "the
    movie tickets for Good Boys"."""
    if len(thing) == 2 and thing[0] == "the" and thing[1].lower() == noun:
        return [name]
    if len(thing) >= 4 and thing[-2] == "the" and thing[-3] in PREPOSITIONS:
        return [*thing[:-2], name]
    return [*thing, "for", name]


def _place(schema: ServiceSchema | None, slot: str) -> bool:
    head = short_noun_phrase(schema, slot).split()
    return bool(head) and head[-1] in PLACE_HEADS


def _count(schema: ServiceSchema | None, slot: str, value: str) -> str | None:
    """ "for 4 people" for a count of the booking ("Number of people ..."), else None."""
    phrase = short_noun_phrase(schema, slot)
    if not phrase.startswith("number of ") or not value.isdigit():
        return None
    things = phrase.removeprefix("number of ").split()
    if not things or any(w in ("the", "a", "an") for w in things):
        return None
    noun = " ".join(things)
    if value == "1":
        noun = SINGULAR.get(noun, noun[:-1] if noun.endswith("s") else noun)
    return f"for {value} {noun}"


def booked_sentence(schema: ServiceSchema | None, booked: Sequence[Action], say: SayValue) -> str:
    """One sentence of what was done with its values, then the values no phrase says."""
    intent = _intent(schema, {a.slot for a in booked})
    done = what_was_done(intent) if intent is not None else None
    if not done:
        return f"{SUCCESS} {upper_first(join(clauses(booked, schema, _say_of(say))))}."
    thing, phrases, rest = _phrases(schema, booked, say, list(done[1]))
    first = " ".join(["I have", done[0], *thing, *phrases]) + "."
    if not rest:
        return first
    return f"{first} {upper_first(join(clauses(rest, schema, _say_of(say))))}."


def _say_of(say: SayValue) -> Callable[[Action], str]:
    return lambda a: say(a.slot, _value(a))


def _phrases(
    schema: ServiceSchema | None, booked: Sequence[Action], say: SayValue, thing: list[str]
) -> tuple[list[str], list[str], list[Action]]:
    """The intent's object with the entity named, the phrases of the place, the count and
    the time ("in San Jose", "for 4 people", "on Friday", "at 7 pm"), and the acts no phrase
    takes (one place, count, date and time each; two are said as facts)."""
    kinds = {a.slot: slot_kind(schema, a.slot) if schema else "text" for a in booked}
    dates = [a for a in booked if kinds[a.slot] == "date"]
    times = [a for a in booked if kinds[a.slot] == "time"]
    places = [a for a in booked if kinds[a.slot] == "text" and _place(schema, a.slot)]
    rest: list[Action] = []
    place, size, when = "", "", list[str]()
    named = False
    for a in booked:
        said = say(a.slot, _value(a))
        if not named and names_entity(schema, a.slot) and _found(schema, a.slot):
            noun = short_noun_phrase(schema, a.slot).split()[-1].lower()  # "name of the movie"
            thing, named = _entity(thing, said, noun), True
        elif len(places) == 1 and a is places[0]:  # two (from, to) are said as facts
            place = f"{'at' if said[:1].isdigit() else 'in'} {said}"
        elif not size and (counted := _count(schema, a.slot, _value(a))):
            size = counted
        elif len(dates) == 1 and a is dates[0]:
            when.insert(0, f"on {said}")
        elif len(times) == 1 and a is times[0]:
            when.append(f"at {said}")
        else:
            rest.append(a)
    return thing, [p for p in (place, size, *when) if p], rest
