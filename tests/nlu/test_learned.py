"""The learned NLU: features carry no schema identity, training on a small slice works, the
shipped model loads from the package and drives the NLU."""

from __future__ import annotations

import json
import math
import random
import struct
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from stage_helpers import SERVICE, a, schemas, system

from tod_runtime.cli import main
from tod_runtime.config import embedded_services_dir
from tod_runtime.data.sgd import open_split
from tod_runtime.dialogue.context import TurnContext
from tod_runtime.dialogue.models import State
from tod_runtime.errors import DataError
from tod_runtime.nlu.learned import model as model_module
from tod_runtime.nlu.learned import values as reading
from tod_runtime.nlu.learned.examples import (
    Featurised,
    Featuriser,
    GoldValues,
    gold_turns,
    gold_values,
    joined_turns,
    unseen,
)
from tod_runtime.nlu.learned.features import (
    Utterance,
    crossed,
    describe_intent,
    describe_slots,
    hashed,
    hashed_crossed,
    head_and_rest,
    intent_features,
    intent_role,
    intent_strings,
    schema_marks,
    slot_features,
    slot_strings,
)
from tod_runtime.nlu.learned.model import (
    SCORERS,
    NLUModel,
    Thresholds,
    Weights,
    load_model,
    probabilities,
    scores,
    sigmoid,
    train_logreg,
)
from tod_runtime.nlu.learned.nlu import LearnedNLU
from tod_runtime.nlu.learned.reader import ValueReader, best_pairs, names_slots, said_beside
from tod_runtime.nlu.learned.reading import Ranked
from tod_runtime.nlu.learned.routing import (
    intent_for_values,
    service_for_values,
)
from tod_runtime.nlu.learned.scorer import Scorer, TurnView, view
from tod_runtime.nlu.learned.text import with_bases
from tod_runtime.nlu.learned.values import (
    SlotView,
    candidate_spans,
    normalised,
    slot_views,
    tokenise,
    value_turn,
)
from tod_runtime.plugins import ComponentContext
from tod_runtime.schema import Schemas, load_schema_file
from tod_runtime.schema.models import ServiceSchema

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "sgd_mini"


def renamed(schema: ServiceSchema) -> ServiceSchema:
    """The same service under opaque names (descriptions kept), as `tod data rename` does."""
    data = json.loads(json.dumps(schema.to_json()))
    slots = {s["name"]: f"slot_{n}" for n, s in enumerate(data["slots"], 1)}
    intents = {i["name"]: f"Intent_{n}" for n, i in enumerate(data["intents"], 1)}
    data["service_name"] = "Zzyzx_42"
    for s in data["slots"]:
        s["name"] = slots[s["name"]]
    for i in data["intents"]:
        i["name"] = intents[i["name"]]
        i["required_slots"] = [slots[x] for x in i["required_slots"]]
        i["optional_slots"] = {slots[k]: v for k, v in i["optional_slots"].items()}
        i["result_slots"] = [slots[x] for x in i["result_slots"]]
    return ServiceSchema.model_validate(data)


def test_a_description_head_stands_for_the_name() -> None:
    head, rest = head_and_rest("Number of seats to reserve at the restaurant")
    assert head == {"number", "seat", "reserve"}
    assert rest == {"restaurant"}


def test_scores_depend_on_words_not_on_identity() -> None:
    model = load_model()
    original = schemas()[SERVICE]
    other = renamed(original)
    assert other.service_name != original.service_name
    u = Utterance.of("Can you reserve a table at a cafe? What is their phone number?")
    acts = ("OFFER", "REQUEST")
    for before, after in zip(original.intents, other.intents, strict=True):
        assert before.name != after.name
        for role in ("current", "other", "offered"):
            f1 = intent_features(u, acts, describe_intent(before), role)
            f2 = intent_features(u, acts, describe_intent(after), role)
            assert f1 == f2
            names = (original.service_name, before.name)
            assert not any(
                n in f
                for f in intent_strings(u, acts, describe_intent(before), role)
                for n in names
            )
    slots_before, slots_after = describe_slots(original), describe_slots(other)
    for d1, d2 in zip(slots_before.values(), slots_after.values(), strict=True):
        assert slot_features(u, acts, ("INFORM",), d1) == slot_features(u, acts, ("INFORM",), d2)
        assert not any(original.service_name in f for f in slot_strings(u, acts, (), d1))
    # The same pair scores the same under either name.
    turn = view(u.text, None, [], {})
    assert [s for s, _ in Scorer(model, {SERVICE: original}).rank(turn)] == [
        s for s, _ in Scorer(model, {"Zzyzx_42": other}).rank(turn)
    ]


def test_features_hashed_without_strings_are_the_strings_hashed() -> None:
    """The scorers hash crossed words by continuing a CRC instead of building each string:
    the buckets, and their order, are those of the feature strings the model learned from."""
    assert hashed_crossed("x", ["ab", "c"], ["d", "ef", "g"], 12) == hashed(
        crossed("x", ["ab", "c"], ["d", "ef", "g"]), 12
    )
    schema = schemas()[SERVICE]
    made: list[str] = []  # every feature string made, to check each kind was exercised
    for text in (
        "Is there a cafe with wifi in San Jose? What's the phone, for 2 people?",
        "Any cafes with wifi in San Jose at 14:30 for 2 people, under $1,630.50?",
    ):
        made += _check_features_hashed_without_strings(schema, text)
    kinds = {f.split(":")[0] for f in made}
    assert {"wp", "tc", "pd", "nx", "pv", "adj", "yn", "sv", "os", "oos"} <= kinds


def test_an_intent_is_also_read_by_the_rest_of_its_service() -> None:
    """The words its service's description and other intents have and its own description
    lacks count for an intent: "rent a comedy" speaks for a service that also rents movies,
    without the intent's own description saying so."""
    schema = ServiceSchema.model_validate(
        {
            "service_name": "S",
            "description": "The widest selection of movie rentals",
            "slots": [
                {
                    "name": "genre",
                    "description": "Genre of the movie",
                    "is_categorical": False,
                    "possible_values": [],
                }
            ],
            "intents": [
                {
                    "name": name,
                    "description": description,
                    "is_transactional": name == "B",
                    "required_slots": [],
                    "optional_slots": {},
                    "result_slots": ["genre"],
                }
                for name, description in (
                    ("A", "Find movies to watch by genre"),
                    ("B", "Rent a movie to watch"),
                )
            ],
        }
    )
    described = describe_intent(schema.intents[0], schema)
    assert described.service == {"widest", "selection", "rental", "rent"}
    assert describe_intent(schema.intents[0]).service == frozenset()
    u = Utterance.of("I want to rent a comedy")
    strings = intent_strings(u, (), described, "other")
    assert "os:1|other" in strings and "oos:0:1" in strings
    alone = intent_strings(u, (), describe_intent(schema.intents[0]), "other")
    assert "os:0|other" in alone
    # where each intent's schema holds the user's words, read beside the words: "rent" is in
    # the rental's head and around the search
    rent = describe_intent(schema.intents[1], schema)
    assert schema_marks(u, rent) == ("§h",) and schema_marks(u, described) == ("§s",)
    assert {"w:rent|sibling", "w:§h|sibling"} <= set(intent_strings(u, (), rent, "sibling"))
    assert schema_marks(u, describe_intent(schema.intents[0])) == ()


def _check_features_hashed_without_strings(schema: ServiceSchema, text: str) -> list[str]:
    made: list[str] = []
    u = Utterance.of(text)
    acts = ("OFFER", "REQUEST")
    for intent in schema.intents:
        for role in ("current", "other", "none"):
            c = describe_intent(intent, schema)
            made += intent_strings(u, acts, c, role)
            assert intent_features(u, acts, c, role) == hashed(intent_strings(u, acts, c, role))
    for c in describe_slots(schema).values():
        for slot_acts in ((), ("REQUEST", "OFFER")):
            expected = hashed(slot_strings(u, acts, slot_acts, c))
            assert slot_features(u, acts, slot_acts, c) == expected
    system_acts = [("REQUEST", "city", []), ("OFFER", "party_size", ["2"])]
    turn = reading.value_turn(u.text, system_acts, {"san jose": frozenset({"city"})})
    numbers, lowered = reading.value_numbers(turn), reading.normalised(turn.text)
    for slot in slot_views(schema):
        assert reading.slot_features(turn, slot, 18) == hashed(reading.slot_strings(turn, slot))
        for value in [*slot.values, "dontcare"]:
            strings = reading.value_strings(turn, slot, value, numbers, lowered)
            found = reading.value_features(turn, slot, value, numbers, lowered, 18)
            assert found == hashed(strings)
            made += strings
    for i, j in candidate_spans(turn.tokens):
        assert turn.said_normalised(i, j) == reading.normalised(turn.said(i, j))
        for slot in slot_views(schema):
            found = reading.assign_features(turn, i, j, slot, 2, 18)
            strings = reading.assign_strings(turn, i, j, slot, 2)
            assert found == hashed(strings)
            made += strings
    return made


