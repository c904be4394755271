"""The template miner, ``tod train nlg``, user-side realisation and the slot error metric."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from conftest import FIXTURES
from stage_helpers import SERVICE, a, schemas

from tod_runtime.cli import main
from tod_runtime.metrics.acts import slot_error_details, slot_errors
from tod_runtime.nlg.mine import KeyStats, Mined, MineSettings, corpus_choice, mine_frame
from tod_runtime.nlg.store import read_side
from tod_runtime.nlg.user import realise_user, user_realiser

MINI = FIXTURES / "sgd_mini"


def mine(utterance: str, *acts: object, spans: tuple[tuple[str, int, int], ...] = ()) -> Mined:
    mined = Mined()
    schema = schemas()[SERVICE]
    mine_frame(mined, SERVICE, schema, utterance, list(acts), list(spans))  # type: ignore[arg-type]
    return mined


def test_an_utterance_is_delexicalised_by_spans_and_value_matching() -> None:
    text = "How about Bean There in Oslo? It has two seats."
    mined = mine(
        text,
        a("OFFER", "cafe_name", "Bean There"),
        a("OFFER", "city", "Oslo"),
        a("INFORM", "party_size", "2"),
        spans=(("cafe_name", 10, 20),),
    )
    services, generic = mined.tables(MineSettings(min_count=1))
    key = "INFORM(party_size) OFFER(cafe_name) OFFER(city)"
    assert services[SERVICE][key] == [
        ("How about {cafe_name} in {city}? It has {party_size} seats.", 1)
    ]
    # generically, slots are named by what they are: the heads of their descriptions
    assert generic == {
        "INFORM(number) OFFER(city) OFFER(name)": [
            ("How about {name} in {city}? It has {number} seats.", 1)
        ]
    }


@pytest.mark.parametrize(
    ("utterance", "reason"),
    [
        ("How about Bean There?", "value not found"),  # the template would drop Oslo
        ("How about Bean There in Oslo? 4 stars.", "invents a number"),
        ("How about {Bean There} in Oslo?", "braces"),
    ],
)
def test_templates_that_drop_or_invent_a_value_are_rejected(utterance: str, reason: str) -> None:
    mined = mine(utterance, a("OFFER", "cafe_name", "Bean There"), a("OFFER", "city", "Oslo"))
    assert mined.kept == 0 and mined.rejected == {reason: 1}


def test_booleans_are_keyed_by_value_not_placeholders() -> None:
    mined = mine("Sadly they have no wifi.", a("INFORM", "has_wifi", "False"))
    services, generic = mined.tables(MineSettings(min_count=1))
    assert services[SERVICE] == {"INFORM(has_wifi=False)": [("Sadly they have no wifi.", 1)]}
    assert list(generic) == ["INFORM(bool=False)"]


def test_generic_templates_written_for_several_services_go_first() -> None:
    mined = Mined()
    schema = schemas()[SERVICE]
    for service, text in [("A_1", "Anything else?"), ("B_1", "Anything else?"), ("A_1", "More?")]:
        for _ in range(3 if text == "More?" else 1):
            mine_frame(mined, service, schema, text, [a("REQ_MORE")], [])
    _, generic = mined.tables(MineSettings(min_count=1))
    assert generic["REQ_MORE"] == [("Anything else?", 2)]


def test_tod_train_nlg_writes_editable_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "nlg"
    args = ["train", "nlg", str(MINI), "--split", "dev", "--out", str(out), "--cv", "1"]
    assert main([*args, "--holdout", "2"]) == 0
    report = json.loads((out / "nlg.json").read_text())
    assert report["holdout"]["turns"] > 0 and 0 <= report["holdout"]["bleu"] <= 100
    assert report["system"]["kept"] == report["system"]["turns"] - sum(
        report["system"]["rejected"].values()
    )
    assert report["cv"]["turns"] > 0 and 0 <= report["cv"]["slot_error_rate_mean"] <= 1
    system = read_side(out, "system")
    assert system.services[SERVICE]["NOTIFY_SUCCESS"][0][0] == "Your table is booked."
    assert (
        "CONFIRM(cafe_name) CONFIRM(city) CONFIRM(party_size) CONFIRM(time)"
        in (system.services[SERVICE])
    )
    assert SERVICE in system.profiles
    user = read_side(out, "user")
    assert any(k.startswith("INFORM(city) INFORM_INTENT") for k in user.services[SERVICE])
    capsys.readouterr()
    # an existing output needs --force
    assert main(["train", "nlg", str(MINI), "--split", "dev", "--out", str(out)]) == 5
    assert "--force" in capsys.readouterr().err
    assert main(["train", "nlg", str(MINI), "--split", "dev", "--out", str(out), "--force"]) == 0


def test_realise_user_uses_user_templates_and_composes_the_rest(tmp_path: Path) -> None:
    out = tmp_path / "nlg"
    assert main(["train", "nlg", str(MINI), "--split", "dev", "--out", str(out)]) == 0
    schema = schemas()[SERVICE]
    realiser = user_realiser(read_side(out, "user"))
    acts = [a("INFORM_INTENT", "intent", "FindCafes"), a("INFORM", "city", "Paris")]
    text = realise_user(acts, schema, random.Random(1), realiser)
    assert "Paris" in text and "Oslo" not in text
    composed = realise_user([a("REQUEST", "has_wifi")], schema, random.Random(1), realiser)
    assert composed.endswith("?")
    # the shipped user templates work for a service they never saw
    shipped = realise_user([a("INFORM", "city", "Paris")], schema, random.Random(2))
    assert "Paris" in shipped


def test_slot_errors_count_missing_and_invented_values() -> None:
    acts = [a("INFORM", "time", "14:30"), a("INFORM", "has_wifi", "True")]
    assert slot_errors(acts, "It is at 2:30 pm and they have wifi.") == (0, 1)
    assert slot_errors(acts, "It is at 14:30.") == (0, 1)
    assert slot_errors(acts, "They have wifi.") == (1, 1)
    assert slot_errors(acts, "It is at 2:30 pm for 4 people.") == (1, 1)
    # which values: missing, and numbers no value holds (scripts/ser_errors.py lists them)
    assert slot_error_details(acts, "They have wifi.") == (["14:30"], [], 1)
    assert slot_error_details(acts, "At 2:30 pm for 4 people.") == ([], ["4"], 1)


def test_a_key_leads_with_its_most_representative_template() -> None:
    """The best template of a key is the one most like all people wrote for it (its medoid),
    not merely the most frequent; only templates scoring nearly as well are kept as choices."""
    mined = Mined()
    schema = schemas()[SERVICE]
    written = {
        "Which city?": 5,
        "Which city would you like to go to?": 4,
        "What city would you like to go to?": 4,
        "Which city would you like to visit?": 3,
        "Tell me where.": 2,
    }
    for text, n in written.items():
        for _ in range(n):
            mine_frame(mined, SERVICE, schema, text, [a("REQUEST", "city")], [])
    services, _ = mined.tables(MineSettings())
    kept = [t for t, _ in services[SERVICE]["REQUEST(city)"]]
    assert kept[0] == "Which city would you like to go to?"
    assert "Tell me where." not in kept
    assert all(n == written[t] for t, n in services[SERVICE]["REQUEST(city)"])


def test_the_corpus_choice_takes_a_fuller_wording_where_people_say_more() -> None:
    """Each key's lead is chosen for the table's corpus BLEU: a short, exact wording loses to
    a longer one that shares most of people's words when people's replies are longer (the
    brevity penalty), and wins when they are not."""

    def key(reference_length: float) -> KeyStats:
        short = (("Which city?", 5), [4.0, 3.0, 2.0, 1.0, 4.0])  # matches n = 1..4, length
        long = (("Which city would you like to go to?", 4), [6.0, 5.0, 4.0, 3.0, 7.0])
        return KeyStats("REQUEST(city)", [short, long], 10, reference_length, 0)

    assert corpus_choice([key(8.0)], passes=3) == [1]
    assert corpus_choice([key(4.0)], passes=3) == [0]
    # a table too small to have a 4-gram keeps the per-key choice
    tiny = KeyStats("GOODBYE", [(("Bye.", 3), [2.0, 1.0, 0.0, 0.0, 2.0])], 3, 6.0, 0)
    assert corpus_choice([tiny], passes=3) == [0]
