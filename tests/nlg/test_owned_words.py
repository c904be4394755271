"""Owned words (issue 39): a word people say for a few services only and that is not general
English ("forecast") is said for another service only when one of those services owns it or
lends it its templates; the generic "Forecast for {date}." was said for an event."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from tod_runtime.dialogue.models import act
from tod_runtime.nlg.compose import compose_system
from tod_runtime.nlg.neighbours import Profile, owned_words, word_uses
from tod_runtime.nlg.realise import Realiser
from tod_runtime.nlg.store import TemplateSet, read_side, write_side
from tod_runtime.schema.models import ServiceSchema


def _uses() -> dict[str, Counter[str]]:
    """Twelve services: each says "you"; "forecast" is the weather service's alone, "fly"
    the two flight services', "enjoy" (general English) many services' and "umbrella" too
    rare to judge; "movie" is a service word already."""
    uses = {f"Other_{i}": word_uses({"Do you want it?": 20}) for i in range(8)}
    uses["Weather_9"] = word_uses({"Forecast for {date}.": 30, "Do you want it?": 5})
    uses["Weather_9"].update(word_uses({"Take an umbrella.": 3}))
    uses["Flights_8"] = word_uses({"You fly at {time}.": 12})
    uses["Flights_9"] = word_uses({"You fly at {time}.": 10, "A movie on board.": 12})
    uses["Events_9"] = word_uses({"Enjoy the show.": 40})
    for i in range(3):
        uses[f"Other_{i}"].update(word_uses({"Enjoy!": 1}))
    uses["Other_7"].update(word_uses({"Forecast: fine.": 1}))
    return uses


def test_owned_words_are_a_few_services_words_not_general_ones() -> None:
    found = owned_words(_uses(), known=frozenset({"movie"}))
    assert found["forecast"] == {"Weather_9"}  # 30 of 31 uses: Other_7's one is noise
    assert found["fly"] == {"Flights_8", "Flights_9"}
    assert not {"you", "enjoy", "umbrella", "movie"} & set(found)


def test_word_uses_count_each_template_as_often_as_it_was_written() -> None:
    assert word_uses({"Forecast for {date}.": 3, "The forecast is {date}.": 2})["forecast"] == 5


WEATHER = Profile(
    "Check the weather for any place and any date",
    {"date": ("date", "Date for the weather"), "city": ("text", "Name of the city")},
    {"GetWeather": "Get the weather of a place"},
)


def _schema(name: str, description: str, slots: dict[str, str]) -> ServiceSchema:
    return ServiceSchema.model_validate(
        {
            "service_name": name,
            "description": description,
            "slots": [
                {"name": s, "description": d, "is_categorical": False, "possible_values": []}
                for s, d in slots.items()
            ],
            "intents": [],
        }
    )


EVENTS = {
    "event_name": "Name of the event",
    "date": "Date of the event",
    "venue": "Venue of the event",
    "category": "Category of the event",
    "price": "Price per ticket",
}


def _realiser() -> Realiser:
    generic = {"INFORM(date)": [("Forecast for {date}.", 9), ("The date is {date}.", 1)]}
    owned = {"forecast": frozenset({"Weather_9"})}
    own = {"INFORM(date)": [("Forecast for {date}.", 9)]}
    templates = TemplateSet(
        services={"Weather_9": own},
        generic=generic,
        profiles={"Weather_9": WEATHER},
        owned_words=owned,
    )
    return Realiser(templates, compose_system, choices=1)


def test_an_owned_word_is_said_for_its_owners_and_their_borrowers_only() -> None:
    realiser = _realiser()
    events = _schema("Events_9", "Find cultural events", EVENTS)
    weather = _schema(
        "Weather_10",
        "Check the weather for any place and any date",
        {"date": "Date for the weather", "city": "Name of the city"},
    )
    forecast = "Forecast for {date}."
    assert not realiser.neighbours("Events_9", events)  # borrows from no weather service
    assert not realiser.fits("Events_9", events)(forecast)  # an event has no forecast
    assert realiser.fits("Weather_9", None)(forecast)  # its owner
    assert realiser.fits("Weather_10", weather)(forecast)  # borrows from its owner
    assert realiser.fits("Events_9", events)("The date is {date}.")


def test_a_generic_template_with_another_services_word_is_passed_over() -> None:
    """The defect: "It starts at 6 pm. Forecast for Thursday, March 14th." for an event."""
    realiser = _realiser()
    events = _schema("Events_9", "Find cultural events", EVENTS)
    text = realiser.realise("Events_9", events, [act("INFORM", "date", ["2019-03-14"])])
    assert text == "The date is Thursday, March 14th."


def test_owned_words_are_written_and_read_with_the_generic_table(tmp_path: Path) -> None:
    templates = TemplateSet(
        generic={"INFORM(date)": [("Forecast for {date}.", 2)]},
        service_words=frozenset({"movie"}),
        owned_words={"forecast": frozenset({"Weather_9"}), "fly": frozenset({"A_1", "B_1"})},
    )
    write_side(tmp_path, "system", templates)
    back = read_side(tmp_path, "system")
    assert back.owned_words == templates.owned_words
    assert back.service_words == {"movie"}


def test_sgd_events_say_no_forecast(sgd_zip: Path) -> None:
    """The shipped templates: an event's date is not said with the weather's words."""
    from tod_runtime.data.sgd import open_split
    from tod_runtime.nlg.template import TemplateGenerator
    from tod_runtime.plugins import ComponentContext

    schemas = open_split(sgd_zip, "train").schemas()
    nlg = TemplateGenerator(ComponentContext(schemas=schemas, backend=None))
    acts = [act("INFORM", "time", ["18:00"]), act("INFORM", "date", ["2019-03-14"])]
    text = nlg.realise("Events_2", acts)
    assert "March 14th" in text and "forecast" not in text.lower()
    assert "forecast" in nlg.realise("Weather_1", acts[1:]).lower()
