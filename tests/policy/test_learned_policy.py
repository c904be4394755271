"""The learned policy: trained by `tod train policy`, blind to names, and registered."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from stage_helpers import SERVICE, a, schemas, system

from tod_runtime.backends.sgd_tables import SGD_REFERENCE_DATE
from tod_runtime.cli import main
from tod_runtime.data.rename import Renaming
from tod_runtime.data.sgd import open_split
from tod_runtime.dialogue.context import PolicyInput, TurnContext
from tod_runtime.dialogue.models import ServiceCall, State
from tod_runtime.plugins import ComponentContext
from tod_runtime.policy.learned.features import (
    BITS,
    Situation,
    candidates,
    hashed,
    strings,
    views,
)
from tod_runtime.policy.learned.model import PolicyModel, load_model
from tod_runtime.policy.learned.policy import LearnedPolicy, _expected_f1, decide
from tod_runtime.training.policy import dialogue_scores, fit_rows, points, service_weights

MINI = Path(__file__).parents[1] / "fixtures" / "sgd_mini"


def test_tod_train_policy_writes_a_model_that_imitates_its_data(tmp_path: Path) -> None:
    code = main(
        ["train", "policy", str(MINI), "--split", "dev", "--out", str(tmp_path), "--workers", "1"]
    )
    assert code == 0
    assert (tmp_path / "policy.json").is_file()
    model = load_model(str(tmp_path / "policy.npz"))
    assert model.weights.shape == (1 << model.bits,)
    split = open_split(MINI, "dev")
    f1s: list[float] = []
    calls: list[float] = []
    for dialogue in split.dialogues():
        f, c = dialogue_scores(dialogue, split.schemas(), model)
        f1s, calls = f1s + f, calls + c
    assert f1s and calls
    assert sum(f1s) / len(f1s) > 0.8  # it learned the few dialogues it saw
    assert sum(calls) / len(calls) == 1.0
    said = {
        tuple(sorted({x.act for x in turn.frames[0].actions}))
        for dialogue in split.dialogues()
        for turn in dialogue.turns
        if turn.speaker == "SYSTEM" and turn.frames
    }
    assert {tuple(kinds) for kinds in model.config["act_sets"]} == said


def test_an_existing_model_needs_force(tmp_path: Path) -> None:
    (tmp_path / "policy.npz").write_bytes(b"")
    args = ["train", "policy", str(MINI), "--split", "dev", "--out", str(tmp_path)]
    assert main(args) != 0


def test_features_do_not_depend_on_names() -> None:
    split = open_split(MINI, "dev")
    plain = split.schemas()
    renaming = Renaming.opaque(plain.values())
    renamed = {renaming.services[s]: renaming.schema(x) for s, x in plain.items()}

    def seen(dialogues: list[object], schemas: dict[str, object]) -> list[list[list[str]]]:
        out = []
        for dialogue in dialogues:
            for point in points(dialogue, schemas):  # type: ignore[arg-type]
                s = Situation.of(point.first, point.service, schemas[point.service])  # type: ignore[arg-type]
                v = views(s)
                out.append(sorted(strings(v, c) for c in candidates(v)))
        return out

    dialogues = list(split.dialogues())
    before = seen(dialogues, dict(plain))  # type: ignore[arg-type]
    after = seen([renaming.dialogue(d) for d in dialogues], renamed)  # type: ignore[arg-type]
    assert before == after
    assert before


async def test_the_shipped_model_runs_as_the_learned_policy() -> None:
    policy = LearnedPolicy(ComponentContext(schemas=schemas(), backend=None))  # type: ignore[arg-type]
    state = State(active_intent="FindCafes", slot_values={"city": ["Oslo"]})
    context = TurnContext(policy.schemas, [system(a("REQUEST", "city"))], {SERVICE: state})
    turn = PolicyInput(context, {SERVICE: [a("INFORM", "city", "Oslo")]}, SERVICE)
    plan = await policy.decide(turn)
    assert plan.service_call is not None  # all it needs is known: search
    assert plan.service_call.method == "FindCafes"
    assert plan.service_call.parameters == {"city": "Oslo"}
    greeting = await policy.decide(PolicyInput(TurnContext(policy.schemas, [], {}), {}, None))
    assert [x.act for x in greeting.actions] == ["GREETING"]


def test_a_search_with_results_offers_something_even_when_no_offer_is_over_threshold() -> None:
    schema = schemas()[SERVICE]
    state = State(active_intent="FindCafes", slot_values={"city": ["Oslo"]})
    context = TurnContext(schemas(), [system(a("REQUEST", "city"))], {SERVICE: state})
    call = ServiceCall(method="FindCafes", parameters={"city": "Oslo"})
    rows = [{"cafe_name": "Grind", "city": "Oslo"}, {"cafe_name": "Bean", "city": "Oslo"}]
    second = PolicyInput(context, {SERVICE: [a("INFORM", "city", "Oslo")]}, SERVICE, call, rows)
    weights = np.zeros(1 << BITS, dtype=np.float32)
    shy = list(hashed([f"OFFER|{c}" for c in views(Situation.of(second, SERVICE, schema)).common]))
    weights[shy] = -5.0  # no OFFER anywhere near the threshold; other acts at 0.5
    for floor, offers in ((0.0, 0), (0.5, 2)):
        model = PolicyModel(weights, {"offer_floor": floor})
        plan = decide(second, SERVICE, schema, model, SGD_REFERENCE_DATE)
        assert len([x for x in plan.actions if x.act == "OFFER"]) == offers
        assert {x.act for x in plan.actions} >= {"INFORM_COUNT"}
    booked = PolicyInput(context, {SERVICE: [a("AFFIRM")]}, SERVICE, call.model_copy(
        update={"method": "ReserveCafe"}), rows)  # fmt: skip
    plan = decide(booked, SERVICE, schema, PolicyModel(weights, {"offer_floor": 0.5}),
                  SGD_REFERENCE_DATE)  # fmt: skip
    assert not [x for x in plan.actions if x.act == "OFFER"]  # a booking offers nothing


def test_a_first_confirmation_names_every_value_of_the_call() -> None:
    schema = schemas()[SERVICE]
    values = {"cafe_name": ["Grind"], "city": ["Oslo"], "time": ["5 pm"]}
    state = State(active_intent="ReserveCafe", slot_values=values)
    context = TurnContext(schemas(), [system(a("REQUEST", "time"))], {SERVICE: state})
    turn = PolicyInput(context, {SERVICE: [a("INFORM", "time", "5 pm")]}, SERVICE)
    v = views(Situation.of(turn, SERVICE, schema))
    weights = np.zeros(1 << BITS, dtype=np.float32)
    others = {f for c in candidates(v) if c != ("CONFIRM", "time") for f in hashed(strings(v, c))}
    weights[list(others)] = -5.0  # only the CONFIRM of the time the user just gave is said
    weights[list(set(hashed(strings(v, ("CONFIRM", "time")))) - others)] = 20.0

    def confirmed(config: dict[str, object], history: list[object]) -> list[str]:
        ctx = TurnContext(schemas(), history, {SERVICE: state})  # type: ignore[arg-type]
        asked = PolicyInput(ctx, turn.user_acts, SERVICE)
        plan = decide(asked, SERVICE, schema, PolicyModel(weights, config), SGD_REFERENCE_DATE)
        return sorted(x.slot for x in plan.actions if x.act == "CONFIRM")

    assert confirmed({}, [system(a("REQUEST", "time"))]) == ["time"]
    every = ["cafe_name", "city", "party_size", "time"]  # the default party size included
    assert confirmed({"confirm_call": True}, [system(a("REQUEST", "time"))]) == every
    again = [system(a("CONFIRM", "time", "4 pm")), system(a("REQUEST", "time"))]
    assert confirmed({"confirm_call": True}, again) == ["time"]  # what changed only


def _booking_opened() -> PolicyInput:
    """The user accepts the offered booking; only the city is known."""
    state = State(active_intent="ReserveCafe", slot_values={"city": ["Oslo"]})
    context = TurnContext(schemas(), [system(a("OFFER_INTENT", "intent", "ReserveCafe"))],
                          {SERVICE: state})  # fmt: skip
    return PolicyInput(context, {SERVICE: [a("AFFIRM_INTENT")]}, SERVICE)


def test_no_confirmation_while_a_required_slot_is_missing() -> None:
    schema = schemas()[SERVICE]
    turn = _booking_opened()
    v = views(Situation.of(turn, SERVICE, schema))
    mine = {c: set(hashed(strings(v, c))) for c in candidates(v)}
    confirm, ask = ("CONFIRM", "party_size"), ("REQUEST", "time")
    weights = np.zeros(1 << BITS, dtype=np.float32)
    others = {f for c, fs in mine.items() if c not in (confirm, ask) for f in fs}
    weights[list(others)] = -5.0
    weights[list(mine[confirm] - others)] = 20.0  # the default's CONFIRM, sure
    # the time's REQUEST under the threshold (logit -1), the name's far under (all at -5)
    own = list(mine[ask] - others - mine[confirm])
    weights[own] = (5.0 * len(mine[ask] & others) - 1.0) / len(own)

    def said(complete: bool) -> list[str]:
        model = PolicyModel(weights, {"confirm_complete": complete})
        plan = decide(turn, SERVICE, schema, model, SGD_REFERENCE_DATE)
        return [f"{x.act}({x.slot})" for x in plan.actions]

    assert said(False) == ["CONFIRM(party_size)"]
    assert said(True) == ["REQUEST(time)"]  # the likeliest missing slot instead
    filled = State(active_intent="ReserveCafe", slot_values={
        "city": ["Oslo"], "cafe_name": ["Grind"], "time": ["5 pm"]})  # fmt: skip
    complete = PolicyInput(TurnContext(schemas(), turn.context.history, {SERVICE: filled}),
                           turn.user_acts, SERVICE)  # fmt: skip
    model = PolicyModel(weights, {"confirm_complete": True})
    plan = decide(complete, SERVICE, schema, model, SGD_REFERENCE_DATE)
    assert "CONFIRM" in {x.act for x in plan.actions}  # nothing missing: confirmed


def test_the_acts_said_are_the_set_with_the_highest_expected_f1() -> None:
    offer, count, more = ("OFFER", "name"), ("INFORM_COUNT", ""), ("REQ_MORE", "")
    # an act under 0.5 is said beside a likely one when it is likelier to help F1 than hurt:
    # {offer}: 2 * 0.9 / (1 + 1.4) = 0.75; {offer, count}: 2 * 1.35 / (2 + 1.4) = 0.79
    assert _expected_f1({offer: 0.9, count: 0.45, more: 0.05}, []) == [offer, count]
    # {offer}: 1.8 / 2.1 = 0.86; {offer, count}: 2.2 / 3.1 = 0.71
    assert _expected_f1({offer: 0.9, count: 0.2}, []) == [offer]
    # nothing over 0.5: the likeliest alone (0.6 / 1.4 = 0.43 against 0.8 / 2.4 = 0.33)
    assert _expected_f1({count: 0.1, offer: 0.3}, []) == [offer]
    assert _expected_f1({}, []) == []


def test_the_acts_said_are_of_one_set_the_systems_say_together() -> None:
    success, failure = ("NOTIFY_SUCCESS", ""), ("NOTIFY_FAILURE", "")
    offer, more = ("OFFER", "time"), ("REQ_MORE", "")
    scored = {success: 0.55, failure: 0.5, offer: 0.5, more: 0.1}
    # unconstrained, hedging on both outcomes has the higher expected F1
    assert set(_expected_f1(scored, [])) == {success, failure, offer}
    sets = [frozenset(s) for s in (["NOTIFY_SUCCESS"], ["NOTIFY_FAILURE", "OFFER"])]
    # never a success beside a failure: the failure with its offer (2 * 1.0 / (2 + 1.65))
    # beats the success alone (2 * 0.55 / (1 + 1.65))
    assert _expected_f1(scored, sets) == [failure, offer]
    assert _expected_f1({success: 0.9, failure: 0.3}, sets) == [success]


def test_a_request_brings_the_requests_scored_near_it() -> None:
    schema = schemas()[SERVICE]
    turn = _booking_opened()
    v = views(Situation.of(turn, SERVICE, schema))
    asks = [c for c in candidates(v) if c[0] == "REQUEST"]
    weights = np.zeros(1 << BITS, dtype=np.float32)
    mine = {c: set(hashed(strings(v, c))) for c in candidates(v)}
    requests = set().union(*(mine[c] for c in asks))
    others = {f for c, fs in mine.items() if c[0] != "REQUEST" for f in fs} - requests
    weights[list(others)] = -5.0  # nothing but REQUESTs near the threshold
    first = ("REQUEST", "cafe_name")
    for c in asks:  # the name's REQUEST over the threshold (p 0.73), the others under (0.38)
        own = mine[c] - others - set().union(*(mine[x] for x in asks if x != c))
        weights[min(own)] = 1.0 if c == first else -0.5

    def asked(floor: float) -> list[str]:
        model = PolicyModel(weights, {"request_floor": floor})
        plan = decide(turn, SERVICE, schema, model, SGD_REFERENCE_DATE)
        return sorted(x.slot for x in plan.actions if x.act == "REQUEST")

    assert asked(0.0) == ["cafe_name"]
    assert asked(0.5) == sorted(c[1] for c in asks)


def test_an_offer_names_the_slots_offered_of_the_same_search_before() -> None:
    schema = schemas()[SERVICE]
    state = State(active_intent="FindCafes", slot_values={"city": ["Oslo"]})
    call = ServiceCall(method="FindCafes", parameters={"city": "Oslo"})
    rows = [
        {"cafe_name": "Grind", "city": "Oslo", "phone": "1", "has_wifi": "True"},
        {"cafe_name": "Bean", "city": "Oslo", "phone": "2", "has_wifi": "False"},
    ]
    earlier = system(a("OFFER", "cafe_name", "Grind"), a("OFFER", "phone", "1"))
    earlier.frames[0].service_call, earlier.frames[0].service_results = call, rows
    context = TurnContext(schemas(), [earlier], {SERVICE: state})
    turn = PolicyInput(context, {SERVICE: [a("REQUEST_ALTS")]}, SERVICE)
    weights = np.zeros(1 << BITS, dtype=np.float32)  # every act at 0.5: every slot offered

    def offered(config: dict[str, object]) -> list[str]:
        plan = decide(turn, SERVICE, schema, PolicyModel(weights, config), SGD_REFERENCE_DATE)
        assert plan.service_call is None
        return [f"{x.slot}={x.values[0]}" for x in plan.actions if x.act == "OFFER"]

    calls = {"thresholds": {"CALL": 2.0}}  # no new call: offer the next result
    assert offered(calls) == ["cafe_name=Bean", "city=Oslo", "has_wifi=False", "phone=2"]
    assert offered({**calls, "offer_repeat": True}) == ["cafe_name=Bean", "phone=2"]


def test_services_are_balanced_in_training() -> None:
    seen = (1, 2)  # one feature row each: a large service says yes, a small one says no
    counts = {("Big_1", seen): [90, 10], ("Small_1", seen): [0, 10], ("Out_1", (3,)): [5, 0]}
    held = frozenset({"Out_1"})
    assert service_weights(counts, held, 0.0) == {"Big_1": 1.0, "Small_1": 1.0}
    weights = service_weights(counts, held, 1.0)  # mean 55 rows: 55/100 and 55/10
    assert abs(weights["Big_1"] - 0.55) < 1e-9 and abs(weights["Small_1"] - 5.5) < 1e-9

    def p(balance: float) -> float:
        return fit_rows(counts, held, balance).probability(seen)

    assert p(0.0) > 0.75  # the large service's habit
    assert 0.35 < p(1.0) < 0.65  # each service counts as much
    assert p(0.0) > p(0.5) > p(1.0)


def test_fit_rows_takes_another_l2() -> None:
    seen = (1, 2)
    counts = {("Big_1", seen): [90, 10]}
    default = fit_rows(counts)
    assert default.config["l2"] == 1.0
    strong = fit_rows(counts, l2=100.0)
    assert strong.config["l2"] == 100.0  # written as fitted
    assert 0.5 < strong.probability(seen) < default.probability(seen)  # pulled towards 0.5
