"""The rules policy, driven by the schema."""

from __future__ import annotations

from stage_helpers import SERVICE, a, schemas, system, user

from tod_runtime.dialogue.context import PolicyInput, SystemPlan, TurnContext
from tod_runtime.dialogue.models import Frame, ServiceCall, State, Turn
from tod_runtime.plugins import ComponentContext
from tod_runtime.policy import lookup
from tod_runtime.policy.rules import RulesPolicy, count_of

POLICY = RulesPolicy(ComponentContext(schemas=schemas(), backend=None))


async def decide(
    state: State, acts: list[object], history: list[Turn] | None = None, **second: object
) -> SystemPlan:
    context = TurnContext(POLICY.schemas, history or [], {SERVICE: state})
    turn = PolicyInput(context, {SERVICE: acts}, SERVICE, **second)  # type: ignore[arg-type, dict-item]
    return await POLICY.decide(turn)


def kinds(plan: SystemPlan) -> list[str]:
    return [f"{x.act}({x.slot})" for x in plan.actions]


async def test_requests_missing_required_slots() -> None:
    plan = await decide(
        State(active_intent="ReserveCafe"), [a("INFORM_INTENT", "intent", "ReserveCafe")]
    )
    assert kinds(plan) == ["REQUEST(cafe_name)"]  # one at a time, as SGD mostly does


async def test_searches_then_offers_with_a_count() -> None:
    state = State(active_intent="FindCafes", slot_values={"city": ["Oslo"]})
    plan = await decide(state, [a("INFORM", "city", "Oslo")])
    assert plan.service_call == ServiceCall(method="FindCafes", parameters={"city": "Oslo"})
    rows = [{"cafe_name": "Grind", "city": "Oslo", "phone": "5"}]
    offered = await decide(state, [], service_call=plan.service_call, service_results=rows)
    assert kinds(offered) == ["OFFER(cafe_name)", "INFORM_COUNT(count)"]


async def test_a_search_asked_about_offers_its_result_with_what_was_asked() -> None:
    """ "whats their rating?" answering "do you want a doctor or a restaurant?": the search
    runs, and the result offered comes with the answer."""
    state = State(
        active_intent="FindCafes", slot_values={"city": ["Oslo"]}, requested_slots=["phone"]
    )
    plan = await decide(state, [a("INFORM", "city", "Oslo"), a("REQUEST", "phone")])
    rows = [{"cafe_name": "Grind", "city": "Oslo", "phone": "5"}]
    offered = await decide(state, [], service_call=plan.service_call, service_results=rows)
    assert kinds(offered) == ["OFFER(cafe_name)", "INFORM(phone)", "INFORM_COUNT(count)"]


def test_one_result_that_names_nothing_is_said_without_a_count() -> None:
    """ "I found 1 option for you. The balance is $6,175.85." says nothing with its count."""
    cafes = POLICY.schemas[SERVICE]
    search = cafes.intent("FindCafes")
    one = [{"cafe_name": "Grind", "city": "Oslo"}]
    assert [str(x) for x in count_of(one, search, cafes)] == ["INFORM_COUNT(count=1)"]
    assert count_of(one * 2, search, cafes)  # several: counted
    nameless = search.model_copy(update={"result_slots": ["city", "phone"]}) if search else None
    assert count_of(one, nameless, cafes) == []
    assert count_of(one * 2, nameless, cafes)


def test_a_lookup_names_what_it_found_by_its_name_slot() -> None:
    """The answer to a question beside the task names the result by the slot that names it
    (the cafe), not by the first slot found (its phone)."""
    cafes = POLICY.schemas[SERVICE]
    search = cafes.intent("FindCafes")
    assert search is not None
    phone_first = search.model_copy(update={"result_slots": ["city", "phone", "cafe_name"]})
    schema = cafes.model_copy(update={"intents": [phone_first]})
    row = {"city": "Oslo", "phone": "5", "cafe_name": "Grind"}
    assert [str(x) for x in lookup.naming(schema, "FindCafes", row)] == ["OFFER(cafe_name=Grind)"]


