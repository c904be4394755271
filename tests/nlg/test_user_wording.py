"""The user's side of the mined wording (``nlg.user``): dates, booleans, bare values and
"dontcare" said as SGD's users say them."""

from __future__ import annotations

import random

from tod_runtime.backends.mock import MockBackend
from tod_runtime.config import embedded_services_dir
from tod_runtime.dialogue.models import act
from tod_runtime.nlg.store import TemplateSet
from tod_runtime.nlg.user import bare, realise_user, say_user_date, the_date, user_realiser


def _schemas():  # type: ignore[no-untyped-def]
    return MockBackend(embedded_services_dir()).schemas()


def test_dates_are_said_without_the_weekday_in_any_month() -> None:
    assert say_user_date("2019-03-08") == "March 8th"
    assert say_user_date("2026-12-03") == "December 3rd"
    assert say_user_date("2026-11-22") == "November 22nd"
    assert say_user_date("today") == "today"
    assert the_date("for the December 3rd please") == "for the 3rd of December please"
    assert the_date("on December 3rd") == "on December 3rd"


def test_a_bare_template_is_only_its_values() -> None:
    assert bare("{city}.") and bare("{date}, {time}")
    assert not bare("In {city}.") and not bare("I want to go to {city}.")


def test_a_date_from_the_mined_templates_never_carries_a_weekday() -> None:
    schema = _schemas()["Restaurants"]
    for seed in range(30):
        acts = [act("INFORM", "date", ["2026-12-03"]), act("INFORM", "number_of_seats", ["4"])]
        text = realise_user(acts, schema, random.Random(seed))
        assert "December 3rd" in text or "3rd of December" in text, text
        assert "Thursday" not in text and "the December" not in text


def test_a_generic_template_never_stands_for_a_boolean() -> None:
    # The generic table has "That's fine." for INFORM(bool=True): it names no slot.
    generic = {"INFORM(bool=True)": [("That's fine.", 5)], "INFORM(city)": [("In {city}.", 3)]}
    realiser = user_realiser(TemplateSet(generic=generic))
    schema = _schemas()["Restaurants"]
    text = realiser.realise("Restaurants", schema, [act("INFORM", "has_live_music", ["True"])])
    assert text != "That's fine." and "live music" in text
    assert realiser.realise("Restaurants", schema, [act("INFORM", "city", ["Oslo"])]) == "In Oslo."


def test_a_bare_value_is_said_alone_only() -> None:
    generic = {"INFORM(city)": [("{city}.", 9)], "INFORM(type_of_food)": [("{type_of_food}.", 9)]}
    realiser = user_realiser(TemplateSet(generic=generic))
    schema = _schemas()["Restaurants"]
    assert realiser.realise("Restaurants", schema, [act("INFORM", "city", ["Oslo"])]) == "Oslo."
    both = [act("INFORM", "city", ["Oslo"]), act("INFORM", "cuisine", ["Thai"])]
    text = realiser.realise("Restaurants", schema, both)
    assert text not in ("Oslo. Thai.", "Thai. Oslo.") and "Oslo" in text and "Thai" in text


def test_dontcare_is_said_naming_the_slot_and_never_put_in_a_value_slot() -> None:
    generic = {"INFORM(city)": [("I want to eat in {city}.", 9)]}
    realiser = user_realiser(TemplateSet(generic=generic))
    schema = _schemas()["Restaurants"]
    said = set()
    for seed in range(12):
        acts = [act("INFORM", "city", ["dontcare"])]
        said.add(realiser.realise("Restaurants", schema, acts, seed=seed))
    assert said == {
        "Any city is fine.",
        "I don't care about the city.",
        "I have no preference for the city.",
    }
    acts = [act("INFORM", "cuisine", ["dontcare"]), act("INFORM", "city", ["Oslo"])]
    text = realiser.realise("Restaurants", schema, acts, seed=0)
    assert text == "I want to eat in Oslo. I have no preference for the cuisine."
    flag = [act("INFORM", "has_live_music", ["dontcare"])]
    text = realiser.realise("Restaurants", schema, flag)
    assert text == "I don't mind whether the restaurant has live music."


