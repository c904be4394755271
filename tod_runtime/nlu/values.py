"""Value recognisers for the rules NLU: known values (schema possible values and backend
entity values, exact or fuzzy), numbers, times, dates and yes/no slots."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from rapidfuzz import fuzz

from tod_runtime.schema.models import ServiceSchema, SlotSchema
from tod_runtime.schema.roles import slot_roles

WORD = re.compile(r"[a-z0-9]+(?:['&.:-][a-z0-9]+)*")  # "14:30" is one word, not 14 and 30
NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple": 2,
}  # fmt: skip
TIME = re.compile(
    r"\b(?:(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<ap>am|pm|a\.m\.|p\.m\.|in the morning|"
    r"in the evening|in the afternoon|at night)|(?P<h24>[01]?\d|2[0-3]):(?P<m24>[0-5]\d)|"
    r"(?P<noon>noon|midday|midnight))\b"
)
WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
# nouns of an address: an ordinal before one names a street, not a day ("5th street")
STREETS = "street|st|avenue|ave|road|rd|boulevard|blvd|drive|lane|way|place|floor"
DATE = re.compile(
    rf"\b(?:(?:the )?day after tomorrow|today|tonight|tomorrow|(?:next |this )?(?:{WEEKDAYS})|"
    rf"(?:{MONTHS}) \d{{1,2}}(?:st|nd|rd|th)?|(?:the )?\d{{1,2}}(?:st|nd|rd|th)(?: of (?:{MONTHS}|"
    rf"this month|next month))?)\b(?! (?:{STREETS})\b)"
)
COUNT = r"\d{1,3}|" + "|".join(NUMBER_WORDS)  # a count in digits or words
NUMBER = re.compile(rf"\b({COUNT})\b")


@dataclass(frozen=True)
class Found:
    slot: str
    value: str  # as the user wrote it
    canonical: str
    start: int
    end: int


def words(text: str) -> list[str]:
    return WORD.findall(text.lower())


def slot_words(slot: SlotSchema) -> set[str]:
    """Content words naming a slot, from its name and description."""
    stop = {"the", "of", "a", "an", "to", "for", "in", "is", "at", "or", "and", "whether", "be"}
    return {w for w in words(slot.name.replace("_", " ") + " " + slot.description) if w not in stop}


def canonical_time(match: re.Match[str]) -> str:
    if match["noon"]:
        return "00:00" if match["noon"] == "midnight" else "12:00"
    if match["h24"] is not None:
        return f"{int(match['h24']):02d}:{match['m24']}"
    hour, minute = int(match["h"]), int(match["m"] or 0)
    after_noon = match["ap"] in ("pm", "p.m.", "in the evening", "in the afternoon", "at night")
    if after_noon and hour < 12:
        hour += 12
    if not after_noon and hour == 12:
        hour = 0
    return f"{hour:02d}:{minute:02d}"


def number_value(token: str) -> int:
    return int(token) if token.isdigit() else NUMBER_WORDS[token]


class ValueIndex:
    """Known values of a service's slots, looked up by exact phrase, then fuzzily."""

    def __init__(self, schema: ServiceSchema, entity_values: Mapping[str, list[str]]) -> None:
        self.schema = schema
        self.by_phrase: dict[str, list[tuple[str, str]]] = {}
        self.values: dict[str, list[str]] = {}
        roles = slot_roles(schema)
        for slot in schema.slots:
            if roles[slot.name].value_type in ("bool", "number"):
                continue
            known = list(dict.fromkeys([*slot.possible_values, *entity_values.get(slot.name, [])]))
            self.values[slot.name] = known
            for value in known:
                phrase = " ".join(words(value))
                if phrase:
                    self.by_phrase.setdefault(phrase, []).append((slot.name, value))
        self.longest = max((len(p.split()) for p in self.by_phrase), default=0)

    def exact(self, text: str) -> list[Found]:
        tokens = list(WORD.finditer(text.lower()))
        found: list[Found] = []
        taken: set[int] = set()
        for n in range(min(self.longest, len(tokens)), 0, -1):
            for i in range(len(tokens) - n + 1):
                if taken & set(range(i, i + n)):
                    continue
                phrase = " ".join(t.group() for t in tokens[i : i + n])
                for slot, value in self.by_phrase.get(phrase, []):
                    start, end = tokens[i].start(), tokens[i + n - 1].end()
                    found.append(Found(slot, text[start:end], value, start, end))
                    taken |= set(range(i, i + n))
        return found

    def fuzzy(self, text: str, slots: Iterable[str], threshold: float = 88) -> list[Found]:
        """Best fuzzy match of a text span against the known values of ``slots``."""
        tokens = list(WORD.finditer(text.lower()))
        best: Found | None = None
        best_score = threshold
        for slot in slots:
            for value in self.values.get(slot, []):
                n = len(value.split())
                for i in range(len(tokens) - n + 1):
                    start, end = tokens[i].start(), tokens[i + n - 1].end()
                    score = fuzz.ratio(text[start:end].lower(), value.lower())
                    if score > best_score:
                        best, best_score = Found(slot, text[start:end], value, start, end), score
        return [best] if best else []
