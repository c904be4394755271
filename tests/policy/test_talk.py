"""The conversation around the tasks: greeting, fallback, no results, a refused booking."""

from __future__ import annotations

from stage_helpers import SERVICE, a, schemas, system

from tod_runtime.dialogue.context import PolicyInput, SystemPlan, TurnContext
from tod_runtime.dialogue.models import Action, Frame, ServiceCall, State, Turn
from tod_runtime.dialogue.refusal import Refusal, refusal_of
from tod_runtime.nlg.template import TemplateGenerator
from tod_runtime.plugins import ComponentContext
from tod_runtime.policy.learned.policy import LearnedPolicy
from tod_runtime.policy.rules import RulesPolicy
from tod_runtime.policy.talk import (
    OPTIONS_LISTED,
    brief_confirmation,
    first_tasks,
    offering_options,
    with_options,
)

CTX = ComponentContext(schemas=schemas(), backend=None)  # type: ignore[arg-type]
POLICY = RulesPolicy(CTX)
NLG = TemplateGenerator(CTX)


async def decide(
    state: dict[str, State], acts: dict[str, list[object]], history: list[Turn] | None = None,
    **second: object,
) -> SystemPlan:  # fmt: skip
    context = TurnContext(POLICY.schemas, history or [], state)
    active = next(reversed(list(acts)), None) if acts else None
    turn = PolicyInput(context, acts, active, **second)  # type: ignore[arg-type]
    return await POLICY.decide(turn)


def kinds(plan: SystemPlan) -> list[str]:
    return [f"{x.act}({x.slot})" for x in plan.actions]


async def test_nothing_understood_at_the_start_is_greeted_with_what_the_system_can_do() -> None:
    plan = await decide({}, {})
    assert kinds(plan) == ["GREETING(intent)"]
    assert plan.actions[0].canonical_values == ["FindCafes", "ReserveCafe"]
    text = NLG.realise(plan.service, plan.actions)
    assert text == "Hello! I can help you find a cafe and reserve a table at a cafe."


async def test_nothing_understood_later_without_a_task_says_sorry_and_what_it_can_do() -> None:
    plan = await decide({}, {}, [system(a("GOODBYE"))])
    assert kinds(plan) == ["FALLBACK(intent)"]
    text = NLG.realise(plan.service, plan.actions)
    assert text.startswith("Sorry, I did not get that. I can help you find a cafe")


async def test_nothing_understood_while_an_offer_is_open_repeats_only_the_question() -> None:
    state = {SERVICE: State(active_intent="FindCafes", slot_values={"city": ["Oslo"]})}
    said = system(a("OFFER", "cafe_name", "Grind"), a("INFORM_COUNT", "count", "2"))
    plan = await decide(state, {}, [said])
    assert kinds(plan) == ["FALLBACK()", "OFFER(cafe_name)"]


async def test_nothing_understood_after_an_answer_about_the_offer_offers_the_next_step() -> None:
    """ "ok i want to go see it" after "is it furnished?" was answered: no question is open,
    but a result is on offer; the booking it leads to is offered, not every service."""
    from tod_runtime.dialogue.history import History
    from tod_runtime.policy.talk import next_step

    state = {SERVICE: State(active_intent="FindCafes", slot_values={"city": ["Oslo"]})}
    rows = [{"cafe_name": "Grind", "phone": "555-1"}]
    searched = system(a("OFFER", "cafe_name", "Grind"))
    searched.frames[0].service_call = ServiceCall(method="FindCafes", parameters={"city": "Oslo"})
    searched.frames[0].service_results = rows
    answered = system(a("INFORM", "phone", "555-1"))
    plan = await decide(state, {}, [searched, answered])
    assert kinds(plan) == ["FALLBACK()", "OFFER_INTENT(intent)"]
    text = NLG.realise(plan.service, plan.actions)
    assert text.startswith("Sorry, I did not get that.") and "reserve" in text
    cafes = POLICY.schemas[SERVICE]
    history = History([searched, answered])
    assert next_step(cafes, state[SERVICE], History([answered])) == []  # nothing offered yet
    booking = State(active_intent="ReserveCafe")
    assert next_step(cafes, booking, history) == []  # a booking leads to no booking


