"""The pass rule of conversation scripts (tod_runtime.conversations.judge)."""

from __future__ import annotations

from pathlib import Path

from tod_runtime.conversations.judge import (
    AnsweredTurn,
    entity_under_discussion,
    judge,
    same_value,
    states_value,
)
from tod_runtime.conversations.script import parse_script
from tod_runtime.dialogue.models import ServiceCall

SCRIPT = parse_script(
    Path("t.txt"),
    "# goal\n# expect: Reserve(name=*, city=Boston, seats=4, time=19:00)\n"
    "find food in boston\nwhats the address\n# reply-has: address\nbook 4 at 7pm\nyes\n",
)
ROWS = (
    {"name": "Royal Bistro", "address": "1 Elm Street", "city": "Boston"},
    {"name": "Blue Basil", "address": "9 Oak Road", "city": "Boston"},
)


def _search(reply: str = "How about Blue Basil?") -> AnsweredTurn:
    call = ServiceCall(method="Find", parameters={"city": "boston"})
    return AnsweredTurn("find food in boston", reply, "R", call, ROWS)


def _book(seats: str = "4", results: bool = True, time: str = "19:00") -> AnsweredTurn:
    params = {"name": "Blue Basil", "city": "boston", "seats": seats, "time": time}
    rows = ({**params},) if results else ()
    return AnsweredTurn(
        "yes", "Booked.", "R", ServiceCall(method="Reserve", parameters=params), rows, True
    )


def _turns(book: AnsweredTurn, address_reply: str = "It is at 9 Oak Road.") -> list[AnsweredTurn]:
    return [
        _search(),
        AnsweredTurn("whats the address", address_reply),
        AnsweredTurn("book", "Confirm?"),
        book,
    ]


def test_passes_when_every_rule_holds() -> None:
    assert judge(SCRIPT, _turns(_book())) == []


def test_an_expected_call_that_returned_nothing_fails() -> None:
    failures = judge(SCRIPT, _turns(_book(results=False)))
    assert len(failures) == 1 and "returned nothing" in failures[0]


def test_a_booking_with_a_wrong_detail_fails_twice() -> None:
    failures = judge(SCRIPT, _turns(_book(time="07:30")))
    assert any("not made" in f for f in failures)
    assert any("unwanted booking" in f for f in failures)


def test_reply_has_reads_the_entity_under_discussion() -> None:
    failures = judge(SCRIPT, _turns(_book(), address_reply="It is at 1 Elm Street."))
    assert failures and "address" in failures[0]


def test_entity_is_the_newest_named_one() -> None:
    replies = ["How about Royal Bistro?", "Another is Blue Basil."]
    assert entity_under_discussion(ROWS, replies) == ROWS[1]
    assert entity_under_discussion(ROWS, ["What time?"]) == ROWS[0]


def test_values_compare_case_and_number_insensitively() -> None:
    assert same_value("San Jose", "san jose") and same_value("4", "4.0") and same_value("*", "x")
    assert not same_value("4", "5")


def test_times_and_amounts_as_people_say_them() -> None:
    assert states_value("Your table is at 7 pm.", "19:00")
    assert states_value("at 7:30 pm tonight", "19:30")
    assert states_value("It costs $1,630 in all", "1630")
    assert states_value("It costs 1630 dollars", "$1,630")
    assert not states_value("at 7:30 am", "19:30")
    assert not states_value("room 14", "4")
