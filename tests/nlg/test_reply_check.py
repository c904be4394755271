"""The reply check (issue 39): the generator over every act combination SGD train and dev
hold, with the recordings' values, gives no reply with a defect of ``nlg.check``; and each
detector and each fix on its own."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from conftest import SGD_ZIP, require_shared

from tod_runtime.data.sgd import open_split
from tod_runtime.dialogue.models import Action, act
from tod_runtime.nlg.check import combinations, defects
from tod_runtime.nlg.compose import compose_system
from tod_runtime.nlg.signature import cased, fill
from tod_runtime.nlg.success import participle, success
from tod_runtime.nlg.template import TemplateGenerator
from tod_runtime.plugins import ComponentContext
from tod_runtime.schema.models import ServiceSchema


def _schema(slots: list[dict[str, object]], intents: list[dict[str, object]]) -> ServiceSchema:
    return ServiceSchema.model_validate(
        {
            "service_name": "Cars_9",
            "description": "Rent cars",
            "slots": [{"is_categorical": False, "possible_values": [], **s} for s in slots],
            "intents": [
                {"is_transactional": False, "required_slots": [], "optional_slots": {},
                 "result_slots": [], **i}
                for i in intents
            ],
        }
    )  # fmt: skip


CARS = _schema(
    [
        {"name": "car_name", "description": "Name of the car"},
        {"name": "pickup_date", "description": "Date to pick up the car"},
        {"name": "dropoff_date", "description": "Date to return the car"},
        {"name": "pickup_time", "description": "Time to pick up the car"},
        {"name": "number_stops", "description": "Number of stops"},
        {"name": "origin_airport", "description": "Name of the airport to leave from"},
        {"name": "total_price", "description": "Price of the rental"},
    ],
    [
        {"name": "FindCars", "description": "Find cars to rent"},
        {"name": "ReserveCar", "description": "Reserve a car for given dates",
         "is_transactional": True, "required_slots": ["car_name", "pickup_date"]},
    ],
)  # fmt: skip
PLURALS = frozenset({"stops", "options", "showtimes", "people"})


def found(text: str, *acts: Action) -> list[str]:
    return defects(text, list(acts), CARS, PLURALS)


# ------------------------------------------------------------ each detector


def test_each_detector_finds_its_defect_and_passes_the_right_reply() -> None:
    cases = [
        ("placeholder", "How about {car_name}?", "How about Camry?", [act("OFFER", "car_name", ["Camry"])]),
        ("lower_start", "Sure. the car is ready.", "Sure. The car is ready.", []),
        ("mid_capital", "iT cost you $33.", "It cost you $33.", [act("INFORM", "total_price", ["33"])]),
        ("split_word", "The car s name is Camry.", "The car's name is Camry.", [act("INFORM", "car_name", ["Camry"])]),
        ("double_stop", "It is in Washington D.C..", "It is in Washington D.C.", []),
        ("clock", "Pick-up is at 19:00.", "Pick-up is at 7 pm.", [act("INFORM", "pickup_time", ["19:00"])]),
        ("clock", "Pick-up is at 07:30 am.", "Pick-up is at 7:30 am.", []),
        ("agreement", "I found 79 showtime at 7 pm.", "I found 79 showtimes at 7 pm.", []),
        ("agreement", "I found 1 options.", "I found 1 option.", []),
        ("currency", "It costs 45.", "It costs $45.", [act("INFORM", "total_price", ["45"])]),
        ("offer", "How about $12?", "How about Camry? It costs $12.", [act("OFFER", "car_name", ["Camry"]), act("OFFER", "total_price", ["12"])]),
        ("other_slot", "The car has SFO Airport stops.", "The car leaves from SFO Airport.", [act("INFORM", "origin_airport", ["SFO Airport"])]),
        ("bare_value", "Camry.", "The car is Camry.", [act("INFORM", "car_name", ["Camry"])]),
        ("vague_success", "Your request was successful.", "I have reserved the car.", [act("NOTIFY_SUCCESS")]),
        ("question_stop", "So, do you want Camry.", "So, do you want Camry?", [act("OFFER", "car_name", ["Camry"])]),
    ]  # fmt: skip
    for name, bad, good, acts in cases:
        assert name in found(bad, *acts), (name, bad)
        assert found(good, *acts) == [], (name, good)


def test_a_number_before_a_noun_or_after_a_is_not_a_disagreement() -> None:
    assert found("It is a 4 star hotel and a 5 star.") == []
    assert found("The flight has 0 stops and 1 stop back.") == []


# ------------------------------------------------------------ each fix


def test_a_template_people_typed_is_said_in_sentence_case() -> None:
    assert cased("iT cost you {fare}.") == "It cost you {fare}."
    assert cased("Yes, It will be held at {venue}.") == "Yes, it will be held at {venue}."
    assert cased("Yes, Sia sings it.") == "Yes, Sia sings it."  # a name keeps its capital
    assert cased("they don't. the address is {a}. but i think so") == (
        "They don't. The address is {a}. But I think so"
    )
    assert fill("a Metalcore sonG by {artist}", {"artist": "dEUS"}) == "A Metalcore song by dEUS"
    assert fill("It is in {city}.", {"city": "Washington D.C."}) == "It is in Washington D.C."


def test_a_success_says_what_the_transaction_did() -> None:
    assert success(CARS) == "I have reserved the car."
    said = compose_system("NOTIFY_SUCCESS", [act("NOTIFY_SUCCESS")], CARS, lambda a: "")
    assert said == "I have reserved the car."
    assert [participle(v) for v in ("book", "buy", "carry", "transfer", "schedule")] == [
        "booked", "bought", "carried", "transferred", "scheduled"
    ]  # fmt: skip
    table = _schema(
        [],
        [{"name": "Reserve", "description": "Reserve a table at a restaurant, for a time",
          "is_transactional": True}],
    )  # fmt: skip
    assert success(table) == "I have reserved the table at the restaurant."
    assert success(_schema([], [])) == "Your request was successful."


def test_two_slots_of_one_label_are_said_each_with_its_own_words(tmp_path: Path) -> None:
    """Two dates of a car confirmation: the generic table's "{date} ... {date_2}" is keyed by
    the acts' order and may swap them; composed, each says its own slot's description."""
    (tmp_path / "system").mkdir()
    (tmp_path / "system" / "_generic.json").write_text(
        '{"service": "_generic", "side": "system", "service_words": [], "templates": {'
        '"CONFIRM(date) CONFIRM(date_2)": [["You pick it up on {date} and return it on '
        '{date_2}.", 5]], "INFORM(number)": [["{number} stops.", 5]]}}'
    )
    ctx = ComponentContext(
        schemas={"Cars_9": CARS}, backend=None, options={"templates": str(tmp_path)}
    )
    nlg = TemplateGenerator(ctx)
    acts = [
        act("CONFIRM", "dropoff_date", ["2019-03-12"]),
        act("CONFIRM", "pickup_date", ["2019-03-07"]),
    ]
    text = nlg.realise("Cars_9", acts)
    assert text == (
        "Please confirm: the date to return the car is Tuesday, March 12th and the date to "
        "pick up the car is Thursday, March 7th."
    )
    # a vague label ("Number of ...") is not said with another slot's generic words
    assert nlg.realise("Cars_9", [act("INFORM", "number_stops", ["2"])]) == (
        "The number of stops is 2."
    )


# ------------------------------------------------------------ the whole check


@pytest.fixture(scope="module")
def recorded() -> Mapping[str, tuple[object, dict[tuple[str, str], list[list[Action]]]]]:
    """Each split's schemas and its act combinations (one frame per service and signature)."""
    path = require_shared(SGD_ZIP)
    out = {}
    for name in ("train", "dev"):
        split = open_split(path, name)
        raw = (d for f in split.dialogue_files() for d in split.read_raw(f))
        out[name] = (split.schemas(), combinations(raw))
    return out


