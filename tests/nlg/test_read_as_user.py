"""Defects found reading 100 replies of SGD dev's unseen services as a user would (issue 39,
docs/nlg.md): each general cause, on a schema written here."""

from __future__ import annotations

from pathlib import Path

from tod_runtime.dialogue.models import act
from tod_runtime.nlg.compose import compose_system
from tod_runtime.nlg.form import form_defects
from tod_runtime.nlg.realise import Realiser
from tod_runtime.nlg.store import TemplateSet
from tod_runtime.schema.models import ServiceSchema

TRIPS = ServiceSchema.model_validate(
    {
        "service_name": "Trips_9",
        "description": "Find and book trips",
        "slots": [
            {"name": n, "description": d, "is_categorical": False, "possible_values": []}
            for n, d in [
                ("departure_date", "Date of departure flight"),
                ("guide", "Name of guide leading the trip"),
                ("price", "Price of the trip"),
            ]
        ],
        "intents": [],
    }
)


def _realiser(generic: dict[str, list[tuple[str, int]]]) -> Realiser:
    return Realiser(TemplateSet(generic=generic), compose_system, choices=1)


def test_a_proposed_date_is_said_as_a_date() -> None:
    """Was "..., for example 2019-03-04 or 2019-03-08?"."""
    realiser = _realiser({})
    acts = [act("REQUEST", "departure_date", ["2019-03-04", "2019-03-08"])]
    text = realiser.realise("Trips_9", TRIPS, acts)
    assert text.endswith("for example Monday, March 4th or Friday, March 8th?"), text


def test_a_name_says_what_it_is_of_with_its_article() -> None:
    """Was "The name of guide is Ann." (Movies_2: "The name of actor is ...")."""
    text = _realiser({}).realise("Trips_9", TRIPS, [act("INFORM", "guide", ["Ann"])])
    assert text == "The name of the guide is Ann."


def test_a_notice_without_a_sentence_of_its_own_is_a_defect_of_form() -> None:
    key = "INFORM(price) NOTIFY_SUCCESS"
    assert "unnoticed" in form_defects("The cost is {price}.", key)
    assert "unnoticed" not in form_defects("Your trip is booked. It costs {price}.", key)
    boolean = "INFORM(bool=False) NOTIFY_SUCCESS"
    assert "unnoticed" in form_defects("They do not serve alcohol.", boolean)
    assert "unnoticed" not in form_defects("Done. They do not serve alcohol.", boolean)
    assert "unnoticed" not in form_defects("Your trip is booked.", "NOTIFY_SUCCESS")
    assert "unnoticed" not in form_defects("The cost is {price}.", "INFORM(price)")


def test_a_success_is_said_when_a_template_of_its_acts_leaves_it_out() -> None:
    """Hotels_4 said "The cost is $60. Smoking is not allowed inside the place." for a
    booked room: the success went unsaid."""
    realiser = _realiser(
        {
            "INFORM(price) NOTIFY_SUCCESS": [("The cost is {price}.", 5)],
            "NOTIFY_SUCCESS": [("Your trip is booked.", 3)],
            "INFORM(price)": [("It costs {price}.", 3)],
        }
    )
    acts = [act("INFORM", "price", ["60"]), act("NOTIFY_SUCCESS")]
    assert realiser.realise("Trips_9", TRIPS, acts) == "Your trip is booked. It costs $60."


def test_sgd_hotels_4_says_its_booking(sgd_zip: Path) -> None:
    from tod_runtime.data.sgd import open_split
    from tod_runtime.nlg.template import TemplateGenerator
    from tod_runtime.plugins import ComponentContext

    schemas = open_split(sgd_zip, "dev").schemas()
    nlg = TemplateGenerator(ComponentContext(schemas=schemas, backend=None))
    acts = [
        act("INFORM", "price_per_night", ["60"]),
        act("INFORM", "smoking_allowed", ["False"]),
        act("NOTIFY_SUCCESS"),
    ]
    text = nlg.realise("Hotels_4", acts).lower()
    assert "$60" in text and "smoking" in text
    assert any(w in text for w in ("reserv", "book", "success", "confirm")), text


def test_a_ends_its_phrase_with_no_plural_value() -> None:
    """Movies_2 said "This movie is a Sports." (Media_1's template); the key's or another
    table's other templates say it ("It's a Sports movie.")."""
    from tod_runtime.nlg.signature import fill

    assert fill("This movie is a {genre}.", {"genre": "Sports"}) is None
    assert fill("It's a {genre} movie.", {"genre": "Sports"}) == "It's a Sports movie."
    assert fill("This movie is a {genre}.", {"genre": "Thriller"}) == "This movie is a Thriller."
    assert fill("Take a {mode}.", {"mode": "bus"}) == "Take a bus."


def test_no_the_before_a_name_that_starts_with_its_number() -> None:
    """Hotels_4 said "The 11 Howard is a nice 3 star hotel."."""
    from tod_runtime.nlg.signature import fill

    template = "The {name} is a nice {stars} star hotel near the {place}."
    values = {"name": "11 Howard", "stars": "3", "place": "54 Mint"}
    assert fill(template, values) == "11 Howard is a nice 3 star hotel near 54 Mint."
    values = {"name": "Ace Hotel", "stars": "3", "place": "park"}
    assert fill(template, values) == "The Ace Hotel is a nice 3 star hotel near the park."
    assert fill("I found the {count} options.", {"count": "3"}) == "I found the 3 options."
    values = {"name": "Batty Langley's Hotel", "stars": "5", "place": "park"}  # stop 50's reading
    assert fill(template, values).startswith("Batty Langley's Hotel is a nice 5 star")