async def test_confirms_then_calls_with_canonical_values_then_notifies() -> None:
    state = State(
        active_intent="ReserveCafe",
        slot_values={"cafe_name": ["Grind"], "city": ["Oslo"], "time": ["5 pm"]},
    )
    said = [user(a("INFORM", "time", "5 pm", canonical=("17:00",)))]
    confirm = await decide(state, [a("INFORM", "cafe_name", "Grind")], said)
    assert kinds(confirm) == [
        "CONFIRM(cafe_name)", "CONFIRM(city)", "CONFIRM(time)", "CONFIRM(party_size)"
    ]  # fmt: skip
    history = [*said, system(*confirm.actions)]
    plan = await decide(state, [a("AFFIRM")], history)
    assert plan.service_call is not None
    assert plan.service_call.parameters == {
        "cafe_name": "Grind", "city": "Oslo", "time": "17:00", "party_size": "2"
    }  # fmt: skip
    ok = await decide(state, [a("AFFIRM")], history, service_call=plan.service_call,
                      service_results=[{"cafe_name": "Grind"}])  # fmt: skip
    assert kinds(ok) == ["NOTIFY_SUCCESS()", "NOTIFY_SUCCESS(cafe_name)"]  # what was booked
    assert ok.actions[1].values == ["Grind"]
    failed = await decide(state, [a("AFFIRM")], history, service_call=plan.service_call,
                          service_results=[])  # fmt: skip
    assert kinds(failed) == ["NOTIFY_FAILURE()", "REQUEST(time)"]  # a detail to change


async def test_a_yes_that_changes_a_confirmed_detail_confirms_again() -> None:
    """ "ok, 3 of us though" to a confirmation for 2: confirmed again, not booked; a yes
    that says a confirmed value again ("yes, at 5pm" for 17:00) books."""
    state = State(
        active_intent="ReserveCafe",
        slot_values={"cafe_name": ["Grind"], "city": ["Oslo"], "time": ["5 pm"]},
    )
    said = [user(a("INFORM", "time", "5 pm", canonical=("17:00",)))]
    confirm = await decide(state, [a("INFORM", "cafe_name", "Grind")], said)
    history = [*said, system(*confirm.actions)]
    more = state.model_copy(update={"slot_values": {**state.slot_values, "party_size": ["3"]}})
    again = await decide(more, [a("AFFIRM"), a("INFORM", "party_size", "3")], history)
    assert again.service_call is None and "CONFIRM(party_size)" in kinds(again)
    same = [a("AFFIRM"), a("INFORM", "time", "5pm", canonical=("17:00",))]
    assert (await decide(state, same, history)).service_call is not None


def searched_cafes() -> Turn:
    """A system turn that searched cafes in Oslo (two found) and offered the first."""
    rows = [{"cafe_name": "Grind", "phone": "555-1"}, {"cafe_name": "Bean", "phone": "555-2"}]
    return Turn(
        speaker="SYSTEM",
        utterance="...",
        frames=[
            Frame(
                service=SERVICE,
                actions=[a("OFFER", "cafe_name", "Grind")],
                service_call=ServiceCall(method="FindCafes", parameters={"city": "Oslo"}),
                service_results=rows,
            )
        ],
    )


async def test_answers_requests_from_the_offered_entity_and_offers_alternatives() -> None:
    state = State(
        active_intent="FindCafes", slot_values={"city": ["Oslo"]}, requested_slots=["phone"]
    )
    searched = searched_cafes()
    plan = await decide(state, [a("REQUEST", "phone")], [searched])
    assert [(x.act, x.values) for x in plan.actions] == [("INFORM", ["555-1"])]
    alts = await decide(
        state.model_copy(update={"requested_slots": []}), [a("REQUEST_ALTS")], [searched]
    )
    assert [(x.act, x.values) for x in alts.actions] == [("OFFER", ["Bean"])]


async def test_another_when_none_is_left_is_said_as_nothing_found_not_as_a_failure() -> None:
    """Both results were offered and the user asks for another: the search found nothing
    more, said as a search without results is (with the constraint to relax), not with
    NOTIFY_FAILURE, which a service words as a refused booking."""
    state = State(active_intent="FindCafes", slot_values={"city": ["Oslo"]})
    history = [searched_cafes(), user(a("REQUEST_ALTS")), system(a("OFFER", "cafe_name", "Bean"))]
    plan = await decide(state, [a("REQUEST_ALTS")], history)
    assert kinds(plan) == ["INFORM_COUNT(count)", "REQUEST(city)"]


