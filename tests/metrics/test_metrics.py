"""DSTC8 state metrics and the system-side metrics."""

from __future__ import annotations

import pytest
from stage_helpers import a, schemas

from tod_runtime.dialogue.models import ServiceCall, State
from tod_runtime.metrics.acts import act_f1, corpus_bleu, service_call_match
from tod_runtime.metrics.state import frame_state_metrics, requested_slots_f1

SCHEMA = schemas()["Cafes_1"]


def state(**slots: list[str]) -> State:
    return State(active_intent="FindCafes", slot_values=slots)


def test_exact_frame_scores_one() -> None:
    gold = state(city=["Oslo"], has_wifi=["True"])
    assert frame_state_metrics(gold, gold, SCHEMA) == {
        "joint_goal_accuracy": 1.0,
        "active_intent_accuracy": 1.0,
        "requested_slots_f1": 1.0,
        "average_goal_accuracy": 1.0,
    }


def test_non_categorical_slots_score_fuzzily_and_joint_is_a_product() -> None:
    gold = state(city=["San Jose", "SJ"], has_wifi=["True"])
    pred = state(city=["San Jose CA"], has_wifi=["True"])
    m = frame_state_metrics(gold, pred, SCHEMA)
    assert m["joint_goal_accuracy"] == pytest.approx(0.84)  # token_sort_ratio 84.2 -> 84%
    assert m["average_goal_accuracy"] == pytest.approx((0.84 + 1.0) / 2)


def test_categorical_slots_need_the_first_value_and_extra_slots_cost() -> None:
    gold = state(has_wifi=["True"])
    assert frame_state_metrics(gold, state(has_wifi=["False"]), SCHEMA)["joint_goal_accuracy"] == 0
    extra = frame_state_metrics(gold, state(has_wifi=["True"], city=["Oslo"]), SCHEMA)
    assert extra["joint_goal_accuracy"] == 0.0 and extra["average_goal_accuracy"] == 1.0


def test_average_goal_accuracy_is_left_out_without_gold_slots() -> None:
    m = frame_state_metrics(State(), None, SCHEMA)
    assert "average_goal_accuracy" not in m and m["joint_goal_accuracy"] == 1.0
    assert m["active_intent_accuracy"] == 1.0  # NONE == NONE


def test_requested_slots_f1() -> None:
    assert requested_slots_f1([], []) == 1.0
    assert requested_slots_f1(["phone"], []) == 0.0
    assert requested_slots_f1(["phone", "city"], ["phone"]) == pytest.approx(2 / 3)


def test_act_f1_over_act_slot_value_items() -> None:
    gold = [a("OFFER", "cafe_name", "Grind"), a("INFORM_COUNT", "count", "2")]
    assert act_f1(gold, gold) == 1.0
    assert act_f1([], []) == 1.0
    assert act_f1(gold, [a("OFFER", "cafe_name", "grind")]) == pytest.approx(2 / 3)
    assert act_f1(gold, [a("REQ_MORE")]) == 0.0


def test_service_call_match() -> None:
    call = ServiceCall(method="FindCafes", parameters={"city": "Oslo"})
    assert service_call_match(None, None) is None
    assert service_call_match(call, None) == 0.0
    assert (
        service_call_match(call, ServiceCall(method="FindCafes", parameters={"city": " oslo"}))
        == 1.0
    )
    assert service_call_match(call, ServiceCall(method="FindCafes")) == 0.0


def test_corpus_bleu() -> None:
    assert corpus_bleu(["the cafe is open"], ["the cafe is open"]) == pytest.approx(100.0)
    assert corpus_bleu([], []) == 0.0