async def test_a_search_without_results_is_not_a_failed_booking() -> None:
    state = State(active_intent="FindCafes", slot_values={"city": ["Oslo"], "has_wifi": ["True"]})
    call = ServiceCall(method="FindCafes", parameters={"city": "Oslo", "has_wifi": "True"})
    acts = {SERVICE: [a("INFORM", "has_wifi", "True")]}
    plan = await decide({SERVICE: state}, acts, service_call=call, service_results=[])
    assert kinds(plan) == ["INFORM_COUNT(count)", "REQUEST(has_wifi)"]  # relax the wifi
    assert plan.actions[0].values == ["0"]
    assert "NOTIFY_FAILURE" not in kinds(plan)
    only_city = State(active_intent="FindCafes", slot_values={"city": ["Oslo"]})
    plan = await decide({SERVICE: only_city}, acts, service_call=call, service_results=[])
    assert kinds(plan) == ["INFORM_COUNT(count)", "REQUEST(city)"]


async def test_a_refused_booking_offers_to_change_a_detail() -> None:
    state = State(
        active_intent="ReserveCafe",
        slot_values={"cafe_name": ["Grind"], "city": ["Oslo"], "time": ["17:00"]},
    )
    call = ServiceCall(method="ReserveCafe", parameters={"cafe_name": "Grind", "time": "17:00"})
    plan = await decide(
        {SERVICE: state}, {SERVICE: [a("AFFIRM")]}, service_call=call, service_results=[]
    )
    assert kinds(plan) == ["NOTIFY_FAILURE()", "REQUEST(time)"]


async def test_a_bare_no_to_a_confirmation_asks_what_to_change_in_both_policies() -> None:
    state = State(
        active_intent="ReserveCafe",
        slot_values={"cafe_name": ["Grind"], "city": ["Oslo"], "time": ["17:00"]},
    )
    confirm = system(
        a("CONFIRM", "cafe_name", "Grind"), a("CONFIRM", "time", "17:00"),
        a("CONFIRM", "party_size", "2"),
    )  # fmt: skip
    context = TurnContext(POLICY.schemas, [confirm], {SERVICE: state})
    for policy in (POLICY, LearnedPolicy(CTX)):
        no = await policy.decide(PolicyInput(context, {SERVICE: [a("NEGATE")]}, SERVICE))
        assert kinds(no) == ["REQUEST(cafe_name)", "REQUEST(time)", "REQUEST(party_size)"]
        # each proposes its confirmed value, so the tracker keeps what the user does not change
        assert [x.values for x in no.actions] == [["Grind"], ["17:00"], ["2"]]
        # a "no" that says what to change is not asked again; it is confirmed anew
        changed = [a("NEGATE"), a("INFORM", "time", "18:00")]
        later = State(
            active_intent="ReserveCafe", slot_values={**state.slot_values, "time": ["18:00"]}
        )
        moved = TurnContext(POLICY.schemas, [confirm], {SERVICE: later})
        plan = await policy.decide(PolicyInput(moved, {SERVICE: changed}, SERVICE))
        assert "CONFIRM(time)" in kinds(plan) or plan.service_call is not None
        assert not [k for k in kinds(plan) if k.startswith("REQUEST")]
        # the answer naming one detail and no new value ("the time, please"): its new value
        asked = TurnContext(POLICY.schemas, [confirm, system(*no.actions)], {SERVICE: state})
        named = await policy.decide(PolicyInput(asked, {SERVICE: [a("REQUEST", "time")]}, SERVICE))
        assert kinds(named) == ["REQUEST(time)"] and named.actions[0].values == []


