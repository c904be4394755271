"""Typo repair before the scorers: "i need a hotle in bostn" -> "i need a hotel in boston".

A word is repaired only when it is typed in lower case, is at least MIN_LENGTH letters long, is
not a known word, and a word that people use often (FREQUENT times or more) lies one edit away
(an insertion, a deletion, a substitution or two neighbours swapped), used at least CLEAR times
as often as any other such word ("wether": weather, not whether). Known words are those seen
KNOWN times or more in SGD train's utterances (``vocabulary.txt``, counted by ``tod train
nlu``) and the words of the services (schema descriptions, possible values, the backend's
values). A capitalised word is left alone, so a name spelt as its owner spells it never turns
into a common word. A few English chat short forms ("tmrw", "ppl", "pls") are spelt out,
and a plural in "-ies" of a one-word value is said as the value ("comedies": Comedy; the
scorers learned values as SGD's users say them, in the singular).

Candidates are found by symmetric deletion: a word and a known word one edit apart share a
form with at most one letter deleted, so a lookup costs a few dictionary probes, not a scan.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from rapidfuzz.distance import DamerauLevenshtein

from tod_runtime.data.sgd import SGDSplit
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.values.dates import MONTHS, WEEKDAYS

MIN_LENGTH = 4
KNOWN = 5
FREQUENT = 20
CLEAR = 3.0
CALENDAR_LENGTH = 6  # a word this long may be a weekday or month name two edits away
WORD = re.compile(r"[a-z]+")  # a word as the vocabulary counts it
_TOKEN = re.compile(r"[A-Za-z]+")
VOCABULARY = "vocabulary.txt"
# English chat shorthand no edit reaches ("tmrw" is three letters from "tomorrow")
SHORTHAND = {
    "tmrw": "tomorrow", "tmr": "tomorrow", "tmrow": "tomorrow", "tmw": "tomorrow",
    "tonite": "tonight", "nite": "night", "ppl": "people", "pls": "please", "plz": "please",
    "thru": "through", "wknd": "weekend",
    # weekdays cut short ("next fri"); not "wed", "sat", "sun", "mon": words of their own
    "tue": "tuesday", "tues": "tuesday", "weds": "wednesday", "thu": "thursday",
    "thur": "thursday", "thurs": "thursday", "fri": "friday",
}  # fmt: skip


# English contractions typed without their apostrophe, as people do in a chat: words of their
# own, never "repaired" ("doesnt" had become "doesn", "wont" "want", "arent" "rent")
_CONTRACTIONS = (
    "dont doesnt didnt isnt arent wasnt werent hasnt havent hadnt wouldnt shouldnt couldnt "
    "mustnt neednt cant wont aint youre theyre were thats whats theres wheres hes shes lets"
)
CONTRACTIONS = frozenset(_CONTRACTIONS.split())


def _deletes(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


def count_words(split: SGDSplit) -> tuple[Counter[str], Counter[str]]:
    """How often each word is used in the utterances of ``split`` (user and system turns),
    and how often outside the spans of the slot values the turns annotate (talk: "marvel"
    is said 574 times, 9 of them outside "Captain Marvel"; "park" 1,884 times, 347 outside
    values)."""
    counts: Counter[str] = Counter()
    talk: Counter[str] = Counter()
    for file in split.dialogue_files():
        for dialogue in split.read_raw(file):
            for turn in dialogue["turns"]:
                utterance = turn["utterance"].lower()
                counts.update(WORD.findall(utterance))
                talk.update(WORD.findall(_without_values(utterance, turn)))
    return counts, talk


def _without_values(utterance: str, turn: Mapping[str, Any]) -> str:
    """``utterance`` with the value spans its frames annotate blanked out."""
    spans = [
        (slot["start"], slot["exclusive_end"])
        for frame in turn.get("frames", ())
        for slot in frame.get("slots", ())
        if isinstance(slot.get("start"), int) and isinstance(slot.get("exclusive_end"), int)
    ]
    for start, end in spans:
        utterance = utterance[:start] + " " * (end - start) + utterance[end:]
    return utterance


def vocabulary_text(counts: Mapping[str, int], talk: Mapping[str, int], least: int = 2) -> str:
    """The words seen at least ``least`` times, most frequent first: ``word<TAB>count<TAB>
    talk`` (``count_words``)."""
    rows = sorted(((w, n) for w, n in counts.items() if n >= least), key=lambda x: (-x[1], x[0]))
    return "".join(f"{w}\t{n}\t{talk.get(w, 0)}\n" for w, n in rows)


def read_vocabulary(path: Path | None = None) -> tuple[dict[str, int], dict[str, int]]:
    """``path``, or the vocabulary shipped in the package, in one pass: each word's count, and
    its count in talk (the count itself where a file has no such column)."""
    shipped = resources.files(__package__).joinpath(VOCABULARY)
    text = path.read_text(encoding="utf-8") if path else shipped.read_text(encoding="utf-8")
    counts: dict[str, int] = {}
    talk: dict[str, int] = {}
    for line in text.splitlines():
        word, *columns = line.split("\t")
        count, said = (columns + columns[-1:])[:2] if columns else ("", "")
        if word and count.isdigit():
            counts[word] = int(count)
        if word and said.isdigit():
            talk[word] = int(said)
    return counts, talk


def service_words(schema: ServiceSchema, entity_values: Mapping[str, Iterable[str]]) -> set[str]:
    """The words of a service: its descriptions, possible values and the backend's values."""
    texts = [schema.description, *(i.description for i in schema.intents)]
    for slot in schema.slots:
        texts += [slot.description, *slot.possible_values, *entity_values.get(slot.name, ())]
    return {w for text in texts for w in WORD.findall(text.lower())}


