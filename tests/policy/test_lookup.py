"""A question beside the task, answered by a search of the same service
(tod_runtime/policy/lookup.py), on a handwritten bank."""

from __future__ import annotations

from tod_runtime.dialogue.models import State, act
from tod_runtime.policy import lookup
from tod_runtime.schema.models import ServiceSchema

BANK = ServiceSchema.model_validate(
    {
        "service_name": "Bank",
        "description": "Accounts and transfers",
        "slots": [
            {"name": "account", "description": "Account of the user", "is_categorical": False, "possible_values": []},
            {"name": "balance", "description": "Amount of money in the account", "is_categorical": False, "possible_values": []},
            {"name": "sum", "description": "Amount to send", "is_categorical": False, "possible_values": []},
            {"name": "payee", "description": "Who receives the money", "is_categorical": False, "possible_values": []},
        ],
        "intents": [
            {"name": "Balance", "description": "Check a balance", "is_transactional": False,
             "required_slots": ["account"], "optional_slots": {},
             "result_slots": ["account", "balance"]},
            {"name": "Send", "description": "Send money", "is_transactional": True,
             "required_slots": ["account", "sum", "payee"], "optional_slots": {},
             "result_slots": ["account", "sum", "payee"]},
        ],
    }
)  # fmt: skip


def test_a_search_answers_what_the_task_does_not_hold() -> None:
    state = State(
        active_intent="Send",
        requested_slots=["balance"],
        slot_values={"account": ["savings"], "payee": ["amir"]},
    )
    asked = lookup.unanswered(state, None, [])
    assert asked == ["balance"]
    found = lookup.search_for(BANK, state, asked, BANK.intent("Send"))
    assert found is not None and found.name == "Balance"
    assert lookup.is_lookup(BANK, state, "Balance")
    assert not lookup.finds_for_task(BANK, state, "Balance")
    unknown = state.model_copy(update={"slot_values": {"payee": ["amir"]}})
    assert lookup.search_for(BANK, unknown, asked, BANK.intent("Send")) is None  # no account


def test_the_result_on_offer_tells_nothing_of_another_entity_the_user_names() -> None:
    state = State(active_intent="Send", requested_slots=["sum"], slot_values={})
    offer = {"payee": "amir", "sum": "20"}
    assert lookup.unanswered(state, offer, []) == []
    named = [act("INFORM", "payee", ["zoe"])]
    assert lookup.unanswered(state, offer, named) == ["sum"]


def test_the_row_holding_most_of_the_state_is_the_one_told() -> None:
    rows = [{"account": "checking", "balance": "5"}, {"account": "savings", "balance": "9"}]
    state = State(active_intent="Send", slot_values={"account": ["Savings"]})
    assert lookup.best_row(rows, state)["balance"] == "9"
