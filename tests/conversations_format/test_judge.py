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
from tod_runtime.conversations.script import Script, parse_script
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


def test_an_expected_call_made_that_found_nothing_says_so_beside_another_that_found() -> None:
    refused = _book(results=False)
    turns = [_search(), AnsweredTurn("x", "y"), _book(seats="2"), refused]
    failures = judge(SCRIPT, turns)
    assert any("Reserve(" in f and "returned nothing" in f for f in failures), failures


def test_a_booking_with_a_wrong_detail_fails_twice() -> None:
    failures = judge(SCRIPT, _turns(_book(time="07:30")))
    assert any("not made" in f for f in failures)
    assert any("unwanted booking" in f for f in failures)


def test_reply_has_reads_the_entity_under_discussion() -> None:
    failures = judge(SCRIPT, _turns(_book(), address_reply="It is at 1 Elm Street."))
    assert failures and "address" in failures[0]


def test_the_entity_the_users_line_names_is_under_discussion() -> None:
    # Blue Basil on offer; the user asks about Royal Bistro's address
    turns = _turns(_book(), address_reply="It is at 1 Elm Street.")
    turns[1] = AnsweredTurn("whats the address of royal bistro", "It is at 1 Elm Street.")
    assert judge(SCRIPT, turns) == []
    turns[1] = AnsweredTurn("whats the address of royal bistro", "It is at 9 Oak Road.")
    assert judge(SCRIPT, turns)


def test_entity_is_the_newest_named_one() -> None:
    replies = ["How about Royal Bistro?", "Another is Blue Basil."]
    assert entity_under_discussion(ROWS, replies) == ROWS[1]
    assert entity_under_discussion(ROWS, ["What time?"]) == ROWS[0]


def test_a_clock_time_names_a_row_its_names_do_not() -> None:
    """Buses that all leave Union Station: the offer's time tells which one is meant."""
    rows = (
        {"station": "Union Station", "time": "06:20", "city": "LA"},
        {"station": "Union Station", "time": "08:20", "city": "LA"},
        {"station": "Grand Central", "time": "08:20", "city": "LA"},
    )
    assert entity_under_discussion(rows, ["How about Union Station? It is 8:20 am."]) == rows[1]
    assert entity_under_discussion(rows, ["Union Station at 6:20 am?", "Okay."]) == rows[0]
    assert entity_under_discussion(rows, ["Grand Central? 8:20 am."]) == rows[2]


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


# ------------------------------------------------------------ tod-runtime's own directives


def _own(body: str) -> Script:
    return parse_script(Path("own.txt"), f"# goal\n{body}")


def test_expect_empty_needs_a_matching_call_that_found_nothing() -> None:
    script = _own("# expect-empty: Reserve(seats=4)\nbook 4\n")
    refused = _book(results=False)
    assert judge(script, [refused]) == []
    failures = judge(_own("# expect-empty: Reserve(seats=8)\nbook 8\n"), [refused])
    assert len(failures) == 1 and "Reserve(seats=8) returning nothing not made" in failures[0]
    found = _search()
    failures = judge(_own("# expect-empty: Find(city=Boston)\nfood\n"), [found])
    assert len(failures) == 1 and "returning nothing" in failures[0]


def test_reply_contains_reads_the_reply_to_its_own_line() -> None:
    script = _own("find food\n# reply-contains: how ABOUT   blue\nthanks\n")
    assert judge(script, [_search(), AnsweredTurn("thanks", "Bye.")]) == []
    late = [AnsweredTurn("find food", "Which city?"), _search()]
    failures = judge(script, late)
    assert len(failures) == 1 and "does not contain 'how ABOUT   blue'" in failures[0]


def test_reply_has_another_wants_a_result_other_than_the_one_discussed() -> None:
    script = _own("find food\nanything else?\n# reply-has-another: name\n")
    other = AnsweredTurn("anything else?", "How about Royal Bistro?")
    assert judge(script, [_search(), other]) == []
    same = AnsweredTurn("anything else?", "Blue Basil is still my pick.")
    failures = judge(script, [_search(), same])
    assert len(failures) == 1 and "states no other result's name" in failures[0]
    # a new search that finds the same entity again is not another one
    again = AnsweredTurn("anything else?", "How about Blue Basil?", "R", _search().call, ROWS)
    assert judge(script, [_search(), again])
