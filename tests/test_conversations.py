"""The conversation suite (tests/conversations/): files parse and name real services, the runner
checks what it should, and a ratchet on how many conversations pass."""

from __future__ import annotations

from pathlib import Path

import pytest
from conversations.suite import (
    ActSpec,
    Conversation,
    ConversationError,
    check,
    conversation_files,
    embedded_schemas,
    load_all,
    parse_conversation,
    run_conversation,
    run_suite,
    sgd_schemas,
    validate,
)

from tod_runtime import Action, Config, Runtime, ServiceCall, State, TurnResult

# Measured at the commit that added the suite (see docs/conversations.md). These may only go
# up: when a change makes more conversations pass, raise the number here in the same commit.
EMBEDDED_PASSING = 32  # 18 with the rules' value finder, 16 with the first learned reader,
# 18 with the name-free reader, typo repair and the 0.3 assign threshold (docs/conversations.md),
# 24 with the system's last move in the intent scorer and the value recognisers in the reader,
# 22 with SGD-X's rewordings in training (two first turns among the embedded services, "a
# hotel in new york with wifi" and "a comedy in San Francisco tonight", now open the wrong
# intent; dev JGA 0.7110 -> 0.7211 and two more SGD conversations pass: a trade kept on purpose),
# 23 when a question and a value on the same slot are told apart by what is on the table,
# 26 when the values read choose among the intents scored near (values and service margins);
# the two mid-task switches added with the switch (embedded_switch_to_*) fail, so 26 still;
# 27 when an intent opened with values prefers, among those taking as many, the one they
# leave fewest required slots missing (embedded_switch_to_movie_mid_booking); 29 with
# embedded_change_which_detail(_party), added with the answer to "what would you like to change?";
# 30 with embedded_showtime_after_offer ("what time is it showing?" about the offered film);
# 31 with embedded_movie_on_saturday (passed when added: a regression check); 32 with
# embedded_hotel_name_unknown ("Which hotel?" not understood: the system looks one up)
SGD_DEV_PASSING = 16  # 15 while the NLU was trained with the slot value types its SGD-X
# rewordings gain from descriptions and recorded values (2026-11-24, seventh stop): the return
# date in sgd_rental_car_change_of_mind, "actually, I'll return it on March 6th", went to the
# pick-up by 0.577 to 0.541; 16 again with shapes learned apart in lower-case turns and half
# the frames also learned in lower case (eighth stop), where it goes to the drop-off; 17 when
# the verb of a transaction said after an offer opens it (sgd_rent_comedy, "yes rent that one");
# 16 when the value scorers learn every dialogue in SGD's wording and in one rewording (ninth
# stop; dev JGA 0.7546 -> 0.7675, text simulation 0.893 / 0.887 -> 0.902 / 0.909): "wether in
# paris tomorow" reads the city "paris tomorrow" (sgd_weather_typos), a trade kept on purpose;
# 17 when spans are read by the best total, not the likeliest pair first ("paris" and
# "tomorrow" over "paris tomorrow"; tenth stop: no turn of train's held-out replay moves);
# 18 when a count the reader missed fills the intent's one number slot (sgd_party_of_five);
# 19 with sgd_hotel_then_weather, added with the mid-task switch (it passed without it);
# 16 when the SGD tables backend stopped relabelling rows recorded for another day or time
# (issue 39: a search returns only rows holding every constraint as recorded): dev's
# recordings hold no bus Sacramento-San Francisco on March 7th (sgd_bus_tickets), no car in
# Philadelphia at 14:30 on the 6th (sgd_rental_car_1430) and no forecast for Seattle on the
# 8th (sgd_weather_next_friday); each now finds nothing, as the service would

ALL = load_all()


def test_there_are_at_least_30_conversations_and_each_parses() -> None:
    assert len(conversation_files()) >= 30
    assert len(ALL) == len(conversation_files())
    assert {c.services for c in ALL} >= {"embedded", "sgd:dev"}
    for conversation in ALL:
        assert conversation.goal, conversation.name
        assert conversation.turns, conversation.name


@pytest.mark.parametrize("conversation", [c for c in ALL if c.split is None], ids=lambda c: c.name)
def test_embedded_conversations_name_real_services_slots_and_intents(
    conversation: Conversation,
) -> None:
    assert validate(conversation, embedded_schemas()) == []


def test_sgd_conversations_name_real_services_slots_and_intents(sgd_zip: Path) -> None:
    schemas = {}
    problems = {}
    for conversation in (c for c in ALL if c.split is not None):
        split = conversation.split
        assert split is not None
        if split not in schemas:
            schemas[split] = sgd_schemas(sgd_zip, split)
        found = validate(conversation, schemas[split])
        if found:
            problems[conversation.name] = found
    assert problems == {}