async def test_a_bare_yes_to_anything_else_asks_what_in_both_policies() -> None:
    state = State(active_intent="ReserveCafe", slot_values={"cafe_name": ["Grind"]})
    context = TurnContext(POLICY.schemas, [system(a("REQ_MORE"))], {SERVICE: state})
    for policy in (POLICY, LearnedPolicy(CTX)):
        plan = await policy.decide(PolicyInput(context, {SERVICE: [a("AFFIRM")]}, SERVICE))
        assert kinds(plan) == ["REQ_MORE(intent)"]
        assert plan.actions[0].canonical_values == ["FindCafes", "ReserveCafe"]
        text = NLG.realise(plan.service, plan.actions)
        assert text == (
            "What can I help you with? I can help you find a cafe and reserve a table at a cafe."
        )
        # "yes, and a table for 4" says what: not asked again
        more = [a("AFFIRM"), a("INFORM", "party_size", "4")]
        plan = await policy.decide(PolicyInput(context, {SERVICE: more}, SERVICE))
        assert "REQ_MORE(intent)" not in kinds(plan)


async def test_a_search_still_without_results_asks_about_another_constraint() -> None:
    """Asked about a constraint after finding nothing, the user kept it: the next search
    finds nothing again, and the system asks about the one before it (round the list)."""
    values = {"city": ["Oslo"], "has_wifi": ["True"]}
    state = State(active_intent="FindCafes", slot_values=values)
    call = ServiceCall(method="FindCafes", parameters={"city": "Oslo", "has_wifi": "True"})
    acts = {SERVICE: [a("INFORM", "has_wifi", "True")]}
    asked = [system(a("INFORM_COUNT", "count", "0"), a("REQUEST", "has_wifi"))]
    plan = await decide({SERVICE: state}, acts, asked, service_call=call, service_results=[])
    assert kinds(plan) == ["INFORM_COUNT(count)", "REQUEST(city)"]
    asked = [system(a("INFORM_COUNT", "count", "0"), a("REQUEST", "city"))]
    plan = await decide({SERVICE: state}, acts, asked, service_call=call, service_results=[])
    assert kinds(plan) == ["INFORM_COUNT(count)", "REQUEST(has_wifi)"]


async def test_a_question_for_a_name_not_understood_looks_one_up_in_both_policies() -> None:
    """ "Which cafe?" answered with nothing understood ("something cheap", "I don't know"): the
    user does not know one, so the search that finds it is made from what the state holds;
    without what that search needs, the fallback asks again."""
    state = State(active_intent="ReserveCafe", slot_values={"city": ["Oslo"], "time": ["17:00"]})
    asked = system(a("REQUEST", "cafe_name"))
    context = TurnContext(POLICY.schemas, [asked], {SERVICE: state})
    for policy in (POLICY, LearnedPolicy(CTX)):
        plan = await policy.decide(PolicyInput(context, {}, SERVICE))
        assert plan.service_call == ServiceCall(method="FindCafes", parameters={"city": "Oslo"})
        nowhere = State(active_intent="ReserveCafe", slot_values={"time": ["17:00"]})
        unknown = TurnContext(POLICY.schemas, [asked], {SERVICE: nowhere})
        plan = await policy.decide(PolicyInput(unknown, {}, SERVICE))
        assert plan.service_call is None
        assert kinds(plan)[0] in ("FALLBACK()", "REQUEST(city)")
        # the user goes on with what the lookup found ("ok, book it"): the booking is confirmed
        found = [{"cafe_name": "Grind", "city": "Oslo"}, {"cafe_name": "Brew", "city": "Oslo"}]
        call = ServiceCall(method="FindCafes", parameters={"city": "Oslo"})
        offered = Turn(
            speaker="SYSTEM",
            utterance="How about Grind?",
            frames=[
                Frame(
                    service=SERVICE,
                    actions=[a("OFFER", "cafe_name", "Grind"), a("INFORM_COUNT", "count", "2")],
                    service_call=call,
                    service_results=found,
                )
            ],
        )
        chosen = State(
            active_intent="ReserveCafe",
            slot_values={"city": ["Oslo"], "time": ["17:00"], "cafe_name": ["Grind"]},
        )
        going = TurnContext(POLICY.schemas, [asked, offered], {SERVICE: chosen})
        plan = await policy.decide(PolicyInput(going, {SERVICE: [a("SELECT")]}, SERVICE))
        assert {"CONFIRM(cafe_name)", "CONFIRM(time)"} <= set(kinds(plan))
        # a question for a detail no search finds is asked again, as before
        timed = TurnContext(POLICY.schemas, [system(a("REQUEST", "time"))], {SERVICE: nowhere})
        plan = await policy.decide(PolicyInput(timed, {}, SERVICE))
        assert kinds(plan) == ["FALLBACK()", "REQUEST(time)"]


