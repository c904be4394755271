"""The schema-generic wording of user acts."""

from __future__ import annotations

import random

from tod_runtime.backends.mock import MockBackend
from tod_runtime.config import embedded_services_dir
from tod_runtime.dialogue.models import act
from tod_runtime.simulate.realise import MinedRealiser, SchemaRealiser, short_description, spoken


def test_values_are_said_as_people_say_them() -> None:
    assert spoken("2019-03-08", "date") == "March 8th"
    assert spoken("2019-03-01", "date") == "March 1st"
    assert spoken("18:30", "time") == "6:30 pm"
    assert spoken("12:00", "time") == "12 pm"
    assert spoken("Austin", "text") == "Austin"


def test_descriptions_are_cut_at_their_first_relative_word() -> None:
    assert short_description("City where the restaurant is located") == "city"
    assert short_description("Date of check in") == "date of check in"
    assert short_description("City in which the journey originates") == "city"


def test_acts_are_worded_from_the_schema() -> None:
    schema = MockBackend(embedded_services_dir()).schemas()["Restaurants"]
    realiser, rng = SchemaRealiser(), random.Random(0)
    text = realiser.realise(
        [act("INFORM_INTENT", "intent", ["FindRestaurants"]), act("INFORM", "cuisine", ["Thai"])],
        schema,
        rng,
    )
    assert (
        "find a restaurant to eat at" in text and "The cuisine of the restaurant is Thai." in text
    )
    assert realiser.realise([act("INFORM", "time", ["18:30"])], schema, rng).startswith(
        ("6:30 pm", "The time of the reservation is 6:30 pm")
    )
    asked = realiser.realise([act("REQUEST", "serves_alcohol")], schema, rng)
    assert asked == "Does the restaurant serve alcohol?"


def test_schema_wording_says_booleans_and_dontcare_as_people_do() -> None:
    schema = MockBackend(embedded_services_dir()).schemas()["Restaurants"]
    realiser = SchemaRealiser()
    for seed in range(6):
        rng = random.Random(seed)
        no = realiser.realise([act("INFORM", "serves_alcohol", ["False"])], schema, rng)
        yes = realiser.realise([act("INFORM", "has_live_music", ["True"])], schema, rng)
        assert "should be true" not in no + yes and "_" not in no + yes
        assert no.endswith("the restaurant does not serve alcohol.") or no.startswith(
            "The restaurant does not serve alcohol."
        )
        assert "restaurant has live music." in yes
        care = realiser.realise([act("INFORM", "has_live_music", ["dontcare"])], schema, rng)
        assert care == "I don't mind whether the restaurant has live music."


def test_mined_wording_says_every_value_of_the_acts() -> None:
    schema = MockBackend(embedded_services_dir()).schemas()["Restaurants"]
    acts = [act("INFORM", "cuisine", ["Thai"]), act("INFORM", "city", ["Austin"])]
    text = MinedRealiser().realise(acts, schema, random.Random(0))
    assert "Thai" in text and "Austin" in text


def test_a_user_saying_the_same_again_says_it_otherwise() -> None:
    """Asked again (not understood), the user rephrases: never a template it said for the
    same acts in the turns before; a new dialogue starts afresh."""
    schema = MockBackend(embedded_services_dir()).schemas()["Restaurants"]
    acts = [act("REQUEST", "phone_number")]
    realiser = MinedRealiser()
    said = [realiser.realise(acts, schema, random.Random(i)) for i in range(3)]
    assert len(set(said)) == 3, said
    realiser.new_dialogue()
    assert realiser.realise(acts, schema, random.Random(0)) == said[0]