def test_validate_reports_unknown_names() -> None:
    text = """# a user asks for something that does not exist
services = "embedded"
turns = ["hi"]
[expect]
service_call = { method = "FlyToTheMoon", parameters = { x = "1" } }
no_service_call = { service = "Trains", method = "BookTrain" }
final_state = { service = "Restaurants", slot_values = { colour = "red" }, active_intent = "Dance" }
acts_include = ["WAVE", "INFORM(shoe_size)"]
distinct_offers = { planet = 2 }
"""
    problems = validate(parse_conversation(Path("bad.toml"), text), embedded_schemas())
    assert problems == [
        "service_call: no service has intent 'FlyToTheMoon'",
        "no_service_call: unknown service 'Trains'",
        "final_state: no slot 'colour'",
        "final_state: no intent 'Dance'",
        "acts: 'WAVE' is not a system act",
        "acts: no service has slot 'shoe_size'",
        "distinct_offers: no slot 'planet'",
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('services = "embedded"\nturns = ["hi"]\n[expect]\nacts_include = "OFFER"\n', "comment"),
        ('# x\nservices = "mars"\nturns = ["hi"]\n[expect]\nacts_include = "OFFER"\n', "services"),
        ('# x\nservices = "embedded"\nturns = []\n[expect]\nacts_include = "OFFER"\n', "turns"),
        ('# x\nservices = "embedded"\nturns = ["hi"]\n[expect]\nsmile = 1\n', "expect"),
        ('# x\nservices = "embedded"\nturns = ["hi"]\n', "expect"),
        ('# x\nservices = "embedded"\nturns = ["hi"\n', "invalid TOML"),
        (
            '# x\nservices = "embedded"\nturns = ["hi"]\n[expect]\nservice_call = { parameters = {} }\n',
            "needs method",
        ),
    ],
)
def test_a_broken_file_is_refused_with_its_name(text: str, message: str) -> None:
    with pytest.raises(ConversationError, match=message) as info:
        parse_conversation(Path("broken.toml"), text)
    assert str(info.value).startswith("broken.toml: ")


# --------------------------------------------------------------------------- the checks


def _turn(
    utterance: str,
    acts: list[Action] | None = None,
    call: ServiceCall | None = None,
    service: str = "Restaurants",
) -> TurnResult:
    return TurnResult(
        session_id="s", utterance=utterance, service=service, actions=acts or [], service_call=call
    )


def _expect(body: str) -> Conversation:
    return parse_conversation(
        Path("t.toml"), f'# a test\nservices = "embedded"\nturns = ["hi"]\n[expect]\n{body}'
    )


TURNS = [
    _turn(
        "How about Red Table?",
        [Action(act="OFFER", slot="restaurant_name", values=["Red Table"])],
        ServiceCall(method="FindRestaurants", parameters={"city": "Boston", "cuisine": "Indian"}),
    ),
    _turn(
        "How about Happy Table?",
        [Action(act="OFFER", slot="restaurant_name", values=["Happy Table"])],
    ),
    _turn(
        "Your table is booked.",
        [Action(act="NOTIFY_SUCCESS")],
        ServiceCall(
            method="ReserveRestaurant",
            parameters={"restaurant_name": "Happy Table", "time": "19:00"},
        ),
    ),
]
STATE = {
    "Restaurants": State(
        active_intent="ReserveRestaurant", slot_values={"city": ["Boston", "boston"]}
    )
}


@pytest.mark.parametrize(
    "body",
    [
        'service_call = { method = "FindRestaurants", parameters = { city = "boston" } }',
        'service_call = { service = "Restaurants", method = "ReserveRestaurant", parameters = { time = ["7 pm", "19:00"] } }',
        'service_call = [{ method = "FindRestaurants" }, { method = "ReserveRestaurant" }]',
        'no_service_call = { method = "ReserveRestaurant", parameters = { time = "20:00" } }',
        'final_state = { service = "Restaurants", slot_values = { city = "BOSTON" }, active_intent = "ReserveRestaurant" }',
        'reply_contains = ["happy table", "BOOKED"]',
        'acts_include = ["notify_success", "OFFER(restaurant_name)"]',
        'acts_exclude = ["NOTIFY_FAILURE", "INFORM(phone_number)"]',
        "distinct_offers = { restaurant_name = 2 }",
    ],
)
def test_check_passes_what_the_turns_did(body: str) -> None:
    assert check(_expect(body).expect, TURNS, STATE) == []


