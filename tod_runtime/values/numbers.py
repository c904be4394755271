"""Counts and amounts as a backend takes them: plain digits.

``parse_count("a couple")`` is 2, ``parse_count("for 4")`` is 4, ``parse_count("two people")``
is 2; ``parse_amount("$1,730")`` is ``"1730"``, ``parse_amount("fifty dollars")`` is ``"50"``.
A text holding no number, or more than one ("4 or 5"), gives None: the caller keeps the value.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}  # fmt: skip
TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
PHRASES = {
    "a couple of": 2, "a couple": 2, "couple of": 2, "couple": 2, "a pair of": 2, "a pair": 2,
    "pair of": 2, "half a dozen": 6, "a dozen": 12, "dozen": 12, "a single": 1, "single": 1,
    "just me": 1, "only me": 1, "myself": 1, "a hundred": 100, "a thousand": 1000,
}  # fmt: skip
CURRENCY = re.compile(r"\$|\busd\b|\bdollars?\b|\bbucks?\b")

_PHRASE = re.compile(r"\b(?:" + "|".join(sorted(PHRASES, key=len, reverse=True)) + r")\b")
_DIGITS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
_NUMBER_WORDS = set(UNITS) | set(TENS) | set(SCALES)


def _words_value(words: list[str]) -> int | None:
    """The value of a run of number words: "twenty five", "one hundred and twenty"."""
    total, current = 0, 0
    seen = False
    for word in words:
        if word == "and" and seen:
            continue
        if word in UNITS:
            current += UNITS[word]
        elif word in TENS:
            current += TENS[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        elif word in SCALES:
            total += max(current, 1) * SCALES[word]
            current = 0
        else:
            return None
        seen = True
    return total + current if seen else None


def _numbers(text: str) -> list[Decimal]:
    """Every number written in ``text``: digits (with thousands commas or decimals), number
    words ("twenty-five") and phrases ("a couple")."""
    text = text.lower().replace("-", " ")
    found: list[Decimal] = []
    for match in _PHRASE.finditer(text):
        found.append(Decimal(PHRASES[match.group()]))
    text = _PHRASE.sub(" , ", text)
    for match in _DIGITS.finditer(text):
        found.append(Decimal(match.group().replace(",", "")))
    text = _DIGITS.sub(" , ", text)
    run: list[str] = []
    for token in re.findall(r"[a-z]+|[^a-z\s]", text) + [","]:
        if token in _NUMBER_WORDS or (token == "and" and run):
            run.append(token)
            continue
        while run and run[-1] == "and":
            run.pop()
        if run:
            value = _words_value(run)
            if value is not None:
                found.append(Decimal(value))
            run = []
    return found


def parse_count(text: str) -> str | None:
    """The one whole number in ``text`` as digits, else None."""
    found = _numbers(text)
    if len(found) != 1 or found[0] != found[0].to_integral_value():
        return None
    return str(int(found[0]))


def parse_amount(text: str) -> str | None:
    """The one amount of money in ``text`` as digits ("$1,730.00" -> "1730", "$12.50" ->
    "12.50"), else None."""
    found = _numbers(CURRENCY.sub(" ", text.lower()))
    if len(found) != 1:
        return None
    value = found[0]
    try:
        if value == value.to_integral_value():
            return str(int(value))
    except InvalidOperation:  # pragma: no cover - Decimal from digits always compares
        return None
    return str(value)