def test_no_reply_to_an_act_combination_of_sgd_has_a_defect(
    recorded: Mapping[str, tuple[object, dict[tuple[str, str], list[list[Action]]]]],
) -> None:
    bad: list[str] = []
    total = 0
    for name, (schemas, combos) in recorded.items():
        assert isinstance(schemas, Mapping)
        ctx = ComponentContext(schemas=schemas, backend=None, options={})
        nlg = TemplateGenerator(ctx)
        for (service, key), frames in combos.items():
            for acts in frames:
                total += 1
                text = nlg.realise(service, acts)
                for defect in defects(text, acts, schemas.get(service), nlg.realiser.plurals):
                    bad.append(f"{defect}: {name} {service} {key} => {text}")
    assert total > 1500  # every combination of both splits was said
    assert bad == [], "\n".join(bad[:40])


def test_an_offer_names_the_entity_never_a_price_or_a_yes() -> None:
    said = lambda a: a.values[0]  # noqa: E731
    offer = [act("OFFER", "total_price", ["$12"]), act("OFFER", "car_name", ["Camry"])]
    assert compose_system("OFFER", offer, CARS, said) == ("How about Camry? The price is $12.")
    price = compose_system("OFFER", [act("OFFER", "total_price", ["$1,210.50"])], CARS, said)
    assert price == "The price is $1,210.50."


