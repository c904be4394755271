"""Replies that read right (issue 39, the 100 dev-only replies read): templates with defects
of form passed over or mended, pieces that do not say a slot they leave to others, names
described as numbers, offers of what is not a proper name, an explained value's slot."""

from __future__ import annotations

import json
from pathlib import Path

from tod_runtime.dialogue.models import act
from tod_runtime.nlg.compose import compose_system, named_offers, proper_name, short_noun_phrase
from tod_runtime.nlg.form import form_defects, is_question, repaired
from tod_runtime.nlg.neighbours import Profile, align, counted_kind
from tod_runtime.nlg.template import TemplateGenerator
from tod_runtime.plugins import ComponentContext
from tod_runtime.schema.models import ServiceSchema


def _schema(name: str, slots: list[dict[str, object]]) -> ServiceSchema:
    return ServiceSchema.model_validate(
        {
            "service_name": name,
            "description": "Book things",
            "slots": [{"is_categorical": False, "possible_values": [], **s} for s in slots],
            "intents": [
                {"name": "BookThing", "description": "Book a thing", "is_transactional": True,
                 "required_slots": [], "optional_slots": {}, "result_slots": []}
            ],
        }
    )  # fmt: skip


THINGS = _schema(
    "Things_9",
    [
        {"name": "thing_name", "description": "Name of the thing"},
        {"name": "date", "description": "Date of the booking"},
        {"name": "number_of_rooms", "description": "Number of rooms to reserve"},
        {"name": "destination_airport_name", "description": "Number of the airport flying to"},
        {"name": "origin_airport_name", "description": "Number of the airport flying out from"},
        {"name": "alarm_name", "description": "Name of the alarm"},
        {"name": "subtitle_language",
         "description": "Language to use for subtitles (or None for no subtitles)",
         "is_categorical": True, "possible_values": ["None", "English"]},
    ],
)  # fmt: skip


def _generator(tmp_path: Path, templates: dict[str, list[list[object]]]) -> TemplateGenerator:
    (tmp_path / "system").mkdir(exist_ok=True)
    data = {"service": "Things_9", "side": "system", "templates": templates}
    (tmp_path / "system" / "Things_9.json").write_text(json.dumps(data))
    options = {"templates": str(tmp_path)}
    return TemplateGenerator(
        ComponentContext(schemas={"Things_9": THINGS}, backend=None, options=options)
    )


def test_a_question_ended_with_a_stop_is_a_defect() -> None:
    assert is_question("So, do you wish to rebook the appointment with {name}")
    assert is_question("How about {name} at {venue}")
    assert is_question("What should I name it")
    assert not is_question("Sorry, that I couldn't book it")
    assert not is_question("Have a great day")
    assert not is_question("Would")
    assert form_defects("Sorry, I couldn't. So, do you wish to rebook {name} at {time}.") == [
        "question_stop"
    ]
    assert form_defects("How about {name} at {venue}?") == []
    assert form_defects("When are you leaving") == ["question_stop"]  # said with a stop
    assert repaired("What should I name it. And for what time?") == (
        "What should I name it? And for what time?"
    )


def test_a_req_more_template_must_ask() -> None:
    assert form_defects("I couldn't find anything else.", "NOTIFY_FAILURE REQ_MORE") == ["unasked"]
    assert form_defects("Sorry. Anything else?", "NOTIFY_FAILURE REQ_MORE") == []
    assert form_defects("I couldn't find anything else.", "NOTIFY_FAILURE") == []


def test_an_article_before_a_verb_or_a_stop_is_a_defect() -> None:
    typo = "Please tell me the are where you'd like to stay."
    assert form_defects(typo) == ["stray_article"]
    assert form_defects("The {artist} is playing the song.") == []
    assert form_defects("Is it an option?") == []


def test_a_count_and_a_name_in_one_phrase_is_a_defect() -> None:
    assert form_defects("I found {count} movie called {movie_name}.") == ["count_one"]
    assert form_defects("I found {count} showtime at {time} in {name}.") == ["count_one"]
    assert form_defects("I found {count} restaurants in {city}.") == []
    assert form_defects("I found {count} movies. How about {movie_name}?") == []


def test_either_without_or_presumes_an_earlier_failure() -> None:
    """ "Sorry, I couldn't book that either." said for a first failure (stop 50's reading)."""
    assert form_defects("Sorry, I couldn't book that either. How about {name}?") == ["presumes"]
    assert form_defects("Would you like {a} or {b}? Either is fine.") == []


def test_the_person_spoken_to_is_not_named_as_an_owner() -> None:
    """ "The user's account type": "What account type would you like?", not "What user's
    account type would you like?"."""
    bank = _schema(
        "Bank_9",
        [{"name": "account_type", "description": "The user's account type",
          "is_categorical": True, "possible_values": ["checking", "savings"]}],
    )  # fmt: skip
    assert short_noun_phrase(bank, "account_type") == "account type"
    asked = compose_system("REQUEST", [act("REQUEST", "account_type")], bank, lambda a: "")
    assert "user" not in asked


