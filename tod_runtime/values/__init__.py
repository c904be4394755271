"""Value normalisation: surface values (as the user said them) into the form a service's
backend takes (ISO dates, 24-hour times, digits, True/False). See ``normalise``; ``say`` is
the inverse: machine forms as people say them."""

from tod_runtime.values.dates import clock_today, parse_date
from tod_runtime.values.normalise import normalise_parameters, normalise_value, slot_kind
from tod_runtime.values.numbers import parse_amount, parse_count
from tod_runtime.values.say import say_amount, say_bool, say_date, say_time, say_value
from tod_runtime.values.times import parse_time

__all__ = [
    "clock_today",
    "normalise_parameters",
    "normalise_value",
    "parse_amount",
    "parse_count",
    "parse_date",
    "parse_time",
    "say_amount",
    "say_bool",
    "say_date",
    "say_time",
    "say_value",
    "slot_kind",
]