def one_word_values(schema: ServiceSchema, entity_values: Mapping[str, Iterable[str]]) -> set[str]:
    """A service's values of one word, lower case (its possible values, the backend's)."""
    values = [v for slot in schema.slots for v in slot.possible_values]
    values += [v for vs in entity_values.values() for v in vs]
    return {v.lower() for v in values if WORD.fullmatch(v.lower())}


def _calendar_word(word: str) -> str | None:
    """The one weekday name (``word`` ending in "day", its first letter the name's) or month
    name (its first three letters) at most two edits from ``word``, when no word people use
    lies one edit away: "wensday" is Wednesday, "febuary" February; "fridge" stays."""
    if len(word) < CALENDAR_LENGTH:
        return None
    weekdays = [d for d in WEEKDAYS if word.endswith("day") and d[0] == word[0]]
    months = [m for m in MONTHS if m[:3] == word[:3]]
    near = sorted((DamerauLevenshtein.distance(word, n), n) for n in (*weekdays, *months))
    near = [x for x in near if x[0] <= 2]
    return near[0][1] if near and (len(near) == 1 or near[0][0] < near[1][0]) else None


class Speller:
    def __init__(
        self, counts: Mapping[str, int], extra: Iterable[str] = (), values: Iterable[str] = ()
    ) -> None:
        self.counts = counts
        self.values = frozenset(values)
        self.known = {w for w, n in counts.items() if n >= KNOWN} | set(extra)
        self._by_delete: dict[str, list[str]] = {}
        for word, count in counts.items():
            if count >= FREQUENT and len(word) >= MIN_LENGTH - 1:
                for form in {word} | _deletes(word):
                    self._by_delete.setdefault(form, []).append(word)
        self._cache: dict[str, str | None] = {}

    def repair(self, word: str) -> str | None:
        """The clearly most frequent word one edit from ``word`` (lower case), else None."""
        if word in self._cache:
            return self._cache[word]
        found: set[str] = set()
        for form in {word} | _deletes(word):
            found.update(self._by_delete.get(form, ()))
        close = sorted(
            ((self.counts[w], w) for w in found if DamerauLevenshtein.distance(word, w) == 1),
            reverse=True,
        )
        best = None
        if close and (len(close) == 1 or close[0][0] >= CLEAR * close[1][0]):
            best = close[0][1]
        elif not close:
            best = _calendar_word(word)
        self._cache[word] = best
        return best

    def correct(self, text: str) -> str:
        def fix(match: re.Match[str]) -> str:
            word = match.group(0)
            if word in SHORTHAND:
                return SHORTHAND[word]
            if word.endswith("ies") and word[:-3] + "y" in self.values:
                return word[:-3] + "y"  # "comedies": the genre Comedy
            if len(word) < MIN_LENGTH or not word.islower() or word in self.known:
                return word
            if word in CONTRACTIONS:
                return word
            return self.repair(word) or word

        return _TOKEN.sub(fix, text)