def test_a_tokens_shape_keeps_digits_apart_from_letters() -> None:
    assert [reading.shape(w) for w in ("7", "Boston", "6:30", "$1,630.50", "iPhone")] == [
        "d",
        "Xx",
        "d:d",
        "$d,d",
        "xXx",
    ]
    lower = reading.value_turn("set an alarm for 7am", [], {})
    assert lower.typed_in_lower_case and lower.shapes[-2:] == ("~d", "~x")
    cased = reading.value_turn("Set an alarm for 7am", [], {})
    assert not cased.typed_in_lower_case and cased.shapes[-2:] == ("d", "x")
    assert "vc:time|2" in reading.span_pair_strings(lower, 4, 6, [])


def test_no_span_crosses_the_end_of_a_sentence() -> None:
    """ "ok back to the hotel. 2 nights" holds no value across its full stop (the reader
    took "hotel. 2 nights" for a hotel's name); an abbreviation's "." is no sentence end."""

    def spans(text: str) -> set[str]:
        turn = reading.value_turn(text, [], {})
        return {turn.said(i, j) for i, j in candidate_spans(turn.tokens)}

    said = spans("ok back to the hotel. 2 nights at 5. thanks! is it free? ok")
    assert {"the hotel.", "2 nights", "2 nights at 5.", "thanks!", "is it free?"} <= said
    assert not {s for s in said if any(f"{end} " in s for end in ".!?")}
    assert {"st. louis", "dr. lee"} <= spans("st. louis with dr. lee")


def test_a_name_read_up_to_a_function_word_takes_the_words_after_it() -> None:
    """ "dinner with" is "dinner with sam" cut short: the words after a last word no name
    ends with are taken up to a function word, punctuation, a number or another value's token; with
    none, the last word is left out."""
    from tod_runtime.nlu.learned.reader import whole_name

    turn = reading.value_turn("put dinner with sam in my calendar at 7pm", [], {})

    def said(i: int, j: int, taken: frozenset[int] = frozenset()) -> str:
        return turn.said(*whole_name(turn, i, j, taken))

    assert said(1, 3) == "dinner with sam"
    assert said(1, 2) == "dinner"  # no function word last: as read
    assert said(1, 3, frozenset({3})) == "dinner"  # "sam" is another value's
    assert said(6, 8) == "calendar"  # "at" then a number: no name goes on with it
    assert said(2, 3) == "with"  # a single word is left as it is


def test_a_value_read_leaves_out_a_last_word_only_its_slot_is_described_with() -> None:
    """ "japanese food" for a cuisine "Cuisine of food served": "japanese"; a word another
    slot is described with too stays ("hilton hotel"), as does a value of one word."""
    from tod_runtime.nlu.learned.reader import by_qualifier, without_qualifier

    turn = reading.value_turn("japanese food at the hilton hotel", [], {})
    own = frozenset({turn.stems[1]})  # "food": the cuisine's own description word
    assert turn.said(0, without_qualifier(turn, 0, 2, own)) == "japanese"
    assert turn.said(4, without_qualifier(turn, 4, 6, own)) == "hilton hotel"
    assert turn.said(1, without_qualifier(turn, 1, 2, own)) == "food"
    # a span ending with the slot's own word, or right before it, is the slot's
    assert by_qualifier(turn, 0, 2, own) and by_qualifier(turn, 0, 1, own)
    assert not by_qualifier(turn, 4, 6, own) and not by_qualifier(turn, 1, 2, own)
    # "kind of", "type of" between the value and the qualifier ("some punjabi kind of food")
    kind = reading.value_turn("some punjabi kind of food please", [], {})
    assert by_qualifier(kind, 1, 2, own) and not by_qualifier(kind, 1, 4, own)
    # a slot's qualifiers: its own words but the head of its description, which may end a
    # name ("New York City" for "City where event is happening")
    city = SlotView(
        "city", ("city", "event", "happen"), "text", False, (), True, frozenset({"city"})
    )
    assert city.qualifiers == frozenset()
    own_food = frozenset({"cuisin", "food"})
    cuisine = SlotView("cuisine", ("cuisin", "food", "serv"), "text", False, (), True, own_food)
    assert cuisine.qualifiers == frozenset({"food"})
    # what may follow a doubted value: the head too ("ethiopian cuisine"), but not a date's
    # ("different dates") nor a naming slot's
    assert cuisine.after_value == own_food
    when = SlotView("date", ("date", "event"), "date", False, (), True, frozenset({"date"}))
    assert when.after_value == when.qualifiers == frozenset()
    name = SlotView("name", ("name", "restaur"), "text", False, (), True, frozenset({"name"}))
    assert name.after_value == frozenset()


def test_a_rare_word_before_a_slots_qualifier_is_read_though_the_span_scorer_doubts_it() -> None:
    """ "zanzibari pastry" for a style "Style of pastry baked" on a service no model saw: the
    span scorer gives "zanzibari" less than its threshold, but a word said mostly in values
    or never, right before the slot's qualifier, is read at a twentieth of it; a word people say
    in talk ("think pastry") is not."""
    schema = ServiceSchema.model_validate(
        {
            "service_name": "Bakeries",
            "description": "Find bakeries",
            "slots": [
                {
                    "name": "style",
                    "description": "Style of pastry baked",
                    "is_categorical": False,
                    "possible_values": [],
                },
                {
                    "name": "town",
                    "description": "Town of the bakery",
                    "is_categorical": False,
                    "possible_values": [],
                },
            ],
            "intents": [
                {
                    "name": "FindBakery",
                    "description": "Find a bakery",
                    "is_transactional": False,
                    "required_slots": ["town"],
                    "optional_slots": {"style": "dontcare"},
                    "result_slots": ["style", "town"],
                },
            ],
        }
    )
    views = slot_views(schema)
    reader = ValueReader(load_model(), ({"think": 1000}, {"think": 1000}))  # "think" is talk

    def style(text: str, r: ValueReader = reader) -> str | None:
        read = r.read(reading.value_turn(text, [], {}), views)
        return next((x.value for x in read if x.slot == "style"), None)

    turn = reading.value_turn("find me zanzibari pastry", [], {})
    spans = candidate_spans(turn.tokens)
    p = dict(zip(spans, reader.span_probabilities(turn, spans, []), strict=True))
    assert p[2, 3] < reader.thresholds.spans  # the scorer alone would not read it
    assert style("find me zanzibari pastry") == "zanzibari"
    assert style("find me zanzibari style") == "zanzibari"  # the slot's head after it
    assert style("i think pastry is nice") is None

    # the answer to the question for the town: a name, not a word only ever said in talk
    shipped = ValueReader(load_model())
    asked = [("REQUEST", "town", [])]

    def town(text: str) -> list[str]:
        read = shipped.read(reading.value_turn(text, asked, {}), views)
        return [x.value for x in read if x.slot == "town"]

    assert town("zanzibar") == ["zanzibar"]
    assert town("confirm") == []
    # a value read past a comma ends before a word only said in talk, not before a name's
    turn = reading.value_turn("2190 eastridge loop, also shared", [], {})
    assert turn.said(0, shipped._before_talk(turn, 0, 6)) == "2190 eastridge loop"
    turn = reading.value_turn("portland, or", [], {})
    assert turn.said(0, shipped._before_talk(turn, 0, 3)) == "portland, or"


