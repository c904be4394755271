"""A refusal's reason said in one sentence, before the rest of the reply."""

from __future__ import annotations

import pytest
from stage_helpers import SERVICE, a, schemas

from tod_runtime.dialogue.models import act
from tod_runtime.dialogue.refusal import Refusal, refusal_act
from tod_runtime.nlg.template import TemplateGenerator
from tod_runtime.plugins import ComponentContext

NLG = TemplateGenerator(ComponentContext(schemas=schemas(), backend=None))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("refusal", "said"),
    [
        (Refusal(slot="party_size", reason="at_most", limit="4"), "at most 4 "),
        (Refusal(slot="party_size", reason="none_left", limit="0"), "Sorry, there are no "),
        (Refusal(slot="time", reason="closed", limit="22:00"), "Sorry, they close at 10 pm."),
        (Refusal(slot="time", reason="opens", limit="11:30"), "Sorry, they open at 11:30 am."),
        (Refusal(slot="has_wifi", reason="not_offered"), "Sorry, they do not offer that."),
        (Refusal(slot="time", reason="unreadable"), "Sorry, I could not read that time."),
        (Refusal(slot="cafe_name", reason="not_found"), "Sorry, I could not find one with"),
        (Refusal(slot="time", reason="missing"), "I still need the "),
    ],
)
async def test_the_reason_comes_first_then_the_question(refusal: Refusal, said: str) -> None:
    text = await NLG.generate(SERVICE, [refusal_act(refusal), act("REQUEST", refusal.slot)])
    first, _, rest = text.partition(". ")
    assert said in first + "."
    assert rest.endswith("?")  # the question for the slot follows
    assert "did not work" not in text


async def test_a_failure_without_a_reason_is_said_as_before() -> None:
    plain = await NLG.generate(SERVICE, [a("NOTIFY_FAILURE"), a("REQUEST", "time")])
    assert "close" not in plain and "at most" not in plain and plain.endswith("?")