@pytest.mark.parametrize(
    ("body", "failure"),
    [
        (
            'service_call = { method = "FindRestaurants", parameters = { city = "Austin" } }',
            "no service call FindRestaurants(city=Austin)",
        ),
        (
            'service_call = { service = "Hotels", method = "FindRestaurants" }',
            "no service call Hotels.FindRestaurants()",
        ),
        (
            'service_call = { method = "ReserveRestaurant", parameters = { number_of_seats = "4" } }',
            "no service call ReserveRestaurant(number_of_seats=4)",
        ),
        (
            'no_service_call = { method = "ReserveRestaurant" }',
            "an unwanted service call ReserveRestaurant() was made",
        ),
        (
            'final_state = { service = "Restaurants", slot_values = { city = "Austin" } }',
            "final state Restaurants.city=['Boston', 'boston'] (wanted Austin)",
        ),
        ('final_state = { service = "Hotels" }', "final state has no frame for Hotels"),
        (
            'final_state = { service = "Restaurants", active_intent = "FindRestaurants" }',
            "final active intent ReserveRestaurant (wanted FindRestaurants)",
        ),
        ('reply_contains = "Sunny Pepper"', "no reply contains 'Sunny Pepper'"),
        ('acts_include = "INFORM(street_address)"', "the system never did INFORM(street_address)"),
        ('acts_exclude = "OFFER"', "the system did OFFER"),
        (
            "distinct_offers = { restaurant_name = 3 }",
            "2 distinct restaurant_name offered (wanted 3)",
        ),
    ],
)
def test_check_names_what_failed(body: str, failure: str) -> None:
    failures = check(_expect(body).expect, TURNS, STATE)
    assert len(failures) == 1 and failures[0].startswith(failure), failures


def test_act_spec_reads_an_act_with_or_without_a_slot() -> None:
    assert ActSpec.parse(" offer ( restaurant_name ) ") == ActSpec("OFFER", "restaurant_name")
    assert ActSpec.parse("GOODBYE") == ActSpec("GOODBYE")


# --------------------------------------------------------------------------- the runner

# The same lines as test_end_to_end's restaurant script: a case that passes today.
PASS_CASE = """# A user wants Italian food in Austin, one detail at a time.
services = "embedded"
turns = ["I want to find a restaurant", "in Austin", "Italian food please"]
[expect]
service_call = { method = "FindRestaurants", parameters = { city = "austin", cuisine = "Italian" } }
final_state = { service = "Restaurants", slot_values = { city = "Austin" } }
acts_include = "OFFER(restaurant_name)"
"""
FAIL_CASE = PASS_CASE.replace('city = "austin"', 'city = "Boston"') + 'reply_contains = "zzz"\n'


async def test_the_runner_passes_a_handwritten_pass_case_and_fails_a_fail_case() -> None:
    good = parse_conversation(Path("good.toml"), PASS_CASE)
    bad = parse_conversation(Path("bad.toml"), FAIL_CASE)
    async with Runtime(Config()) as runtime:
        passed = await run_conversation(runtime, good)
        failed = await run_conversation(runtime, bad)
    assert passed.passed and passed.failures == []
    assert [u for u, _ in passed.transcript] == list(good.turns)
    assert not failed.passed
    assert len(failed.failures) == 2
    assert failed.failures[0].startswith("no service call FindRestaurants(city=Boston")
    assert failed.failures[1] == "no reply contains 'zzz'"


async def test_sgd_conversations_are_skipped_without_the_data(tmp_path: Path) -> None:
    sgd = [c for c in ALL if c.split is not None][:1]
    outcomes = await run_suite(sgd, sgd_zip=tmp_path / "missing.zip")
    assert outcomes[0].skipped and not outcomes[0].passed


# --------------------------------------------------------------------------- the ratchet


async def test_ratchet_embedded_conversations_that_pass() -> None:
    outcomes = await run_suite([c for c in ALL if c.services == "embedded"])
    passing = sum(o.passed for o in outcomes)
    assert passing >= EMBEDDED_PASSING, [o.name for o in outcomes if not o.passed]


async def test_ratchet_sgd_dev_conversations_that_pass(sgd_zip: Path) -> None:
    outcomes = await run_suite([c for c in ALL if c.services == "sgd:dev"], sgd_zip=sgd_zip)
    assert not any(o.skipped for o in outcomes)
    passing = sum(o.passed for o in outcomes)
    assert passing >= SGD_DEV_PASSING, [o.name for o in outcomes if not o.passed]