def test_the_answer_to_the_free_text_slot_asked_is_the_likeliest_span_it_fits_best() -> None:
    """ "sushi sounds good right now" to "What are you in the mood for?": the likeliest span,
    whose best slot is the asked one; not a question back, nor a categorical slot's value."""
    from tod_runtime.nlu.learned.reader import answer_to_asked

    cuisine = SlotView("cuisine", ("cuisin", "food"), "text", False, (), True)
    price = SlotView("price", ("price",), "text", True, ("cheap", "pricey"), True)
    slots = [cuisine, price]
    asked = [("REQUEST", "cuisine", [])]

    def answer(text: str, best: str = "cuisine", at: int = 0) -> list[str]:
        turn = reading.value_turn(text, asked, {})
        likeliest = [(0.2, at, at + 1, best), (0.01, at + 1, at + 2, "cuisine")]
        return [turn.said(i, j) for _, i, j, _ in answer_to_asked(turn, slots, likeliest, [])]

    assert answer("sushi sounds good right now") == ["sushi"]
    assert answer("sushi sounds good right now", best="other") == []  # fits another best
    assert answer("nights? what's that") == []  # a question back
    assert answer("what about sushi?", at=2) == ["sushi"]  # but "what about X?" answers
    assert answer("cheap please") == []  # the price's value
    called_off = "no wait, cancel that, the game got postponed"
    words = [t.lower for t in reading.value_turn(called_off, asked, {}).tokens]
    assert answer(called_off.replace("cancel that", "hm"), at=words.index("postponed") - 1)
    assert answer(called_off, at=words.index("postponed")) == []  # the task called off


def test_amounts_and_clock_times_are_one_token_and_stems_say_a_value() -> None:
    turn = reading.value_turn("any museums under $1,630.50 at 14:30?", [], {})
    assert [t.text for t in turn.tokens] == ["any", "museums", "under", "$1,630.50", "at"] + [
        "14:30",
        "?",
    ]
    assert all(t.word for t in turn.tokens[:-1]) and not turn.tokens[-1].word
    assert turn.said_normalised(3, 4) == "1 630 50"
    odd = reading.value_turn("1,2345 or 1,234", [], {})  # a word over two tokens: 1,234 + 5
    for i, j in candidate_spans(odd.tokens):
        assert odd.said_normalised(i, j) == reading.normalised(odd.said(i, j))
    numbers, lowered = reading.value_numbers(turn), reading.normalised(turn.text)
    assert reading.mention("Museum", turn, numbers, lowered) == ("exact", 1)
    assert reading.mention("Museum Tours", turn, numbers, lowered)[0] != "exact"
    assert reading.value_class("$1,630.50") == "money"
    # a plural in "-ies" says its singular in "-y"; "movies" is not "movy"
    plural = reading.value_turn("any comedies or movies showing?", [], {})
    numbers, lowered = reading.value_numbers(plural), reading.normalised(plural.text)
    assert reading.mention("Comedy", plural, numbers, lowered) == ("exact", 1)
    assert reading.mention("Movie", plural, numbers, lowered) == ("exact", 3)


def test_a_number_inside_a_clock_time_or_an_amount_is_not_said() -> None:
    """The 7 of "7:30" is no count (a correction "make it 7:30" had booked a table for 7)."""
    turn = reading.value_turn("actually make it 7:30, for two, $4 each", [], {})
    numbers, lowered = reading.value_numbers(turn), reading.normalised(turn.text)
    assert reading.mention("7", turn, numbers, lowered) == ("none", -1)
    assert reading.mention("4", turn, numbers, lowered) == ("none", -1)
    assert reading.mention("2", turn, numbers, lowered) == ("number", 6)
    plain = reading.value_turn("7 people at 7:30", [], {})
    numbers, lowered = reading.value_numbers(plain), reading.normalised(plain.text)
    assert reading.mention("7", plain, numbers, lowered) == ("exact", 0)


def test_spans_are_scored_by_parts_as_whole_rows() -> None:
    u = Utterance.of("Is there a cafe with wifi in San Jose? What's the phone, for 2 people?")
    system_acts = [("REQUEST", "city", []), ("OFFER", "party_size", ["2"])]
    turn = reading.value_turn(u.text, system_acts, {"san jose": frozenset({"city"})})
    # Spans are scored by parts (start, end, both); the sum is the whole row's.
    reader = ValueReader(load_model())
    spans = candidate_spans(turn.tokens)
    by_parts = reader.span_probabilities(turn, spans, ["city"])
    rows = [hashed(reading.span_strings(turn, i, j, ["city"])) for i, j in spans]
    assert by_parts == pytest.approx(probabilities(reader.spans, rows), abs=1e-12)


@pytest.mark.parametrize(
    "text",
    [
        "Is there a cafe with wifi in San Jose? What's the phone, for 2 people?",
        "book it for 7:30 pm on march 6th, $40 max!",
        "San Jose",
        "?",
    ],
)
def test_span_pairs_weighed_in_place_are_their_rows_scores_to_the_bit(text: str) -> None:
    system_acts = [("REQUEST", "city", []), ("REQUEST", "date", [])]
    turn = reading.value_turn(text, system_acts, {"san jose": frozenset({"city"})})
    model = load_model()
    spans = candidate_spans(turn.tokens)
    for types in ([], ["city"], ["city", "date"]):
        rows = [hashed(reading.span_pair_strings(turn, i, j, types)) for i, j in spans]
        weights = Weights(model.weights["spans"], model.bits)
        assert reading.span_pair_scores(turn, spans, types, weights) == scores(
            model.weights["spans"], rows
        )


