"""Words of utterances and of schema descriptions, the same way for both."""

from __future__ import annotations

import re
from collections.abc import Mapping
from collections.abc import Set as AbstractSet

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
# General English function words: left out of overlaps with descriptions only.
_STOP = "a an the to for of at in on and or my me i you we it is are be this that with by "
RARE = 100  # a word said fewer times in SGD train's talk (``Parts.word_count``) is a name's
STOP = frozenset((_STOP + "from as can could would will please want like need some any").split())
# a question about the entity on the table names it with a pronoun ("is it free to get in?");
# "are there any that allow pets?" asks for others: a filter
ABOUT_IT = re.compile(r"\b(?:it|its|it's|they|them|their)\b")
QUESTION_WORDS = ("what", "which", "where", "when", "how", "who", "whats", "what's")
# a name the user gives ("an alarm at 7 called grocery run", "call it skin doctor")
NAMED = re.compile(
    r"\b(?:call it|called|named|name it|titled)\s+['\"]?([a-z0-9][a-z0-9 '&-]*?)['\"]?"
    r"(?=[.,!?;]|\s+(?:and|for|at|on|with|please|tomorrow|today|tonight)\b|$)"
)


def given_name(text: str) -> tuple[frozenset[str], str]:
    """The words, as ``tokens`` gives them, of a name the user gives in ``text`` (lower case),
    and the text without them: "skin" and "doctor" of "call it skin doctor", which name no
    task."""
    match = NAMED.search(text)
    if match is None:
        return frozenset(), text
    start, end = match.span(1)
    return frozenset(tokens(match.group(1))), text[:start] + text[end:]


def stem(word: str) -> str:
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def root(word: str) -> str:
    """A stem with its "-ing", "-ed" or final "e" cut, for matching a word's forms with a
    description's: "sharing", "shared" and "share" are all "shar"."""
    for ending in ("ing", "ed", "e"):
        if word.endswith(ending) and len(word) - len(ending) >= 4:
            return word[: -len(ending)]
    return word


def tokens(text: str) -> list[str]:
    """Lower-cased, lightly stemmed words, in order."""
    return [stem(w) for w in _WORD.findall(text.lower())]


def content(words: list[str]) -> frozenset[str]:
    return frozenset(w for w in words if w not in STOP)


def compound_parts(
    word: str, described: AbstractSet[str], counts: Mapping[str, int]
) -> frozenset[str]:
    """The description words a compound the descriptions lack is made of: "haircut" holds
    "hair" (of "hair stylist"), "showtime" "show" and "time", "roundtrip" "round" and "trip".
    A split needs one half of four letters or more that is a description word (a function
    word never is) and the other of three or more that is one too or a word SGD's users say
    (``counts``: at least ``COMPOUND_COUNT`` times); the first such split from the left."""
    if word in described:
        return frozenset()
    for i in range(3, len(word) - 2):
        left, right = word[:i], word[i:]
        halves = [h for h in (left, right) if h in described and h not in STOP]
        if not any(len(h) >= 4 for h in halves):
            continue
        if len(halves) == 2 or counts.get(right if left in halves else left, 0) >= COMPOUND_COUNT:
            return frozenset(halves)
    return frozenset()


COMPOUND_COUNT = 5


def with_bases(words: frozenset[str]) -> frozenset[str]:
    """The words with the base forms their comparatives and superlatives may have, for
    overlaps with descriptions: "cheapest" meets "cheap flights", "larger" meets "large",
    "biggest" meets "big". A form that is no description's word matches nothing."""
    bases = set(words)
    for word in words:
        for ending in ("est", "er"):
            base = word[: -len(ending)]
            if word.endswith(ending) and len(base) >= 3:
                bases |= {base, base + "e"}
                if base[-1] == base[-2]:
                    bases.add(base[:-1])
    return frozenset(bases)


def question_cues(text: str, words: list[str]) -> list[str]:
    cues = [w for w in QUESTION_WORDS if w in words]
    if "?" in text:
        cues.append("?")
    return cues