async def test_goodbye_and_nothing_understood() -> None:
    state = State(active_intent="FindCafes", slot_values={"city": ["Oslo"]})
    assert kinds(await decide(state, [a("THANK_YOU"), a("GOODBYE")])) == ["GOODBYE()"]
    context = TurnContext(POLICY.schemas, [system(a("REQUEST", "city"))], {SERVICE: state})
    again = await POLICY.decide(PolicyInput(context, {}, SERVICE))
    assert kinds(again) == ["FALLBACK()", "REQUEST(city)"]  # "sorry", then the question again


async def test_a_name_the_user_does_not_give_when_asked_is_looked_up() -> None:
    state = State(active_intent="ReserveCafe", slot_values={"time": ["5 pm"]})
    asked = [system(a("REQUEST", "cafe_name"))]
    first = await decide(state, [a("INFORM", "time", "5 pm")])
    assert kinds(first) == ["REQUEST(cafe_name)"]
    # Still no name: the search intent that returns it asks for its own missing slot...
    assert kinds(await decide(state, [a("INFORM", "time", "5 pm")], asked)) == ["REQUEST(city)"]
    # ...and searches once it has what it needs, so there is something to offer.
    state.slot_values["city"] = ["Oslo"]
    asked += [user(a("INFORM", "time", "5 pm")), system(a("REQUEST", "city"))]
    plan = await decide(state, [a("INFORM", "city", "Oslo")], asked)
    assert plan.service_call == ServiceCall(method="FindCafes", parameters={"city": "Oslo"})


async def test_a_question_while_confirming_is_answered_then_the_confirmation_repeated() -> None:
    rows = [{"cafe_name": "Grind", "city": "Oslo", "phone": "555"}]
    search = system(a("OFFER", "cafe_name", "Grind"), a("INFORM_COUNT", "count", "1"))
    search.frames[0].service_call = ServiceCall(method="FindCafes", parameters={"city": "Oslo"})
    search.frames[0].service_results = rows
    state = State(
        active_intent="ReserveCafe",
        slot_values={"cafe_name": ["Grind"], "city": ["Oslo"], "time": ["5 pm"]},
        requested_slots=["phone"],
    )
    confirming = system(a("CONFIRM", "cafe_name", "Grind"))
    plan = await decide(state, [a("REQUEST", "phone")], [search, confirming])
    assert kinds(plan)[:2] == ["INFORM(phone)", "CONFIRM(cafe_name)"]


def test_an_offer_names_what_the_search_found_even_when_no_transaction_needs_it() -> None:
    """A car rental's booking needs the pickup place, not the car's name, but the user must hear
    which car was found: the search's first result slot that is not one of its inputs."""
    from tod_runtime.policy.rules import offer

    schema = schemas()[SERVICE]
    reserve = schema.intent_map["ReserveCafe"]
    reserve.required_slots[reserve.required_slots.index("cafe_name")] = "phone"  # not the name
    entity = {"city": "Oslo", "cafe_name": "Kaffebrenneriet", "has_wifi": "True", "phone": "1"}
    state = State(active_intent="FindCafes", slot_values={"city": ["Oslo"]})
    offered = [x.slot for x in offer(entity, schema, state)]
    assert offered == ["cafe_name", "phone"]


def test_an_offer_names_the_entity_the_user_left_open() -> None:
    """ "Any cafe": the name a booking needs was left open, and the offer says it first (it
    offered only the other details before), then what it said before."""
    from tod_runtime.policy.rules import offer

    schema = schemas()[SERVICE]
    entity = {"city": "Oslo", "cafe_name": "Grind", "has_wifi": "True", "phone": "1"}
    state = State(
        active_intent="ReserveCafe", slot_values={"city": ["Oslo"], "cafe_name": ["dontcare"]}
    )
    assert [x.slot for x in offer(entity, schema, state)][0] == "cafe_name"
    state.slot_values["cafe_name"] = ["Grind"]
    assert "cafe_name" not in [x.slot for x in offer(entity, schema, state)]