def test_few_features_are_scored_in_python_to_the_same_bits(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    weights = load_model().weights["spans"]
    rng = random.Random(0)
    rows = [[rng.randrange(len(weights)) for _ in range(rng.randrange(12))] for _ in range(9)]
    small = scores(weights, rows)
    monkeypatch.setattr(model_module, "SMALL_SCORING", -1)  # numpy, whatever the size
    assert small == scores(weights, rows)


def test_sigmoid_clips_as_min_and_max_did_to_the_bit() -> None:
    rng = random.Random(0)
    edges = [0.0, -0.0, 30.0, -30.0, 30.000001, -30.000001, 1e308, -1e308]
    edges += [math.inf, -math.inf, math.nan]
    for z in [*edges, *(rng.uniform(-60.0, 60.0) for _ in range(10_000))]:
        clipped = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
        assert struct.pack("d", sigmoid(z)) == struct.pack("d", clipped)


def _fitted(split_dir: Path, file: str) -> tuple[Featurised, NLUModel]:
    split = open_split(split_dir, "dev")
    mini = split.schemas()
    featuriser = Featuriser(mini, 18)
    data = Featurised()
    rng = random.Random(0)
    for dialogue in split.read_raw(file):
        for turn in gold_turns(dialogue):
            featuriser.add(data, turn, rng)
        for values in gold_values(dialogue, mini, {}):
            data.held_values.append(values)
            featuriser.add_values(data, values, rng)
    weights = {
        name: train_logreg(data.rows[name], epochs=20, seed=n) for n, name in enumerate(SCORERS)
    }
    return data, NLUModel(weights, {"bits": 18})


def test_training_on_a_few_dialogues_fits_them(tmp_path: Path) -> None:
    split = open_split(FIXTURE, "dev")
    mini = split.schemas()
    _, model = _fitted(FIXTURE, "dialogues_001.json")
    model.save(tmp_path / "nlu.npz")
    loaded = load_model(tmp_path / "nlu.npz")
    assert loaded.config == {"bits": 18}
    turns = [t for d in split.read_raw("dialogues_001.json") for t in gold_turns(d)]
    scorer = Scorer(loaded, mini)
    right = sum(scorer.intent(t.view) == t.target for t in turns)
    assert right >= 0.8 * len(turns)


def test_the_value_reader_fits_the_values_it_learned_from() -> None:
    data, model = _fitted(FIXTURE, "dialogues_001.json")
    views = {name: slot_views(s) for name, s in open_split(FIXTURE, "dev").schemas().items()}
    reader = ValueReader(model)
    said = found = 0
    for g in data.held_values:
        gold = g.pairs()
        read = {(r.slot, normalised(r.value)) for r in reader.read(g.turn, views[g.service])}
        said += len(gold)
        found += len(gold & read)
    assert said and found >= 0.8 * said


def test_unseen_hides_only_the_spoken_values_from_the_backend() -> None:
    known = {"oslo": frozenset({"city"}), "grind": frozenset({"cafe_name"})}
    turn = value_turn("A cafe in Oslo", [], known)
    gold = GoldValues(turn, SERVICE, {(3, 4): "city"}, {})
    hidden = unseen(gold)
    assert hidden.turn.known == {"grind": frozenset({"cafe_name"})}
    assert hidden.spans == gold.spans and gold.turn.known == known  # the original is kept


def test_a_model_file_without_a_scorer_is_a_clear_error(tmp_path: Path) -> None:
    model = load_model()
    partial = NLUModel({"intent": model.intent, "slots": model.slots}, model.config)
    partial.save(tmp_path / "old.npz")
    with pytest.raises(DataError, match="no weights for spans, assign, pick"):
        load_model(tmp_path / "old.npz")


def test_spans_are_tokens_with_their_offsets() -> None:
    tokens = tokenise("In Milpitas.I want 6:30 pm, Shazam!")
    assert [t.text for t in tokens] == [
        "In", "Milpitas", ".", "I", "want", "6:30", "pm", ",", "Shazam", "!",
    ]  # fmt: skip
    spans = candidate_spans(tokens)
    assert (1, 2) in spans and (8, 10) in spans  # "Shazam!" may end on its "!"
    assert (2, 3) not in spans and (6, 8) not in spans  # no span starts or ends on "." or ","
    # an amount is one token, so a span can start at "$" as SGD's spans do; values compare
    # by their words
    money = tokenise("Send $1,630.50 to Amir at 14:30")
    assert [t.text for t in money] == ["Send", "$1,630.50", "to", "Amir", "at", "14:30"]
    assert (1, 2) in candidate_spans(money)
    assert normalised("$1,630.50") == "1 630 50" and normalised("14:30") == "14:30"
    # a possessive names what it qualifies: "jason aldean's album" says the artist, known
    # to the backend as "Jason Aldean"; a value that holds one compares the same way
    turn = reading.value_turn("songs from jason aldean’s album", [], {"jason aldean": {"artist"}})
    assert turn.said_normalised(2, 4) == "jason aldean" == normalised("Jason Aldean's")
    assert turn.known.get(turn.said_normalised(2, 4)) == {"artist"}


def test_the_shipped_model_loads_from_the_package() -> None:
    model = load_model()
    assert all(w.shape == (1 << model.bits,) for w in model.weights.values())
    assert sorted(model.weights) == sorted(SCORERS)
    assert model.config["split"] == "train"


async def test_the_learned_nlu_picks_the_frame_and_requests() -> None:
    nlu = LearnedNLU(ComponentContext(schemas=schemas(), backend=None))
    acts = await nlu.parse("I want to find a cafe", TurnContext(nlu.schemas, [], {}))
    assert [str(x) for x in acts[SERVICE]] == ["INFORM_INTENT(intent=FindCafes)"]
    history = [system(a("OFFER", "cafe_name", "Grind"))]
    state = {SERVICE: State(active_intent="FindCafes")}
    acts = await nlu.parse("What is their phone number?", TurnContext(nlu.schemas, history, state))
    assert "REQUEST(phone)" in [str(x) for x in acts[SERVICE]]


async def test_a_subclass_re_ranks_the_frames_before_the_repairs() -> None:
    """``LearnedNLU.rank`` is the seam for a re-ranker (plugins/encoder): what it puts
    first is the frame the turn opens."""

    class Reversed(LearnedNLU):
        async def rank(self, text: str, turn: TurnView, context: TurnContext) -> Ranked:
            ranked = await super().rank(text, turn, context)
            intents = [(score, c) for score, c in ranked if c is not None]
            return tuple(sorted(intents)) + tuple(p for p in ranked if p[1] is None)

    ctx = ComponentContext(schemas=schemas(), backend=None)
    context = TurnContext(schemas(), [], {})
    plain = await LearnedNLU(ctx).parse("I want to find a cafe", context)
    assert [str(x) for x in plain[SERVICE]] == ["INFORM_INTENT(intent=FindCafes)"]
    reversed_ = await Reversed(ctx).parse("I want to find a cafe", context)
    assert [str(x) for x in reversed_[SERVICE]] == ["INFORM_INTENT(intent=ReserveCafe)"]


def test_learned_is_registered(pm) -> None:  # type: ignore[no-untyped-def]
    from tod_runtime.plugins import collect_components

    assert "learned" in collect_components(pm).nlu.entries


@pytest.mark.shared
def test_tod_train_nlu_with_a_limit(
    sgd_zip: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "model"
    code = main(
        ["train", "nlu", str(sgd_zip), "--out", str(out), "--limit", "30", "--workers", "1"]
    )
    assert code == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["model"] == str(out / "nlu.npz")
    config = json.loads((out / "nlu.json").read_text())
    assert config["limit"] == 30 and config["seed"] == 0
    model = load_model(out / "nlu.npz")
    split = open_split(sgd_zip, "train")
    dialogue = split.read_raw(split.dialogue_files()[0])[0]
    first = next(gold_turns(dialogue))
    assert Scorer(model, split.schemas()).rank(first.view)


def test_ranking_shares_the_turn_part_without_changing_scores() -> None:
    model = load_model()
    scorer = Scorer(model, schemas())
    history = [(SERVICE, [("OFFER_INTENT", "intent", ["ReserveCafe"]), ("OFFER", "cafe_name", [])])]
    turn = view("yes please book it, where is it?", *history[0], {SERVICE: "FindCafes"})
    for fast, candidate in scorer.rank(turn):
        described = dict(scorer.intents)[candidate]
        role = intent_role(candidate, turn.current, turn.offered, turn.active)
        full = intent_features(turn.utterance, turn.sys_acts, described, role)
        assert fast == pytest.approx(float(model.intent[full].sum()), abs=1e-4)


def test_the_intent_is_chosen_among_the_given_services_only() -> None:
    """``tod replay`` gives each dialogue's services, as DSTC8 does: the NLU then never picks
    an intent of another service, however well it scores."""
    every = Schemas(
        s for path in sorted(embedded_services_dir().glob("*/schema.json"))
        for s in load_schema_file(path)
    )  # fmt: skip
    scorer = Scorer(load_model(), every)
    turn = view("book me a table for 2 at 7pm", None, [], {})
    assert scorer.intent(turn) == ("Restaurants", "ReserveRestaurant")
    ranked = scorer.rank(turn, among={"Hotels"})
    assert {c[0] for _, c in ranked if c is not None} == {"Hotels"}
    assert len(ranked) == 1 + len(every["Hotels"].intents)  # and NONE
    hotels = [("Hotels", i.name) for i in every["Hotels"].intents]
    assert scorer.intent(turn, {"Hotels"}) in (None, *hotels)


def test_a_negated_yes_no_slot_reads_false() -> None:
    assert reading.value_turn("a hotel that doesn't allow pets", [], {}).negated(
        frozenset({"pet", "allow"})
    )
    assert (
        reading.value_turn("no, a hotel that allows pets", [], {}).negated(frozenset({"pet"})) == 0
    )
    assert reading.value_turn("a hotel in Oslo", [], {}).negated(frozenset({"pet"})) == -1
    hotels = load_schema_file(embedded_services_dir() / "Hotels" / "schema.json")[0]
    views = slot_views(hotels)
    reader = ValueReader(load_model())

    def pets(text: str) -> str | None:
        read = reader.read(reading.value_turn(text, [], {}), views)
        return next((r.value for r in read if r.slot == "pets_welcome"), None)

    assert pets("I need a hotel in Boston that doesn't allow pets.") == "False"
    assert pets("I need a hotel in Boston that allows pets.") == "True"
    # a flag said negated is read False; its words in any form ("sharing" of "shared")
    assert pets("a hotel in Boston, no pets please") == "False"
    turn = reading.value_turn("no sharing please", [], {})
    assert turn.negated(frozenset({"shared", "ride"})) == 1


def test_a_yes_no_filter_is_read_from_its_own_description_words() -> None:
    """ "hotels that take pets": pets_welcome ("Whether pets are allowed at the hotel") is
    True though the pick scorer gives it 0.04; "hotel", which other slots are described
    with, says nothing; a negated filter is not read True."""
    hotels = load_schema_file(embedded_services_dir() / "Hotels" / "schema.json")[0]
    views = slot_views(hotels)
    own = {v.name: v.own for v in views}
    assert own["pets_welcome"] == {"pet", "allowed"} and "hotel" not in own["has_wifi"]
    shipped = load_model()

    def flags(text: str, system: tuple[Any, ...] = (), **thresholds: float) -> dict[str, str]:
        config = shipped.config | {"thresholds": shipped.config["thresholds"] | thresholds}
        reader = ValueReader(NLUModel(shipped.weights, config))
        read = reader.read(reading.value_turn(text, system, {}), views)
        return {r.slot: r.value for r in read if r.slot in ("pets_welcome", "has_wifi")}

    text = "do u know any hotels in san francisco that take pets"
    assert flags(text) == {"pets_welcome": "True"}
    assert flags(text, said_flag=1.0) == {}  # the pick threshold alone
    assert flags("any hotels in san francisco") == {}
    assert flags("a hotel that does not take pets").get("pets_welcome") != "True"
    # a question about an offered hotel asks about the filter, it does not set it
    offered = (("OFFER", "hotel_name", ["Park View Lodge"]),)
    assert flags("do they take pets?", offered) == {}
    assert flags("one that takes pets", offered) == {"pets_welcome": "True"}


def test_a_value_the_backend_knows_is_read_under_the_span_threshold() -> None:
    """ "then seattle, 4 star hotel": the span scorer gives "seattle" 0.009 (no capital, no
    "in" before it), but the backend knows it as a city and the assign scorer agrees."""
    hotels = load_schema_file(embedded_services_dir() / "Hotels" / "schema.json")[0]
    text = "then seattle, 4 star hotel, from the 1st for 3 nights"
    shipped = load_model()

    def cities(known: dict[str, frozenset[str]], **thresholds: float) -> list[str]:
        config = shipped.config | {"thresholds": shipped.config["thresholds"] | thresholds}
        reader = ValueReader(NLUModel(shipped.weights, config))
        read = reader.read_spans(reading.value_turn(text, [], known), slot_views(hotels))
        return [r.value for r in read if r.slot == "city"]

    city = {"seattle": frozenset({"city"})}
    assert cities(city, known_assign=0.5) == ["seattle"]
    assert cities(city) == []  # off by default: the span threshold alone
    assert cities({}, known_assign=0.5) == []
    assert cities({"seattle": frozenset({"hotel_name"})}, known_assign=0.5) == []


def test_an_interjection_is_no_value() -> None:
    """ "meh, something else?" after "what movie do you want to see?" had set the movie to
    "meh"; a value the backend knows stays one."""
    movies = load_schema_file(embedded_services_dir() / "Movies" / "schema.json")[0]
    reader = ValueReader(load_model())
    asked = [("REQUEST", "movie_name", [])]

    def read(text: str, known: dict[str, frozenset[str]]) -> list[str]:
        turn = reading.value_turn(text, asked, known)
        return [r.value for r in reader.read_spans(turn, slot_views(movies))]

    assert read("meh, something else?", {}) == []
    assert read("thx", {}) == []
    assert read("meh", {"meh": frozenset({"movie_name"})}) == ["meh"]
    assert read("winter garden", {}) == ["winter garden"]


def test_a_span_the_reader_is_sure_of_takes_its_slot_at_the_lower_threshold() -> None:
    shipped = load_model()
    hotels = load_schema_file(embedded_services_dir() / "Hotels" / "schema.json")[0]
    turn = reading.value_turn(
        "a room at the Grand Budapest in Zyrtania for Quentin on Friday", [], {}
    )

    def read(**thresholds: float) -> set[str]:
        config = shipped.config | {"thresholds": shipped.config["thresholds"] | thresholds}
        reader = ValueReader(NLUModel(shipped.weights, config))
        return {f"{r.slot}={r.value}" for r in reader.read_spans(turn, slot_views(hotels))}

    assert read(sure_span=2.0) == read(assign=shipped.thresholds.assign, sure_span=2.0)
    strict = read(assign=0.3, sure_span=2.0)  # no span is sure: the one assign threshold
    loose = read(assign=0.3, sure_span=0.0, sure_assign=0.0)  # every span sure: assign 0
    assert loose == read(assign=0.0, sure_span=2.0) and strict < loose


def test_a_value_said_beside_its_slots_words_is_read_at_the_lower_threshold() -> None:
    shipped = load_model()
    hotels = load_schema_file(embedded_services_dir() / "Hotels" / "schema.json")[0]
    views = {v.name: v for v in slot_views(hotels)}
    turn = reading.value_turn("somewhere in Boston, a five star place, for 3 guests", [], {})
    numbers, lowered = reading.value_numbers(turn), reading.normalised(turn.text)
    assert said_beside(turn, views["star_rating"], "5", numbers, lowered)  # "five star"
    assert not said_beside(turn, views["number_of_rooms"], "3", numbers, lowered)  # "3 guests"
    assert not said_beside(turn, views["star_rating"], "3", numbers, lowered)

    def read(**thresholds: float) -> set[str]:
        config = shipped.config | {"thresholds": shipped.config["thresholds"] | thresholds}
        reader = ValueReader(NLUModel(shipped.weights, config))
        return {f"{r.slot}={r.value}" for r in reader.read_categorical(turn, list(views.values()))}

    # from 0 up, every value said beside its slot's words is read, and nothing else is added
    assert read(pick=0.99, sure_pick=0.0) == {"star_rating=5"}
    assert read(sure_pick=shipped.thresholds.pick) == read()


def test_the_values_the_system_just_gave_a_slot_are_known_as_that_slots() -> None:
    """ "green book sounds great" after "how about family, gloria bell or green book?": the
    span is known as a title (beside what the backend knows it for), as a value the backend
    holds would be, also on a service whose values the reader was given none of."""
    offer = [("OFFER", "title", ["Family", "Gloria Bell", "Green Book"]), ("REQUEST", "day", [])]
    turn = reading.value_turn("green book sounds great", offer, {"green book": frozenset({"x"})})
    assert turn.known["green book"] == {"title", "x"} and turn.known["gloria bell"] == {"title"}
    assert "dontcare" not in reading.value_turn("any", [("INFORM", "day", ["dontcare"])], {}).known
    # a value the system asks to confirm is the user's own, as read: the answer may correct it
    confirm = [("CONFIRM", "theater", ["Austin Cinema"])]
    assert "austin cinema" not in reading.value_turn("no, austin cinema 8", confirm, {}).known
    plain = reading.value_turn("green book sounds great", [("REQUEST", "day", [])], {})
    assert dict(plain.known) == {}


def test_a_word_saying_a_value_by_its_first_letters_fills_one_slot() -> None:
    """ "check" says "checking" by its first letters (a ``stems`` mention): read at all, it is
    read for one of two slots allowing the value, as a value said in full is."""
    shipped = load_model()
    kinds = {"is_categorical": True, "possible_values": ["checking", "savings"]}
    bank = ServiceSchema.model_validate({
        "service_name": "Bank", "description": "Manage bank accounts",
        "slots": [
            {"name": "account_type", "description": "The account type of the user", **kinds},
            {"name": "recipient_account_type", "description": "The account type of the recipient",
             **kinds},
        ],
        "intents": [{"name": "CheckBalance", "description": "Check the money in an account",
                     "is_transactional": False, "required_slots": ["account_type"],
                     "optional_slots": {"recipient_account_type": "checking"},
                     "result_slots": ["account_type"]}],
    })  # fmt: skip
    views = slot_views(bank)
    turn = reading.value_turn("i need to check my balance", [], {})
    numbers, lowered = reading.value_numbers(turn), reading.normalised(turn.text)
    assert reading.mention("checking", turn, numbers, lowered) == ("stems", 3)
    config = shipped.config | {"thresholds": shipped.config["thresholds"] | {"pick": 0.0}}
    reader = ValueReader(NLUModel(shipped.weights, config))
    both = [r for r in reader.read_categorical(turn, views) if r.value == "checking"]
    assert len(both) == 2 and all(r.tokens == range(3, 4) for r in both)
    assert [r.value for r in reader.read(turn, views) if r.value != "dontcare"] == ["checking"]


def test_a_yes_no_slot_named_by_its_words_takes_the_yes_from_one_described_alike() -> None:
    """ "an apartment that allows pets": the scorer, at any threshold, may say yes to the
    furnished flag too (both "Boolean flag indicating if ..."); the flag whose own words the
    turn says keeps it."""
    shipped = load_model()

    def flag(name: str, what: str) -> dict[str, Any]:
        return {"name": name, "description": f"Boolean flag indicating if {what}",
                "is_categorical": True, "possible_values": ["True", "False"]}  # fmt: skip

    homes = ServiceSchema.model_validate({
        "service_name": "Homes", "description": "Apartments to rent",
        "slots": [flag("furnished", "the property is furnished"),
                  flag("pets_allowed", "pets are allowed")],
        "intents": [{"name": "FindApartment", "description": "Find an apartment",
                     "is_transactional": False, "required_slots": [],
                     "optional_slots": {"furnished": "dontcare", "pets_allowed": "dontcare"},
                     "result_slots": ["furnished", "pets_allowed"]}],
    })  # fmt: skip
    views = slot_views(homes)
    config = shipped.config | {"thresholds": shipped.config["thresholds"] | {"pick": 0.0}}
    reader = ValueReader(NLUModel(shipped.weights, config))
    for text, read in (
        ("an apartment that allows pets", {"pets_allowed=True"}),
        ("a furnished place that allows pets", {"furnished=True", "pets_allowed=True"}),
    ):
        turn = reading.value_turn(text, [], {})
        said = {f"{r.slot}={r.value}" for r in reader.read_categorical(turn, views)}
        assert {r for r in said if r.endswith("True")} == read, text


def test_words_of_the_slots_descriptions_alone_are_no_value() -> None:
    """A question speaking of slots ("what's the name of the theater?") gives no value: a
    span of nothing but the service's description words and function words is not read."""
    movies = load_schema_file(embedded_services_dir() / "Movies" / "schema.json")[0]
    views = slot_views(movies)
    described = frozenset(w for v in views for w in v.description)
    turn = reading.value_turn("what's the name of the theater? is it the Roxie?", [], {})
    spoken = {turn.said(i, j) for i, j in reading.candidate_spans(turn.tokens)}
    assert {"of the theater", "the theater", "theater", "Roxie"} <= spoken
    named = {turn.said(i, j) for i, j in reading.candidate_spans(turn.tokens)
             if names_slots(turn, i, j, described)}  # fmt: skip
    assert {"of the theater", "the theater", "theater"} <= named
    assert not {x for x in named if "Roxie" in x or "what" in x}
    known = reading.value_turn("the theater", [], {"the theater": frozenset({"theater_name"})})
    assert not names_slots(known, 0, 2, described)  # a value the service knows stays one
    offered = [("OFFER", "movie_name", ["Quiet Rivers"]), ("INFORM_COUNT", "count", ["2"])]
    question = reading.value_turn("what's the name of the theater?", offered, {})
    assert ValueReader(load_model()).read_spans(question, views) == []  # was "of the theater"


def test_spans_are_read_by_the_best_total_not_the_likeliest_pair_first() -> None:
    # "weather in paris tomorrow": tokens 2-4 "paris tomorrow", 2-3 "paris", 3-4 "tomorrow"
    whole, city, day = (0.36, 2, 4, "city"), (0.33, 2, 3, "city"), (0.31, 3, 4, "date")
    assert sorted(best_pairs([whole, city, day])) == [day, city]
    # one better pair beats two that it overlaps and that are worth less together
    assert best_pairs([(0.7, 2, 4, "city"), city, day]) == [(0.7, 2, 4, "city")]
    # a slot takes one span, a span one slot; pairs beyond ``most`` are added likeliest first
    assert best_pairs([city, (0.2, 5, 6, "city"), (0.1, 5, 6, "date")]) == [
        city,
        (0.1, 5, 6, "date"),
    ]
    assert best_pairs([whole, city, day], most=1) == [whole]


def test_a_value_said_twice_fills_two_slots() -> None:
    """Two categorical slots picking the same value ("1 room for 1 night") take one mention
    each; a value said once fills one slot only."""
    hotels = load_schema_file(embedded_services_dir() / "Hotels" / "schema.json")[0]
    views = slot_views(hotels)
    reader = ValueReader(load_model())

    def counts(text: str) -> dict[str, str]:
        read = reader.read(reading.value_turn(text, [], {}), views)
        return {r.slot: r.value for r in read if r.slot.startswith("number_of")}

    assert counts("book 1 room for 1 night from saturday") == {
        "number_of_rooms": "1",
        "number_of_nights": "1",
    }
    assert counts("book 2 rooms for 3 nights") == {"number_of_rooms": "2", "number_of_nights": "3"}
    assert len(counts("book it for 2 nights")) == 1


async def test_values_are_read_for_the_intents_scored_near_the_chosen_one() -> None:
    """A turn may open one intent with a value of its neighbour's ("a 4 star hotel" when the
    booking is chosen): the reader reads among the slots of the service's intents scored
    within ``intent_margin`` of the chosen one, and only the chosen one's with no margin."""
    hotels = Schemas(load_schema_file(embedded_services_dir() / "Hotels" / "schema.json"))
    text = "a 4 star hotel in new york"

    async def said(margin: float) -> list[str]:
        nlu = LearnedNLU(ComponentContext(schemas=hotels, backend=None))
        nlu.thresholds = replace(
            nlu.thresholds, intent_margin=margin, values_margin=0.0
        )  # the scorer's intent kept
        return [str(x) for x in (await nlu.parse(text, TurnContext(hotels, [], {})))["Hotels"]]

    assert load_model().thresholds.intent_margin == 12.0  # the shipped setting
    near, alone = await said(12.0), await said(0.0)
    assert "INFORM_INTENT(intent=BookHotel)" in near and "INFORM_INTENT(intent=BookHotel)" in alone
    assert "INFORM(star_rating=4)" in near
    assert "INFORM(star_rating=4)" not in alone  # the booking takes no star rating


async def test_the_values_read_choose_among_the_intents_scored_near() -> None:
    """The chosen intent gives way to a near one of the service whose slots take more of the
    values read (``values_margin``), and to another service's within ``service_margin``: "a
    hotel in new york with wifi" is a search (the booking takes no wifi); "somewhere to stay
    in Seattle, ideally 5 stars" reads a city for a restaurant search, a city and a star
    rating for a hotel search."""
    embedded = Schemas(
        s
        for p in sorted(embedded_services_dir().glob("*/schema.json"))
        for s in load_schema_file(p)
    )

    async def said(text: str, values: float, service: float) -> dict[str, list[str]]:
        nlu = LearnedNLU(ComponentContext(schemas=embedded, backend=None))
        nlu.thresholds = replace(nlu.thresholds, values_margin=values, service_margin=service)
        acts = await nlu.parse(text, TurnContext(embedded, [], {}))
        return {name: [str(x) for x in found] for name, found in acts.items()}

    shipped = load_model()
    assert shipped.thresholds.values_margin == 12.0 and shipped.thresholds.service_margin == 2.0
    wifi = "a room at a hotel in new york with wifi"
    assert "INFORM_INTENT(intent=BookHotel)" in (await said(wifi, 0.0, 0.0))["Hotels"]
    search = (await said(wifi, 12.0, 0.0))["Hotels"]
    assert "INFORM_INTENT(intent=SearchHotel)" in search and "INFORM(has_wifi=True)" in search
    stay = "somewhere nice in Seattle with 5 stars"
    assert list(await said(stay, 12.0, 0.0)) == ["Restaurants"]
    hotel = (await said(stay, 12.0, 2.0))["Hotels"]
    assert "INFORM_INTENT(intent=SearchHotel)" in hotel and "INFORM(star_rating=5)" in hotel


def test_values_opening_a_service_choose_the_intent_they_leave_least_missing() -> None:
    movies = Schemas(load_schema_file(embedded_services_dir() / "Movies" / "schema.json"))
    nlu = LearnedNLU(ComponentContext(schemas=movies, backend=None))
    city = [a("INFORM", "city", "Denver")]
    near = [(0.8, "FindMovies")]
    # both take the city; the search needs nothing more, the booking a movie, time, tickets
    assert intent_for_values(nlu, "Movies", "BuyMovieTickets", near, city, True) == "FindMovies"
    # mid-task, or with no value read, the scorer's order stands
    assert intent_for_values(nlu, "Movies", "BuyMovieTickets", near, city) == "BuyMovieTickets"
    assert intent_for_values(nlu, "Movies", "BuyMovieTickets", near, [], True) == "BuyMovieTickets"
    # a search and a booking are told apart by what is missing, whatever words are said
    said = frozenset({"buy", "ticket", "denver"})
    assert intent_for_values(nlu, "Movies", "BuyMovieTickets", near, city, True, said) == (
        "FindMovies"
    )


def test_two_searches_named_by_the_users_words_keep_the_one_named() -> None:
    """ "looking for a round trip from san francisco to seattle" had been turned into the
    one-way search, which needs no return date: the user's words name the chosen search's
    description and not the other's, so it stays."""
    text = {"is_categorical": False, "possible_values": []}
    slots = [
        {"name": n, "description": n.replace("_", " ")} | text
        for n in ("origin", "to", "day", "back")
    ]
    search = {"is_transactional": False, "optional_slots": {}, "result_slots": []}
    flights = ServiceSchema.model_validate(
        {
            "service_name": "Air",
            "description": "Flights",
            "slots": slots,
            "intents": [
                {"name": "OneWay", "description": "Search for one way flights",
                 "required_slots": ["origin", "to", "day"]} | search,
                {"name": "RoundTrip", "description": "Search for round trip flights",
                 "required_slots": ["origin", "to", "day", "back"]} | search,
            ],
        }
    )  # fmt: skip
    nlu = LearnedNLU(ComponentContext(schemas=Schemas([flights]), backend=None))
    read = [a("INFORM", "origin", "San Francisco"), a("INFORM", "to", "Seattle")]
    near = [(2.0, "OneWay")]
    named = frozenset({"round", "trip", "san", "francisco", "seattle"})
    assert intent_for_values(nlu, "Air", "RoundTrip", near, read, True, named) == "RoundTrip"
    assert intent_for_values(nlu, "Air", "RoundTrip", near, read, True, frozenset()) == "OneWay"
    both = named | {"one", "way"}  # a word of each: the fewest missing
    assert intent_for_values(nlu, "Air", "RoundTrip", near, read, True, both) == "OneWay"


async def test_a_count_the_reader_missed_fills_the_intents_one_number_slot() -> None:
    restaurants = load_schema_file(embedded_services_dir() / "Restaurants" / "schema.json")
    nlu = LearnedNLU(ComponentContext(schemas=Schemas(restaurants), backend=None))
    nlu.reader.read = lambda turn, slots: []  # type: ignore[method-assign]  # it misses all

    async def seats(text: str, intent: str = "ReserveRestaurant") -> list[str]:
        state = {"Restaurants": State(active_intent=intent)}
        context = TurnContext(nlu.schemas, [system(service="Restaurants")], state)
        acts = (await nlu.parse(text, context)).get("Restaurants", [])
        return [str(x) for x in acts if x.slot == "number_of_seats"]

    # the one number outside the time, in words or digits, said as the slot's value
    assert await seats("book it for a party of five at 6:30 pm") == ["INFORM(number_of_seats=5)"]
    assert await seats("a table for 3 on the 5th please") == ["INFORM(number_of_seats=3)"]
    # none: two numbers; "one" as a pronoun; a number not among the values; a word of
    # another slot's description beside it; the search takes no number slot
    assert await seats("4 or 5 of us at 7 pm") == []
    assert await seats("yes, that's the one") == []
    assert await seats("we are 12") == []
    assert await seats("a place with a 4 rating") == []
    assert await seats("a party of 4", "FindRestaurants") == []


async def test_another_services_task_asked_for_mid_task_is_switched_to() -> None:
    """In context the scorer keeps a task whose question is open (SGD's users never leave
    one); a turn that, read as an opening, names another service's task by the nouns of its
    intent's description, and scores ``switch_margin`` over the current service, opens it."""
    embedded = Schemas(
        s
        for p in sorted(embedded_services_dir().glob("*/schema.json"))
        for s in load_schema_file(p)
    )
    nlu = LearnedNLU(ComponentContext(schemas=embedded, backend=None))
    asked = system(a("REQUEST", "city"), service="Restaurants")
    state = {"Restaurants": State(active_intent="FindRestaurants")}

    async def said(text: str, margin: float) -> dict[str, list[str]]:
        nlu.thresholds = replace(nlu.thresholds, switch_margin=margin)
        acts = await nlu.parse(text, TurnContext(nlu.schemas, [asked], state))
        return {service: [str(x) for x in found] for service, found in acts.items()}

    instead = "actually never mind, I need a hotel in seattle instead"
    assert list(await said(instead, float("inf"))) == ["Restaurants"]  # off: kept
    hotel = (await said(instead, 3.0))["Hotels"]
    assert "INFORM_INTENT(intent=SearchHotel)" in hotel and "INFORM(city=seattle)" in hotel
    # an answer to the question, and a question about the current task, stay
    assert list(await said("seattle please", 0.0)) == ["Restaurants"]
    assert list(await said("do they have live music?", 0.0)) == ["Restaurants"]


async def test_a_question_of_which_nothing_was_read_asks_its_likeliest_slot() -> None:
    """Rather than "sorry, I did not get that", a question after an offer asks about the slot
    the scorer finds likeliest, from ``ask_floor`` up; with a floor above 1 it reads nothing."""
    history = [system(a("OFFER", "cafe_name", "Grind"))]
    state = {SERVICE: State(active_intent="FindCafes")}

    async def parse(floor: float) -> list[str]:
        nlu = LearnedNLU(ComponentContext(schemas=schemas(), backend=None))
        nlu.thresholds = replace(nlu.thresholds, ask_floor=floor)
        acts = await nlu.parse("is it any good?", TurnContext(nlu.schemas, history, state))
        return [str(x) for x in acts.get(SERVICE, [])]

    assert await parse(1.1) == []
    asked = await parse(0.0)
    assert len(asked) == 1 and asked[0].startswith("REQUEST(")
    # a statement is not turned into a question
    nlu = LearnedNLU(ComponentContext(schemas=schemas(), backend=None))
    nlu.thresholds = replace(nlu.thresholds, ask_floor=0.0)
    said = await nlu.parse("hmm okay", TurnContext(nlu.schemas, history, state))
    assert not any(str(x).startswith("REQUEST(") for x in said.get(SERVICE, []))


def _turn(speaker: str, text: str, *actions: dict, slots: tuple[dict, ...] = ()) -> dict:
    frame = {"service": SERVICE, "actions": list(actions), "slots": list(slots)}
    return {"speaker": speaker, "utterance": text, "frames": [frame]}


def test_two_user_turns_are_joined_into_one_for_the_value_scorers(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A user turn and the user's next answer are learned from as one turn ("book it for 5
    people at 6:30 pm"), the answer's spans moved; a correction of a value the first turn
    gave is not joined."""
    from tod_runtime.nlu.learned import examples

    monkeypatch.setattr(examples, "JOINED", 1.0)
    inform = {"act": "INFORM", "slot": "party_size", "values": ["5"]}
    time = {"act": "INFORM", "slot": "time", "values": ["6:30 pm"]}
    ask = {"act": "REQUEST", "slot": "time", "values": []}
    dialogue = {
        "turns": [
            _turn("SYSTEM", "Which cafe?", {"act": "REQUEST", "slot": "cafe_name", "values": []}),
            _turn("USER", "Grind, for 5 people.", inform),
            _turn("SYSTEM", "At what time?", ask),
            _turn(
                "USER",
                "At 6:30 pm.",
                time,
                slots=({"slot": "time", "start": 3, "exclusive_end": 10},),
            ),
            _turn("SYSTEM", "Anything else?"),
            _turn("USER", "Actually 7 pm.", {**time, "values": ["7 pm"]}),
        ]
    }
    joined = list(joined_turns(dialogue, random.Random(0)))
    assert len(joined) == 1  # the correction of the time is not joined to the time
    before, turn = joined[0]["turns"]
    assert before["utterance"] == "Which cafe?"
    assert turn["utterance"] == "Grind, for 5 people. At 6:30 pm."
    (span,) = turn["frames"][0]["slots"]
    assert turn["utterance"][span["start"] : span["exclusive_end"]] == "6:30 pm"
    assert [x["slot"] for x in turn["frames"][0]["actions"]] == ["party_size", "time"]
    (gold,) = gold_values(joined[0], schemas(), {})
    assert set(gold.spans.values()) == {"time"}


async def test_a_value_the_backend_knows_is_said_as_the_backend_writes_it() -> None:
    """ "austin" typed in lower case is read as the backend's "Austin", so the state and the
    replies say it properly, and the call searches it as written ("austin!" for "Austin!");
    a value the backend does not know stays as typed."""

    class Backend:
        async def entity_values(self, service: str) -> dict[str, list[str]]:
            return {"city": ["Austin!"], "restaurant_name": ["Copper Kitchen"]}

    restaurants = Schemas(load_schema_file(embedded_services_dir() / "Restaurants" / "schema.json"))
    nlu = LearnedNLU(ComponentContext(schemas=restaurants, backend=Backend()))  # type: ignore[arg-type]
    acts = await nlu.parse("find me italian food in austin", TurnContext(restaurants, [], {}))
    (city,) = [x for x in acts["Restaurants"] if x.slot == "city"]
    assert city.values == city.canonical_values == ["Austin!"]
    acts = await nlu.parse("find me italian food in san jose", TurnContext(restaurants, [], {}))
    assert "INFORM(city=san jose)" in [str(x) for x in acts["Restaurants"]]


def _movie_service(name: str, description: str, other: str | None) -> ServiceSchema:
    """A movie service: a search by genre, and ``other`` (a transactional intent's
    description) when given."""
    intents = [
        {
            "name": "FindMovies",
            "description": "Find movies by genre",
            "is_transactional": False,
            "required_slots": ["genre"],
            "optional_slots": {},
            "result_slots": ["genre", "title"],
        }
    ]
    if other:
        intents.append(
            {
                "name": "Act",
                "description": other,
                "is_transactional": True,
                "required_slots": ["title"],
                "optional_slots": {},
                "result_slots": ["title"],
            }
        )
    slots = [
        {
            "name": "genre",
            "description": "Genre of the movie",
            "is_categorical": False,
            "possible_values": [],
        },
        {
            "name": "title",
            "description": "Title of the movie",
            "is_categorical": False,
            "possible_values": [],
        },
    ]
    return ServiceSchema.model_validate(
        {"service_name": name, "description": description, "slots": slots, "intents": intents}
    )


async def test_services_taking_the_same_values_are_told_apart_by_their_descriptions() -> None:
    """Among services scored within ``service_margin`` whose intents take the same values,
    the one whose descriptions (its own and its intents') hold more of the user's words wins,
    whichever the scorer put first: "rent a comedy" goes to the service that rents movies."""
    two = Schemas(
        [
            _movie_service("Browse", "Discover new movies", None),
            _movie_service("Rentals", "Movie rentals", "Rent a movie to watch"),
        ]
    )
    nlu = LearnedNLU(ComponentContext(schemas=two, backend=None))
    text = "I want to rent a comedy movie"
    context = TurnContext(two, [], {})
    browse, rentals = ("Browse", "FindMovies"), ("Rentals", "FindMovies")
    assert await service_for_values(nlu, text, context, ((1.0, browse), (0.5, rentals))) == rentals
    assert await service_for_values(nlu, text, context, ((1.0, rentals), (0.5, browse))) == rentals
    # no word of either's: the scorer's order stands
    plain = "a comedy please"
    assert await service_for_values(nlu, plain, context, ((1.0, browse), (0.5, rentals))) == browse


async def test_a_superlative_meets_its_base_in_a_description() -> None:
    """A superlative ("cheapest") speaks for the service of "cheap movies"; a word that is
    no comparative meets nothing more."""
    two = Schemas(
        [_movie_service("Plain", "Find movies", None), _movie_service("Low", "Cheap movies", None)]
    )
    nlu = LearnedNLU(ComponentContext(schemas=two, backend=None))
    context = TurnContext(two, [], {})
    plain, low = ("Plain", "FindMovies"), ("Low", "FindMovies")
    ranked = ((1.0, plain), (0.5, low))
    assert await service_for_values(nlu, "the cheapest comedy", context, ranked) == low
    assert await service_for_values(nlu, "the chapter of a comedy", context, ranked) == plain
    assert with_bases(frozenset({"cheapest", "biggest", "larger", "or"})) == {
        *("cheapest", "cheap", "cheape", "biggest", "bigg", "bigge", "big"),
        *("larger", "larg", "large", "or"),
    }


async def test_a_rival_service_counts_the_values_its_near_intents_take() -> None:
    """A rival service is read with its intents scored near its best: its search takes the
    genre its transaction, ranked first, does not; the chosen service's transaction takes
    nothing said."""
    two = Schemas(
        [
            _movie_service("Browse", "Discover new movies", "Watch a movie"),
            _movie_service("Rentals", "Movie rentals", "Rent a movie to watch"),
        ]
    )

    class Backend:  # the genres both services list
        async def entity_values(self, service: str) -> dict[str, list[str]]:
            return {"genre": ["Comedy", "Drama"]}

    nlu = LearnedNLU(ComponentContext(schemas=two, backend=Backend()))  # type: ignore[arg-type]
    context = TurnContext(two, [], {})
    ranked = ((1.0, ("Rentals", "Act")), (0.5, ("Browse", "Act")), (0.4, ("Browse", "FindMovies")))
    assert await service_for_values(nlu, "a comedy please", context, ranked) == ("Browse", "Act")
    # ... unless the chosen service's own words are said and its near intents take as many
    both = ((1.0, ("Rentals", "Act")), (0.9, ("Rentals", "FindMovies")), *ranked[1:])
    said = "a comedy to rent please"
    assert await service_for_values(nlu, said, context, both) == ("Rentals", "Act")


def test_thresholds_are_one_typed_object_saved_with_the_model() -> None:
    derived = Thresholds.of({"thresholds": {"assign": 0.3, "slots": 0.4}})
    assert (derived.sure_assign, derived.sure_pick, derived.ask_floor) == (0.3, 0.5, 0.4)
    with pytest.raises(DataError, match="modle"):
        Thresholds.of({"thresholds": {"modle": 0.3}})
    assert load_model().thresholds.said_flag == 0.02  # a default the shipped file lacks


async def test_a_word_naming_the_chosen_service_keeps_it_against_more_values() -> None:
    """ "whats on my calendar for monday", the calendar held out of training: the events'
    ticket search read the date, the calendar's reader did not, and the turn went to the
    events. A word of the chosen service's descriptions that few services' hold ("hotel",
    "calendar"), with none of the rival's said, keeps the chosen service."""
    root = embedded_services_dir()
    two = Schemas(
        x for n in ("Hotels", "Restaurants") for x in load_schema_file(root / n / "schema.json")
    )
    nlu = LearnedNLU(ComponentContext(schemas=two, backend=None))
    context = TurnContext(two, [], {})
    hotels, restaurants = ("Hotels", "SearchHotel"), ("Restaurants", "FindRestaurants")
    ranked = ((1.0, hotels), (0.5, restaurants))
    said = "a hotel in boston near italian food"
    assert await service_for_values(nlu, said, context, ranked) == hotels
    assert await service_for_values(nlu, "in boston, italian food", context, ranked) == restaurants


def test_a_word_that_is_the_rivals_value_does_not_keep_the_chosen_service() -> None:
    """ "hey whats my checking balance": "checking" is a word of the calendar's descriptions
    ("checking availability") and an account type the bank lists."""
    from types import SimpleNamespace

    from tod_runtime.nlu.learned.routing import _own_word

    parts = SimpleNamespace(
        described={"Calendar": {"checking", "calendar"}, "Bank": {"bank", "balance"}},
        own_words={"checking", "calendar", "bank", "balance"},
        value_words={"Calendar": frozenset(), "Bank": frozenset({"checking", "savings"})},
    )
    assert _own_word(parts, {"calendar", "monday"}, "Calendar", "Bank")  # type: ignore[arg-type]
    assert not _own_word(parts, {"checking", "amount"}, "Calendar", "Bank")  # type: ignore[arg-type]
    assert not _own_word(parts, {"calendar", "balance"}, "Calendar", "Bank")  # type: ignore[arg-type]