async def test_after_sorry_or_nothing_found_a_question_proposes_the_values_known() -> None:
    """The question asked after "Sorry, I did not get that" or "I found nothing" proposes the
    values the service knows of its slot ("I'd like sushi": the cuisines; a city with no
    cinema: the cities with one): a categorical slot's possible values, else the backend's;
    not for a yes/no or a number, nor for more values than are listed, nor a turn asking
    two questions, nor any other turn."""
    cafes = schemas()[SERVICE]
    sorry = [a("FALLBACK"), a("REQUEST", "city")]
    known = {"city": ["Oslo", "Bergen"]}
    assert [(x.act, x.slot, x.values) for x in with_options(sorry, cafes, known)] == [
        ("FALLBACK", "", []),
        ("REQUEST", "city", ["Oslo", "Bergen"]),
    ]
    nothing = [a("INFORM_COUNT", "count", "0"), a("REQUEST", "city")]
    assert with_options(nothing, cafes, known)[1].values == ["Oslo", "Bergen"]
    for slot in ("has_wifi", "party_size"):  # a yes/no, a number (categorical): as asked
        assert with_options([a("FALLBACK"), a("REQUEST", slot)], cafes, {})[1].values == []
    many = {"city": [f"Town {n}" for n in range(OPTIONS_LISTED + 1)]}
    assert with_options(sorry, cafes, many)[1].values == []
    two = [a("FALLBACK"), a("REQUEST", "city"), a("REQUEST", "cafe_name")]
    assert all(not x.values for x in with_options(two, cafes, known))  # not "what to change"
    assert with_options([a("REQUEST", "city")], cafes, known)[0].values == []  # first asked

    class Known:
        async def entity_values(self, service: str) -> dict[str, list[str]]:
            return known

    plan = SystemPlan(SERVICE, sorry)
    offered = await offering_options(plan, {SERVICE: cafes}, Known())  # type: ignore[arg-type]
    assert offered.actions[1].values == ["Oslo", "Bergen"]
    text = NLG.realise(SERVICE, offered.actions)
    assert text.startswith("Sorry, I did not get that.") and "Oslo or Bergen" in text


async def test_after_nothing_found_the_question_proposes_what_the_other_constraints_find() -> None:
    """No cafe with wifi in Oslo: the question for the city proposes the cities where the
    search finds one with wifi (the backend asked without the city), the city tried left
    out, even a single one; without such results, the values the service knows."""
    cafes = schemas()[SERVICE]
    search = ServiceCall(method="FindCafes", parameters={"city": "Oslo", "has_wifi": "True"})
    known = {"city": ["Oslo", "Bergen", "Tromsø"]}

    class Backend:
        def __init__(self, rows: list[dict[str, str]]) -> None:
            self.rows = rows
            self.calls: list[ServiceCall] = []

        async def entity_values(self, service: str) -> dict[str, list[str]]:
            return known

        async def call(self, service: str, call: ServiceCall) -> list[dict[str, str]]:
            self.calls.append(call)
            return self.rows

    async def proposed(backend: Backend, *acts: Action) -> list[str]:
        plan = SystemPlan(SERVICE, list(acts))
        offered = await offering_options(plan, {SERVICE: cafes}, backend, search)  # type: ignore[arg-type]
        return offered.actions[1].values

    nothing = (a("INFORM_COUNT", "count", "0"), a("REQUEST", "city"))
    backend = Backend([{"city": "Bergen"}, {"city": "Oslo"}, {"city": "Bergen"}, {"city": "Alta"}])
    assert await proposed(backend, *nothing) == ["Bergen", "Alta"]
    assert backend.calls == [ServiceCall(method="FindCafes", parameters={"has_wifi": "True"})]
    assert await proposed(Backend([{"city": "Alta"}]), *nothing) == ["Alta"]
    assert await proposed(Backend([]), *nothing) == known["city"]

    class Refusing(Backend):
        async def call(self, service: str, call: ServiceCall) -> list[dict[str, str]]:
            raise RuntimeError("city is required")

    assert await proposed(Refusing([]), *nothing) == known["city"]  # the turn goes on
    unasked = Backend([{"city": "Alta"}])  # "Sorry, I did not get that": not after a search
    assert await proposed(unasked, a("FALLBACK"), a("REQUEST", "city")) == known["city"]
    assert unasked.calls == []


