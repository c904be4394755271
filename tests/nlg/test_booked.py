"""What a transaction did, said with its values (the policy's NOTIFY_SUCCESS(slot=value))."""

from __future__ import annotations

from stage_helpers import SERVICE, schemas

from tod_runtime.dialogue.models import act
from tod_runtime.nlg.booked import split_booked
from tod_runtime.nlg.template import TemplateGenerator
from tod_runtime.plugins import ComponentContext

NLG = TemplateGenerator(ComponentContext(schemas=schemas(), backend=None, options={}))
BOOKED = {"cafe_name": "Grind", "city": "Oslo", "time": "19:00", "party_size": "4"}


def _success(values: dict[str, str], *more: object) -> str:
    acts = [act("NOTIFY_SUCCESS"), *(act("NOTIFY_SUCCESS", s, [v]) for s, v in values.items())]
    return NLG.realise(SERVICE, [*more, *acts])  # type: ignore[list-item]


def test_the_success_says_what_was_booked_from_its_values() -> None:
    assert _success(BOOKED) == "I have reserved the table at Grind in Oslo for 4 people at 7 pm."
    assert _success(BOOKED | {"party_size": "1"}).endswith("for 1 person at 7 pm.")


def test_a_value_no_phrase_takes_is_said_as_a_fact_and_what_was_asked_follows() -> None:
    text = _success(BOOKED | {"phone": "555-0102"}, act("INFORM", "phone", ["555-0102"]))
    assert text.startswith("I have reserved the table at Grind in Oslo for 4 people at 7 pm. ")
    assert text.count("555-0102") == 2  # the booking's fact, then the answer to the question


def test_a_bare_success_keeps_its_wording_and_only_slotted_acts_are_booked() -> None:
    bare = [act("NOTIFY_SUCCESS")]
    assert split_booked(bare) == ([], bare)
    assert "Grind" not in NLG.realise(SERVICE, bare)