async def test_what_a_name_was_looked_up_with_answers_questions_about_its_entities() -> None:
    """The transaction still lacks the name (the user never gave one) and the search that
    looked it up offered an entity: a question about it is answered and another one offered,
    rather than the same search and offer again."""
    looked_up = searched_cafes()
    history = [system(a("REQUEST", "cafe_name")), user(a("INFORM", "city", "Oslo")), looked_up]
    state = State(
        active_intent="ReserveCafe", slot_values={"city": ["Oslo"]}, requested_slots=["phone"]
    )
    plan = await decide(state, [a("REQUEST", "phone")], history)
    assert [(x.act, x.values) for x in plan.actions] == [("INFORM", ["555-1"])]
    state.requested_slots = []
    alts = await decide(state, [a("REQUEST_ALTS")], history)
    assert ("OFFER", ["555-2"]) in [(x.act, x.values) for x in alts.actions]  # the next one


async def test_any_name_for_a_booking_is_looked_up_first() -> None:
    """ "Any cafe is fine" cannot be booked: the search that finds cafes picks one first."""
    state = State(
        active_intent="ReserveCafe",
        slot_values={"cafe_name": ["dontcare"], "city": ["Oslo"], "time": ["5 pm"]},
    )
    asked = [system(a("REQUEST", "cafe_name"))]
    plan = await decide(state, [a("INFORM", "cafe_name", "dontcare")], asked)
    assert plan.service_call == ServiceCall(method="FindCafes", parameters={"city": "Oslo"})


async def test_going_on_with_a_looked_up_name_without_saying_it_books_it() -> None:
    """The name was looked up and one offered; the user gives the booking's details (or its
    intent again) without naming it: that entity is confirmed, rather than the same search
    and offer again. A changed search constraint searches again."""
    history = [system(a("REQUEST", "cafe_name")), user(a("INFORM", "city", "Oslo"))]
    history.append(searched_cafes())
    state = State(active_intent="ReserveCafe", slot_values={"city": ["Oslo"], "time": ["5 pm"]})
    plan = await decide(state, [a("INFORM", "time", "5 pm")], history)
    assert ("CONFIRM", "cafe_name", ["Grind"]) in [(x.act, x.slot, x.values) for x in plan.actions]
    elsewhere = State(active_intent="ReserveCafe", slot_values={"city": ["Bergen"]})
    again = await decide(elsewhere, [a("INFORM", "city", "Bergen")], history)
    assert again.service_call == ServiceCall(method="FindCafes", parameters={"city": "Bergen"})
    turned_down = await decide(state, [a("REQUEST_ALTS")], history)
    assert ("OFFER", ["Bean"]) in [(x.act, x.values) for x in turned_down.actions]


async def test_a_booked_task_changed_without_booking_again_is_not_understood() -> None:
    """Just booked, and the user seems to change a detail without a word of booking again:
    no SGD user does, so it is a misreading (of a new task, most often), not a new booking
    to confirm; after a failed booking a new detail is confirmed as usual."""
    params = {"cafe_name": "Grind", "time": "17:00"}
    booked = system(a("NOTIFY_SUCCESS"))
    booked.frames[0].service_call = ServiceCall(method="ReserveCafe", parameters=params)
    booked.frames[0].service_results = [params]
    values = {"cafe_name": ["Grind"], "city": ["Oslo"], "time": ["18:00"]}
    state = State(active_intent="ReserveCafe", slot_values=values)
    plan = await decide(state, [a("INFORM", "time", "18:00")], [booked])
    assert kinds(plan)[0] == "FALLBACK(intent)"
    refused = system(a("NOTIFY_FAILURE"))
    refused.frames[0].service_call = ServiceCall(method="ReserveCafe", parameters=params)
    plan = await decide(state, [a("INFORM", "time", "18:00")], [refused])
    assert "CONFIRM(time)" in kinds(plan)


def _two_cafes_grind_offered() -> Turn:
    """A search of Oslo's cafes that found Grind (phone 111) and Blue Basil (222), Grind
    offered."""
    search = ServiceCall(method="FindCafes", parameters={"city": "Oslo"})
    rows = [
        {"cafe_name": "Grind", "city": "Oslo", "phone": "111"},
        {"cafe_name": "Blue Basil", "city": "Oslo", "phone": "222"},
    ]
    frame = Frame(
        service=SERVICE,
        actions=[a("OFFER", "cafe_name", "Grind")],
        service_call=search,
        service_results=rows,
    )
    return Turn(speaker="SYSTEM", utterance="...", frames=[frame])


