"""The rules NLU's words: a clock time is one word, so a known value "30" (a rental car's
total price in SGD) is not found inside "14:30"."""

from __future__ import annotations

from tod_runtime.nlu.values import ValueIndex, words
from tod_runtime.schema.models import ServiceSchema


def test_a_clock_time_is_one_word() -> None:
    assert words("pick it up at 14:30, it's $30") == [
        "pick",
        "it",
        "up",
        "at",
        "14:30",
        "it's",
        "30",
    ]


def test_a_known_number_is_not_found_inside_a_time() -> None:
    schema = ServiceSchema.model_validate(
        {
            "service_name": "Cars_1",
            "description": "cars",
            "slots": [
                {"name": "total_price", "description": "Total price", "is_categorical": False,
                 "possible_values": []},
                {"name": "pickup_time", "description": "Time of pickup", "is_categorical": False,
                 "possible_values": []},
            ],
            "intents": [],
        }
    )  # fmt: skip
    index = ValueIndex(schema, {"total_price": ["30", "45"]})
    assert index.exact("I'll pick it up on March 6th at 14:30") == []
    assert [f.value for f in index.exact("no more than 45 in total")] == ["45"]
