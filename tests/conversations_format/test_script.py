"""The conversation script format (tod_runtime.conversations.script)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tod_runtime.conversations.script import (
    ExpectedCall,
    ScriptError,
    parse_call,
    parse_script,
    script_files,
)

TEXT = """# A user books a table for 4.
# services: sgd:train
# today: 2019-03-01
# expect: ReserveRestaurant(restaurant_name=*, city=San Jose, party_size=4, time=19:00)
hi there
# a note, not a directive
whats the address?
# reply-has: street_address phone_number
book it
"""


def test_parses_directives_lines_and_reply_has() -> None:
    script = parse_script(Path("r1.txt"), TEXT)
    assert script.name == "r1"
    assert script.goal == "A user books a table for 4."
    assert script.services == "sgd:train"
    assert script.today == "2019-03-01"
    assert script.expects == (
        ExpectedCall(
            "ReserveRestaurant",
            (
                ("restaurant_name", "*"),
                ("city", "San Jose"),
                ("party_size", "4"),
                ("time", "19:00"),
            ),
        ),
    )
    assert [line.text for line in script.lines] == ["hi there", "whats the address?", "book it"]
    assert script.lines[1].reply_has == ("street_address", "phone_number")
    assert script.lines[0].reply_has == ()


def test_defaults_to_embedded_services() -> None:
    script = parse_script(Path("x.txt"), "# goal\nhello\n")
    assert script.services == "embedded" and script.today is None and script.expects == ()


def test_a_comma_inside_a_value_stays() -> None:
    call = parse_call("Send(receiver=Amy, message=hi, see you at 5, amount=3)")
    assert call.parameters == (
        ("receiver", "Amy"),
        ("message", "hi, see you at 5"),
        ("amount", "3"),
    )


@pytest.mark.parametrize(
    "text",
    [
        "# g\n# expect: Reserve(city)\nhi\n",
        "# g\n# expect: not a call\nhi\n",
        "# g\n# today: tomorrow\nhi\n",
        "# g\n# reply-has: phone\nhi\n",
        "# g\n# services: embedded\n",
        "# g\n# reply-contains: hello\nhi\n",
        "# g\n# reply-has-another: name\nhi\n",
        "# g\nhi\n# reply-has-another:\n",
        "# g\n# expect-empty: Find(city)\nhi\n",
    ],
)
def test_malformed_scripts_are_errors_with_the_line(text: str) -> None:
    with pytest.raises(ScriptError) as info:
        parse_script(Path("bad.txt"), text)
    assert "bad.txt" in str(info.value)


def test_script_files_expands_folders_in_natural_order(tmp_path: Path) -> None:
    for name in ("r10.txt", "r2.txt", "r1.txt", "notes.md"):
        (tmp_path / name).write_text("# g\nhi\n")
    assert [p.name for p in script_files([tmp_path])] == ["r1.txt", "r2.txt", "r10.txt"]
    with pytest.raises(ScriptError):
        script_files([tmp_path / "missing"])


OWN = """# A user wants food in San Jose, hears there is none, and another option elsewhere.
# expect-empty: FindRestaurants(city=San Jose)
# expect: FindRestaurants(city=Boston)
food in san jose
# reply-contains: found nothing
# reply-contains: Sorry
boston then
anything else?
# reply-has-another: restaurant_name
# reply-has: phone_number
"""


def test_reads_tod_runtimes_own_directives() -> None:
    script = parse_script(Path("own.txt"), OWN)
    assert script.goal.startswith("A user wants food in San Jose")
    assert script.expect_empty == (ExpectedCall("FindRestaurants", (("city", "San Jose"),)),)
    assert script.expects == (ExpectedCall("FindRestaurants", (("city", "Boston"),)),)
    first, second, third = script.lines
    assert first.reply_contains == ("found nothing", "Sorry") and first.reply_has == ()
    assert second.reply_contains == () and second.reply_another == ()
    assert third.reply_another == ("restaurant_name",) and third.reply_has == ("phone_number",)


def test_the_shared_formats_scripts_read_as_before() -> None:
    """A script with only the shared format's directives has none of the own ones."""
    script = parse_script(Path("r1.txt"), TEXT)
    assert script.expect_empty == ()
    assert all(not line.reply_contains and not line.reply_another for line in script.lines)
