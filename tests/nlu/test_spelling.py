"""Typo repair before the learned NLU's scorers."""

from __future__ import annotations

from pathlib import Path

from stage_helpers import SERVICE, schemas

from tod_runtime.nlu.learned.spelling import Speller, read_vocabulary, service_words

COUNTS = {"hotel": 900, "boston": 40, "weather": 1200, "whether": 300, "either": 80, "mark": 60}


def test_a_lower_case_typo_becomes_the_frequent_word_one_edit_away() -> None:
    speller = Speller(COUNTS)
    assert speller.correct("i need a hotle in bostn") == "i need a hotel in boston"
    assert speller.correct("wether tomorrow?") == "weather tomorrow?"  # 4x as frequent


def test_a_weekday_or_month_two_edits_away_is_the_date_word() -> None:
    """ "wensday" is two edits from Wednesday and one from no word people use."""
    speller = Speller(COUNTS)
    assert speller.correct("am i free on wensday?") == "am i free on wednesday?"
    assert speller.correct("back on the 3rd of febuary") == "back on the 3rd of february"
    assert speller.correct("a fridge") == "a fridge"  # ends in no "day"


def test_chat_shorthand_is_spelt_out() -> None:
    speller = Speller(COUNTS)
    assert speller.correct("book it for 3 tmrw at 7, pls") == "book it for 3 tomorrow at 7, please"
    assert speller.correct("next fri or thurs") == "next friday or thursday"
    assert (
        speller.correct("wed like a table, sat by the window")
        == "wed like a table, sat by the window"
    )
    assert speller.correct("Tmrw") == "Tmrw"  # capitalised: a name, perhaps


def test_contractions_typed_without_their_apostrophe_stay() -> None:
    """ "doesnt", "wont", "arent": English contractions, one edit from "doesn", "want" and
    "rent" (words SGD's talk holds), are words of their own."""
    speller = Speller({"doesn": 500, "want": 9000, "rent": 300, "isn": 200})
    text = "director doesnt matter, i wont need it, they arent open, isnt it?"
    assert speller.correct(text) == text
    assert speller.correct("i wnat a car") == "i want a car"  # a typo still is one


def test_a_plural_in_ies_of_a_one_word_value_is_the_value() -> None:
    speller = Speller(COUNTS, values={"comedy", "drama"})
    assert speller.correct("any comedies in sf") == "any comedy in sf"
    assert speller.correct("any movies in sf") == "any movies in sf"  # "movy" is no value


def test_known_capitalised_short_and_ambiguous_words_stay() -> None:
    speller = Speller(COUNTS | {"marek": 2, "whether": 500}, extra={"marko"})
    assert speller.correct("Marke") == "Marke"  # capitalised: a name as its owner spells it
    assert speller.correct("marko") == "marko"  # a word of the services
    assert speller.correct("hotl") == "hotel"
    assert speller.correct("htl") == "htl"  # too short to guess
    assert speller.correct("wether") == "wether"  # weather or whether: no clear winner


def test_service_words_come_from_descriptions_and_values() -> None:
    schema = schemas()[SERVICE]
    words = service_words(schema, {schema.slots[0].name: ["Zyxwv Road"]})
    assert "zyxwv" in words
    assert all(w in words for w in schema.slots[0].description.lower().split() if w.isalpha())


def test_the_shipped_vocabulary_is_sgd_trains_word_counts() -> None:
    vocabulary, talk = read_vocabulary()
    assert len(vocabulary) > 5000
    assert vocabulary["restaurant"] > vocabulary["restaurants"] > 100
    # and its talk column: how often outside the values the turns annotate
    assert talk.keys() == vocabulary.keys()
    assert vocabulary["marvel"] > 500 > 20 > talk["marvel"]  # only in "Captain Marvel"
    assert talk["find"] > 0.99 * vocabulary["find"]


def test_talk_counts_leave_out_the_annotated_values(tmp_path: Path) -> None:
    from tod_runtime.nlu.learned.spelling import _without_values

    turn = {"frames": [{"slots": [{"slot": "movie_name", "start": 9, "exclusive_end": 23}]}]}
    assert _without_values("i'd like captain marvel please", turn).split() == [
        "i'd", "like", "please"
    ]  # fmt: skip
    old = tmp_path / "vocabulary.txt"
    old.write_text("marvel\t574\n")  # a vocabulary written before the talk column
    assert read_vocabulary(old) == ({"marvel": 574}, {"marvel": 574})