def test_whether_or_not_reads_as_whether() -> None:
    from tod_runtime.nlg.user import statements

    said = statements("Whether or not smoking is allowed inside the place")
    assert said.question == "Is smoking allowed inside the place?"
    assert said.no == "Smoking is not allowed inside the place."


def test_a_slot_whose_neighbour_match_is_a_tie_is_not_borrowed() -> None:
    # "Date of check in" matches a neighbour's check-in and check-out dates alike ("in" and
    # "out" are function words): the system's realiser maps it to one of them, the user's
    # to neither, so a user never says "check out" for a check-in date.
    from tod_runtime.nlg.neighbours import Profile
    from tod_runtime.nlg.realise import Realiser

    theirs = Profile(
        "A service to book hotels",
        {
            "check_in_date": ("date", "Start date for the hotel reservation"),
            "check_out_date": ("date", "End date for the hotel reservation"),
            "hotel_name": ("text", "Name of the hotel"),
        },
        {"ReserveHotel": "Reserve rooms at a hotel"},
    )
    table = {"INFORM(check_out_date)": [("I check out on {check_out_date}.", 9)]}
    templates = TemplateSet(services={"Hotels_X": table}, profiles={"Hotels_X": theirs})
    schema = _schemas()["Hotels"]
    system_side = Realiser(templates, lambda *a: "")
    assert system_side.neighbours("Hotels", schema)[0].slots.get("check_in_date")
    user = user_realiser(templates)
    assert "check_in_date" not in user.neighbours("Hotels", schema)[0].slots
    text = user.realise("Hotels", schema, [act("INFORM", "check_in_date", ["2026-12-04"])])
    assert "check out" not in text and "December 4th" in text


def test_a_generic_question_must_name_the_slot_it_asks_about() -> None:
    # A label is coarse: the generic question of a count ("number") was mined from one
    # slot of one service, and asks about that slot, whatever the label stands for.
    generic = {
        "REQUEST(number)": [("How many stops are there?", 9)],
        "REQUEST(address)": [("What is the address?", 9)],
    }
    realiser = user_realiser(TemplateSet(generic=generic))
    schema = _schemas()["Restaurants"]
    seats = realiser.realise("Restaurants", schema, [act("REQUEST", "number_of_seats")])
    assert "stops" not in seats and "people" in seats  # its description: "Number of people ..."
    address = realiser.realise("Restaurants", schema, [act("REQUEST", "street_address")])
    assert address == "What is the address?"


def test_the_schemas_user_is_the_one_speaking() -> None:
    from tod_runtime.nlg.user import first_person

    assert first_person("I'd like to get the alarms user has already set.") == (
        "I'd like to get the alarms I have already set."
    )
    assert first_person("The user's account type should be savings.") == (
        "My account type should be savings."
    )
    for someone_else in ("Transfer money to another user.", "What is the average user rating?"):
        assert first_person(someone_else) == someone_else


def test_there_points_back_only_once_a_place_was_said() -> None:
    from tod_runtime.nlg.user import points_back

    assert points_back("Can you find me a hotel there?")
    assert not points_back("Is there anything else?") and not points_back("Are there others?")
    generic = {"INFORM(city)": [("Find me one there in {city}.", 9), ("In {city}.", 1)]}
    realiser = user_realiser(TemplateSet(generic=generic))
    schema = _schemas()["Restaurants"]
    said = [act("INFORM", "city", ["Oslo"])]
    assert realise_user(said, schema, random.Random(0), realiser) == "Find me one there in Oslo."
    first = realise_user(said, schema, random.Random(0), realiser, place_said=False)
    assert "there" not in first and "Oslo" in first