async def test_a_refusal_with_a_reason_is_said_and_asks_for_the_slot_that_broke_it() -> None:
    """Both policies: "They can take at most 4 ... How many?", not another detail."""
    state = State(
        active_intent="ReserveCafe",
        slot_values={"cafe_name": ["Grind"], "city": ["Oslo"], "time": ["17:00"],
                     "party_size": ["6"]},
    )  # fmt: skip
    params = {"cafe_name": "Grind", "city": "Oslo", "time": "17:00", "party_size": "6"}
    call = ServiceCall(method="ReserveCafe", parameters=params)
    refusal = Refusal(slot="party_size", reason="at_most", limit="4")
    context = TurnContext(POLICY.schemas, [], {SERVICE: state})
    for policy in (POLICY, LearnedPolicy(CTX)):
        turn = PolicyInput(context, {SERVICE: [a("AFFIRM")]}, SERVICE, call, [], refusal)
        plan = await policy.decide(turn)
        assert kinds(plan) == ["NOTIFY_FAILURE(party_size)", "REQUEST(party_size)"]
        assert refusal_of(plan.actions[0]) == refusal
        text = NLG.realise(plan.service, plan.actions)
        assert text.startswith("Sorry, they can take at most 4 ")


def test_a_confirmation_asked_again_in_brief_names_what_is_booked() -> None:
    acts = [
        a("INFORM", "street_address", "1 Elm St"),
        a("CONFIRM", "city", "Boston"),
        a("CONFIRM", "restaurant_name", "Mamma Mia"),
        a("CONFIRM", "time", "19:00"),
    ]
    assert brief_confirmation(acts, None) == acts[:1] + acts[2:3]
    assert brief_confirmation(acts[:2], None) == acts[:2]  # one confirmation is brief already


async def test_what_else_names_a_few_things_the_services_first_intents_first() -> None:
    """A bare "yes" to "anything else?" over SGD's 40 services had listed all 70 intents."""
    from tod_runtime.config import embedded_services_dir
    from tod_runtime.schema import Schemas, load_schema_file

    root = embedded_services_dir()
    names = ("Restaurants", "Hotels", "Movies")
    services = Schemas(s for n in names for s in load_schema_file(root / n / "schema.json"))
    firsts = [services[n].intents[0].name for n in names]
    assert first_tasks(services)[1] == firsts
    assert first_tasks(services, 4)[1] == [*firsts, services["Restaurants"].intents[1].name]
    sister = services["Hotels"].model_copy(update={"service_name": "Hotels2"})
    with_sister = Schemas([services["Restaurants"], services["Hotels"], sister, services["Movies"]])
    assert first_tasks(with_sister)[1] == firsts  # one "SearchHotel", not two
    context = TurnContext(services, [system(a("REQ_MORE"), service="Hotels")], {})
    policy = RulesPolicy(ComponentContext(schemas=services, backend=None))  # type: ignore[arg-type]
    plan = await policy.decide(PolicyInput(context, {"Hotels": [a("AFFIRM")]}, "Hotels"))
    assert kinds(plan) == ["REQ_MORE(intent)"] and plan.actions[0].canonical_values == firsts