def test_a_slot_named_by_what_it_is_of_drops_a_trailing_article() -> None:
    """ "Name of the artist the song is performed by": "the name of the artist is ...",
    not "the name of the artist the is ..."."""
    spec = {"name": "artist", "description": "Name of the artist the song is performed by"}
    music = ServiceSchema.model_validate(
        {
            "service_name": "Music",
            "description": "Music",
            "slots": [spec | {"is_categorical": False, "possible_values": []}],
            "intents": [],
        }
    )
    assert short_noun_phrase(music, "artist") == "name of the artist"


def test_a_clean_template_goes_before_one_with_a_defect_of_form(tmp_path: Path) -> None:
    nlg = _generator(
        tmp_path,
        {
            "OFFER(thing_name)": [["So, do you want {thing_name}.", 9], ["Shall I get {thing_name}?", 1]],
            "OFFER(date)": [["So, do you want it on {date}.", 9]],
            "NOTIFY_FAILURE REQ_MORE": [["I couldn't find anything else.", 9]],
        },
    )  # fmt: skip
    assert nlg.realise("Things_9", [act("OFFER", "thing_name", ["Lamp"])]) == "Shall I get Lamp?"
    # no clean one: the question mended, not dropped
    offer = nlg.realise("Things_9", [act("OFFER", "date", ["2019-03-08"])])
    assert offer == "So, do you want it on Friday, March 8th?"
    # a REQ_MORE that asks nothing: composed, the failure and the question both said
    failed = nlg.realise("Things_9", [act("NOTIFY_FAILURE"), act("REQ_MORE")])
    assert failed == "Sorry, that did not work out. Is there anything else I can help you with?"


def test_a_piece_does_not_say_a_slot_it_leaves_to_others(tmp_path: Path) -> None:
    nlg = _generator(
        tmp_path,
        {
            "CONFIRM(date) CONFIRM(thing_name)": [
                ["Please confirm: room at {thing_name} on {date}.", 5],
                ["Please confirm your booking of {thing_name} on {date}.", 1],
            ],
        },
    )
    acts = [
        act("CONFIRM", "thing_name", ["Ritz"]),
        act("CONFIRM", "date", ["2019-03-08"]),
        act("CONFIRM", "number_of_rooms", ["1"]),
    ]
    text = nlg.realise("Things_9", acts)
    assert text.startswith("Please confirm your booking of Ritz on Friday, March 8th.")
    assert "1" in text  # the rooms said after it


def test_a_name_described_as_a_number_is_said_as_what_it_names() -> None:
    said = lambda a: a.values[0]  # noqa: E731
    to = [act("INFORM", "destination_airport_name", ["LAX"])]
    assert compose_system("INFORM", to, THINGS, said) == "The airport you are flying to is LAX."
    asked = compose_system("REQUEST", [act("REQUEST", "origin_airport_name")], THINGS, said)
    assert asked == "What is the airport you are flying out from?"
    rooms = compose_system("INFORM", [act("INFORM", "number_of_rooms", ["2"])], THINGS, said)
    assert rooms == "The number of rooms is 2."  # a count stays a count


def test_an_offer_of_what_is_not_a_proper_name_names_what_it_is() -> None:
    assert proper_name("How to Train Your Dragon: The Hidden World")
    assert proper_name("Auntie Mame")
    assert not proper_name("Pick up kids")
    say = lambda slot, value: value  # noqa: E731
    alarm = [act("OFFER", "alarm_name", ["Pick up kids"])]
    text = "What about Pick up kids? It starts at 4:30 pm."
    assert named_offers(text, alarm, THINGS, say) == (
        "What about the alarm Pick up kids? It starts at 4:30 pm."
    )
    lamp = [act("OFFER", "thing_name", ["Lamp"])]
    assert named_offers("How about Lamp?", lamp, THINGS, say) == "How about Lamp?"
    assert proper_name("2g Japanese Brasserie")
    # composed, what it is and when in one question
    said = lambda a: a.values[0]  # noqa: E731
    offer = [act("OFFER", "date", ["March 8th"]), act("OFFER", "alarm_name", ["Pick up kids"])]
    assert compose_system("OFFER", offer, THINGS, said) == (
        "How about the alarm Pick up kids on March 8th?"
    )


def test_an_explained_value_names_its_slot() -> None:
    said = lambda a: a.values[0]  # noqa: E731
    acts = [act("CONFIRM", "subtitle_language", ["None"])]
    assert compose_system("CONFIRM", acts, THINGS, said) == (
        "Please confirm: the subtitle language is None (no subtitles)."
    )


def test_a_length_in_days_matches_a_number_of_days() -> None:
    assert counted_kind("text", "Length of stay in days") == "count"
    assert counted_kind("text", "Name of the hotel") == "text"
    target = Profile(
        "Hotels",
        {"stay_length": ("text", "Length of stay in days"), "rooms": ("number", "Rooms")},
        {},
    )
    source = Profile(
        "Hotels",
        {"number_of_days": ("count", "Number of days in the reservation"),
         "number_of_rooms": ("number", "Number of rooms")},
        {},
    )  # fmt: skip
    assert align(target, "Hotels_1", source).slots["stay_length"] == "number_of_days"
