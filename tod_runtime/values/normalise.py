"""Values in the form a service's backend takes them.

The dialogue state keeps values as the user said them ("next Friday", "half past 6 in the
evening", "two"), as SGD's state does. A service call carries them in the backend's form:
ISO dates (``2019-03-08``), 24-hour times (``18:30``), plain digits for counts and amounts,
``True``/``False``. ``normalise_value`` turns one surface value into that form by the slot's
kind; a value it cannot read passes through unchanged, and values already in the backend's
form are fixed points.

A slot's kind is its value type from ``schema.roles`` (bool, number, time, date, text), with
two kinds of free-text slot told apart by the first words of their descriptions here (never
their names), where only the backend's form
depends on them: an ``amount`` of money ("amount", "price", "fare", "cost", "balance") and a
``count`` ("number_of_days" in a service that does not list its possible values).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import Literal

from tod_runtime.dialogue.models import DONTCARE
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.schema.roles import slot_roles
from tod_runtime.values.dates import parse_date
from tod_runtime.values.numbers import parse_amount, parse_count
from tod_runtime.values.times import parse_time

Kind = Literal["bool", "number", "time", "date", "amount", "count", "text"]

MONEY = {"amount", "price", "fare", "cost", "balance", "fee", "payment", "money", "rent"}
TRUE = {"true", "yes", "yeah", "yep", "sure", "ok", "okay", "y"}
FALSE = {"false", "no", "nope", "not", "n", "none", "without"}
_WORD = re.compile(r"[a-z]+")


def slot_kind(schema: ServiceSchema, slot: str) -> Kind:
    """How a slot's values are written for the backend (see the module's docstring)."""
    role = slot_roles(schema).get(slot)
    if role is None:
        return "text"
    if role.value_type != "text":
        return role.value_type
    spec = schema.slot(slot)
    if spec is None or spec.is_categorical:
        return "text"
    head = _WORD.findall(spec.description.lower())[:4]  # "Amount of money ...", "Number of ..."
    if set(head) & MONEY and not {"range", "type", "class", "name"} & set(head):
        return "amount"
    if head[:2] == ["number", "of"] or "count" in head:
        return "count"
    return "text"


def _truth(value: str) -> str | None:
    words = _WORD.findall(value.lower())
    if words and set(words) <= TRUE:
        return "True"
    if words and set(words) <= FALSE:
        return "False"
    return None


def normalise_value(value: str, kind: Kind, today: date) -> str:
    """``value`` in the backend's form for a slot of ``kind``; dates are read against
    ``today`` (the backend's reference date). Unreadable values come back unchanged."""
    if not value.strip() or value.strip().lower() == DONTCARE:
        return value
    found: str | None = None
    if kind == "date":
        day = parse_date(value, today)
        found = day.isoformat() if day is not None else None
    elif kind == "time":
        found = parse_time(value)
    elif kind in ("number", "count"):
        found = parse_count(value)
    elif kind == "amount":
        found = parse_amount(value)
    elif kind == "bool":
        found = _truth(value)
    return value if found is None else found


def normalise_parameters(
    schema: ServiceSchema, parameters: Mapping[str, str], today: date
) -> dict[str, str]:
    """Every parameter of a call to ``schema``'s service in the backend's form."""
    return {
        slot: normalise_value(value, slot_kind(schema, slot), today)
        for slot, value in parameters.items()
    }
