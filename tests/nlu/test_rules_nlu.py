"""The rules NLU on a small schema with a stub backend."""

from __future__ import annotations

import pytest
from stage_helpers import SERVICE, a, schemas, system

from tod_runtime.dialogue.context import TurnContext
from tod_runtime.dialogue.models import State, Turn
from tod_runtime.nlu.rules import RulesNLU
from tod_runtime.plugins import ComponentContext


class StubBackend:
    async def entity_values(self, service: str) -> dict[str, list[str]]:
        return {"cafe_name": ["Bean There", "Grind"], "city": ["Oslo", "Bergen", "San Jose"]}


@pytest.fixture
def nlu() -> RulesNLU:
    return RulesNLU(ComponentContext(schemas=schemas(), backend=StubBackend()))


async def parse(nlu: RulesNLU, text: str, *history: Turn, intent: str | None = None) -> list[str]:
    state = {SERVICE: State(active_intent=intent)} if intent else {}
    acts = await nlu.parse(text, TurnContext(nlu.schemas, list(history), state))
    return [str(x) for x in acts.get(SERVICE, [])]


async def test_intent_and_values(nlu: RulesNLU) -> None:
    assert await parse(nlu, "I want to find a cafe in San Jose") == [
        "INFORM_INTENT(intent=FindCafes)", "INFORM(city=San Jose)"
    ]  # fmt: skip
    assert "INFORM_INTENT(intent=ReserveCafe)" in await parse(
        nlu, "please reserve a table at Grind"
    )


async def test_times_numbers_and_booleans(nlu: RulesNLU) -> None:
    acts = await nlu.parse(
        "at 7:30 pm for three people with wifi",
        TurnContext(nlu.schemas, [system(a("REQUEST", "time"))], {SERVICE: State()}),
    )
    found = {x.slot: (x.values, x.canonical_values) for x in acts[SERVICE]}
    assert found["time"] == (["7:30 pm"], ["19:30"])
    assert found["party_size"] == (["three"], ["3"])
    assert found["has_wifi"] == (["True"], ["True"])


async def test_answers_to_the_system(nlu: RulesNLU) -> None:
    confirm = system(a("CONFIRM", "city", "Oslo"))
    assert await parse(nlu, "yes, that's right", confirm, intent="ReserveCafe") == ["AFFIRM()"]
    assert await parse(nlu, "no", confirm, intent="ReserveCafe") == ["NEGATE()"]
    offer = system(a("OFFER", "cafe_name", "Grind"))
    assert await parse(nlu, "sounds good", offer, intent="FindCafes") == ["SELECT()"]
    assert await parse(nlu, "anything else?", offer, intent="FindCafes") == ["REQUEST_ALTS()"]
    # "what about X?" after an offer asks for another, even as it names a task
    assert "SELECT()" in await parse(nlu, "book it", offer, intent="FindCafes")
    assert "SELECT()" not in await parse(
        nlu, "what about Brew, book it?", offer, intent="FindCafes"
    )
    offer_intent = system(a("OFFER_INTENT", "intent", "ReserveCafe"))
    assert (await parse(nlu, "no thanks", offer_intent, intent="FindCafes"))[0] == "NEGATE_INTENT()"
    asked = system(a("REQUEST", "city"))
    found = await nlu.parse("in Bergenn", TurnContext(nlu.schemas, [asked], {SERVICE: State()}))
    assert [(x.values, x.canonical_values) for x in found[SERVICE]] == [(["Bergenn"], ["Bergen"])]
    assert await parse(
        nlu, "anything is fine", system(a("REQUEST", "has_wifi")), intent="FindCafes"
    ) == ["INFORM(has_wifi=dontcare)"]


async def test_requests_thanks_and_goodbye(nlu: RulesNLU) -> None:
    acts = await parse(nlu, "what is their phone number?", intent="FindCafes")
    assert acts == ["REQUEST(phone)"]
    assert await parse(nlu, "thanks, bye", system(a("REQ_MORE")), intent="FindCafes") == [
        "THANK_YOU()", "GOODBYE()"
    ]  # fmt: skip
    for thanks in ("cheers", "much appreciated", "ty!"):
        assert await parse(nlu, thanks, system(a("REQ_MORE")), intent="FindCafes") == [
            "THANK_YOU()"
        ]


async def test_that_s_it_answering_a_confirmation_is_no_goodbye(nlu: RulesNLU) -> None:
    confirm = system(a("CONFIRM", "city", "Oslo"))
    assert await parse(nlu, "Yes, that's it.", confirm, intent="ReserveCafe") == ["AFFIRM()"]
    assert await parse(nlu, "yes that's all correct", confirm, intent="ReserveCafe") == ["AFFIRM()"]
    done = await parse(nlu, "no, that's it, thanks", system(a("REQ_MORE")), intent="FindCafes")
    assert "GOODBYE()" in done


async def test_nothing_understood_is_empty(nlu: RulesNLU) -> None:
    assert await nlu.parse("hmm", TurnContext(nlu.schemas, [], {})) == {}


async def test_a_time_the_system_did_not_ask_for_still_fills_the_only_time_slot(
    nlu: RulesNLU,
) -> None:
    asked_name = system(a("REQUEST", "cafe_name"))
    acts = await parse(nlu, "at 7 pm for 3 people", asked_name, intent="ReserveCafe")
    assert "INFORM(time=7 pm)" in acts


async def test_not_knowing_an_asked_slot_is_dontcare(nlu: RulesNLU) -> None:
    asked = system(a("REQUEST", "city"))
    assert await parse(nlu, "I don't know", asked, intent="FindCafes") == ["INFORM(city=dontcare)"]


async def test_the_number_before_the_slot_word_wins(nlu: RulesNLU) -> None:
    acts = await parse(nlu, "that one works, for 3 people", intent="ReserveCafe")
    assert "INFORM(party_size=3)" in acts


async def test_declining_for_now_is_a_no(nlu: RulesNLU) -> None:
    """As SGD train's users decline an offered intent or "anything else?"."""
    offer_intent = system(a("OFFER_INTENT", "intent", "ReserveCafe"))
    for said in ("Not right now.", "Not now, thanks.", "Maybe later.", "Not at the moment."):
        acts = await parse(nlu, said, offer_intent, intent="FindCafes")
        assert acts[:1] == ["NEGATE_INTENT()"], said
    more = system(a("REQ_MORE"))
    assert (await parse(nlu, "Nothing, thanks.", more, intent="FindCafes"))[0] == "NEGATE()"
    assert await parse(nlu, "Sure, now please.", offer_intent, intent="FindCafes") == [
        "AFFIRM_INTENT()"
    ]


async def test_the_transactions_verb_said_of_it_at_a_confirmation_is_a_yes(nlu: RulesNLU) -> None:
    """ "that will do, book it" to "Please confirm: ..."; "dont book it" typed casually is a
    no."""
    confirm = system(a("CONFIRM", "name", "Blue Bottle"))
    for said, answer in [
        ("that will do, book it", "AFFIRM()"),
        ("book it", "AFFIRM()"),
        ("confirm", "AFFIRM()"),
        ("dont book it", "NEGATE()"),
        ("hold off, don't buy that", "NEGATE()"),
    ]:
        acts = await parse(nlu, said, confirm, intent="ReserveCafe")
        assert acts[:1] == [answer], said