def test_a_mined_offer_of_a_number_is_not_used(tmp_path: Path) -> None:
    (tmp_path / "system").mkdir()
    (tmp_path / "system" / "_generic.json").write_text(
        '{"service": "_generic", "side": "system", "service_words": [], "templates": {'
        '"OFFER(price)": [["How about {price}?", 5]]}}'
    )
    ctx = ComponentContext(
        schemas={"Cars_9": CARS}, backend=None, options={"templates": str(tmp_path)}
    )
    text = TemplateGenerator(ctx).realise("Cars_9", [act("OFFER", "total_price", ["45"])])
    assert text == "The price is $45."


def test_composed_clauses_name_what_a_vague_head_is_of() -> None:
    schema = _schema(
        [
            {"name": "place_name", "description": "Name of the accommodation"},
            {"name": "stay", "description": "Length of stay in days"},
            {"name": "kind", "description": "Type of the therapist"},
            {"name": "airport", "description": "Number of the airport flying to"},
            {"name": "wifi", "description": "Whether the hotel has wifi", "is_categorical": True,
             "possible_values": ["True", "False"]},
            {"name": "pool", "description": "Whether the hotel has a pool", "is_categorical": True,
             "possible_values": ["True", "False"]},
        ],
        [],
    )  # fmt: skip
    said = lambda a: a.values[0]  # noqa: E731
    acts = [act("INFORM", "place_name", ["Ritz"]), act("INFORM", "airport", ["LAX"])]
    assert compose_system("INFORM", acts, schema, said) == (
        "The name of the accommodation is Ritz and the airport is LAX."
    )
    assert compose_system("REQUEST", [act("REQUEST", "kind")], schema, said) == (
        "What type of therapist would you like?"
    )
    assert compose_system("REQUEST", [act("REQUEST", "stay")], schema, said) == (
        "How many days would you like?"
    )
    stay = compose_system("CONFIRM", [act("CONFIRM", "stay", ["3"])], schema, said)
    assert stay == "Please confirm: the length of stay is 3 days."
    flags = [act("INFORM", "wifi", ["True"]), act("INFORM", "pool", ["True"])]
    assert compose_system("INFORM", flags, schema, said) == "The hotel has wifi and a pool."


def test_a_count_alone_is_not_said(tmp_path: Path) -> None:
    (tmp_path / "system").mkdir()
    (tmp_path / "system" / "_generic.json").write_text(
        '{"service": "_generic", "side": "system", "service_words": [], "templates": {'
        '"INFORM_COUNT(count)": [["I found {count}.", 5]]}}'
    )
    ctx = ComponentContext(
        schemas={"Cars_9": CARS}, backend=None, options={"templates": str(tmp_path)}
    )
    text = TemplateGenerator(ctx).realise("Cars_9", [act("INFORM_COUNT", "count", ["10"])])
    assert text == "I found 10 options for you."
    assert "agreement" in found("I found 10. How about Camry?")


def test_the_last_slot_of_a_kind_pairs_with_the_neighbours_last_of_that_kind() -> None:
    from tod_runtime.nlg.neighbours import Profile, align

    mine = Profile(
        "Reserve restaurants",
        {"seats": ("number", "Number of seats to reserve"), "city": ("text", "City of it")},
        {},
    )
    theirs = Profile(
        "Book restaurants",
        {"party_size": ("number", "Party size for a booking"), "city": ("text", "City of it")},
        {},
    )
    assert align(mine, "R_1", theirs).slots == {"city": "city", "seats": "party_size"}


def test_an_intent_is_offered_up_to_its_descriptions_first_comma() -> None:
    schema = _schema(
        [], [{"name": "Rent", "description": "Rent a movie to watch, with optional subtitles"}]
    )
    offer = [act("OFFER_INTENT", "intent", ["Rent"])]
    assert compose_system("OFFER_INTENT", offer, schema, lambda a: "") == (
        "Would you like to rent a movie to watch?"
    )
