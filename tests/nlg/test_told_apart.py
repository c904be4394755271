"""Composed wording that says which slot it means (issue 39: the 100 dev-only replies read)."""

from __future__ import annotations

from stage_helpers import a

from tod_runtime.dialogue.models import Action
from tod_runtime.nlg.compose import compose_system
from tod_runtime.nlg.signature import cased
from tod_runtime.schema.models import ServiceSchema

SLOT = {"is_categorical": False, "possible_values": []}
SCHEMA = ServiceSchema.model_validate(
    {
        "service_name": "Trips_9",
        "description": "Trips",
        "slots": [
            {**SLOT, "name": "from_city", "description": "City in which the trip starts"},
            {**SLOT, "name": "to_city", "description": "City in which the trip ends"},
            {**SLOT, "name": "wait", "description": "Number of days for the ticket to arrive"},
            {**SLOT, "name": "guide", "description": "Guide to book (or None for no guide)"},
            {**SLOT, "name": "hotel", "description": "Hotel where the trip ends"},
        ],
        "intents": [],
    }
)


def say(act: Action) -> str:
    return act.values[0]


def test_a_slot_named_like_another_of_its_service_says_its_description() -> None:
    """Asked alone, "What city would you like?" does not say which city."""
    assert compose_system("REQUEST", [a("REQUEST", "from_city")], SCHEMA, say) == (
        "What is the city in which the trip starts?"
    )
    assert compose_system("INFORM", [a("INFORM", "to_city", "Oslo")], SCHEMA, say) == (
        "The city in which the trip ends is Oslo."
    )
    assert compose_system("REQUEST", [a("REQUEST", "hotel")], SCHEMA, say) == (
        "What hotel would you like?"
    )


def test_a_count_of_a_unit_says_what_takes_them() -> None:
    assert compose_system("INFORM", [a("INFORM", "wait", "3")], SCHEMA, say) == (
        "The number of days for the ticket to arrive is 3."
    )


def test_a_value_the_description_explains_is_said_with_what_it_means() -> None:
    """The value itself is said too (a reply says its acts' values: the slot error rate)."""
    assert compose_system("INFORM", [a("INFORM", "guide", "None")], SCHEMA, say) == (
        "The guide is None (no guide)."
    )
    assert compose_system("INFORM", [a("INFORM", "guide", "Ann")], SCHEMA, say) == (
        "The guide is Ann."
    )


def test_a_questions_preposition_is_said_once() -> None:
    assert cased("In what city should I look in?") == "In what city should I look?"
    assert cased("What are you looking for?") == "What are you looking for?"