async def test_a_question_about_another_result_is_answered_from_it_before_the_next_request() -> (
    None
):
    # Grind on offer; "is blue basil in the list? what is its phone?" while booking
    found = _two_cafes_grind_offered()
    state = State(
        active_intent="ReserveCafe",
        requested_slots=["phone"],
        slot_values={"city": ["Oslo"], "cafe_name": ["Blue Basil"]},
    )
    acts = [a("REQUEST", "phone"), a("INFORM", "cafe_name", "Blue Basil")]
    plan = await decide(state, acts, [found])
    assert [str(x) for x in plan.actions] == ["INFORM(phone=222)", "REQUEST(time)"]


async def test_a_value_the_search_returns_but_does_not_take_offers_the_result_holding_it() -> None:
    found = _two_cafes_grind_offered()
    state = State(
        active_intent="FindCafes",
        slot_values={"city": ["Oslo"], "phone": ["222"]},
    )
    plan = await decide(state, [a("INFORM", "phone", "222")], [found])
    assert [str(x) for x in plan.actions][:2] == ["OFFER(phone=222)", "OFFER(cafe_name=Blue Basil)"]
    none = state.model_copy(update={"slot_values": {**state.slot_values, "phone": ["999"]}})
    plan = await decide(none, [a("INFORM", "phone", "999")], [found])
    assert "OFFER(phone=999)" not in [str(x) for x in plan.actions]


async def test_a_required_category_the_entities_imply_is_not_asked() -> None:
    """ "are there any baseball games in phoenix?": every event the backend holds whose
    category is Baseball is a sport, so the search runs with the event type rather than
    asking "What kind of events?" (SGD's Events with the events held out of training)."""
    from datetime import date

    from tod_runtime.dialogue.history import History
    from tod_runtime.policy.rules import implied
    from tod_runtime.schema.models import ServiceSchema

    text = {"is_categorical": False, "possible_values": []}
    kind = {"name": "kind", "description": "Type of event", "is_categorical": True,
            "possible_values": ["Music", "Sports"]}  # fmt: skip
    schema = ServiceSchema.model_validate(
        {
            "service_name": "Events",
            "description": "Events",
            "slots": [
                kind,
                {"name": "sub", "description": "Category"} | text,
                {"name": "city", "description": "City"} | text,
            ],  # fmt: skip
            "intents": [
                {
                    "name": "FindEvents",
                    "description": "Find events",
                    "is_transactional": False,
                    "required_slots": ["kind", "city"],
                    "optional_slots": {"sub": "dontcare"},
                    "result_slots": [],
                }
            ],  # fmt: skip
        }
    )
    rows = [
        {"kind": "Sports", "sub": "Baseball", "city": "Phoenix"},
        {"kind": "Sports", "sub": "Baseball", "city": "Denver"},
        {"kind": "Music", "sub": "Pop", "city": "Phoenix"},
        {"kind": "Sports", "sub": "Pop", "city": "Denver"},  # a Pop match: pop is no sport
    ]

    class Backend:
        async def call(self, service: str, call: ServiceCall) -> list[dict[str, str]]:
            return [r for r in rows if all(r[k] == v for k, v in call.parameters.items())]

    async def kind_of(values: dict[str, list[str]]) -> list[str] | None:
        state = State(active_intent="FindEvents", slot_values=values)
        out = await implied(Backend(), "Events", schema, state, History(), [], date(2019, 3, 1))  # type: ignore[arg-type]
        return out.slot_values.get("kind")

    assert await kind_of({"sub": ["Baseball"], "city": ["Phoenix"]}) == ["Sports"]
    assert await kind_of({"sub": ["Pop"], "city": ["Phoenix"]}) is None  # music and sport
    assert await kind_of({"city": ["Phoenix"]}) is None  # nothing narrowed the search
    assert await kind_of({"sub": ["Baseball"], "kind": ["Music"]}) == ["Music"]  # said stands
