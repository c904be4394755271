"""Mine templates from SGD turns written by people (``tod train nlg``).

Each single-frame turn of a side (system or user) is delexicalised with its acts' values: a
value's span where the frame annotates one, else the value found in the text (whole words,
case-insensitively; a count also as a number word). The utterance is rejected when a value
is not found (the template would drop it), when two values claim the same words, or when a
digit is left in the template (it would invent a value). What is left is keyed by the acts'
signature twice (``nlg.signature``): per service with slot names, and generically with slot
labels. A key keeps its most representative templates (``representative``: the highest
expected BLEU against what people wrote for it; a medoid), best first, and only those
scoring nearly as well as the best (``MineSettings.equivalent``): the generator's seeded
choice is between equivalent wordings. Generic templates people wrote for at least
``min_services`` services are preferred to those only one service's turns gave.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from tod_runtime.dialogue.models import Action
from tod_runtime.nlg.signature import (
    Signature,
    generic_signature,
    placeholders,
    service_signature,
)
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.values.numbers import UNITS

NUMBER_WORDS = {str(v): k for k, v in UNITS.items()}
_DIGIT = re.compile(r"\d")
_SPACE = re.compile(r"\s+")

Table = dict[str, list[tuple[str, int]]]  # signature key -> [(template, count)], best first


@dataclass(frozen=True)
class MineSettings:
    per_key: int = 4  # templates kept per key, at most
    min_count: int = 2  # a template written fewer times is kept only when it is the best
    min_services: int = 2  # a generic template written for this many services goes first
    single_service: bool = True  # a generic key only one service wrote keeps its templates
    candidates: int = 20  # the best of a key is one of its this many most frequent templates
    references: int = 100  # ... scored against its this many most frequent ones
    shortness: float = 3.0  # per service: how much a short candidate's score is penalised
    generic_shortness: float = 0.5  # the same for generic templates
    equivalent: float = 0.95  # a template scoring this share of the best's is a choice too
    corpus: bool = True  # each key's first template chosen for the table's corpus BLEU
    passes: int = 3  # of the corpus choice's coordinate ascent, at most
    joint: bool = True  # the services' tables chosen as one corpus (else each its own)


@dataclass
class Mined:
    """Counts collected over turns, per service; ``tables`` turns them into template
    tables (leaving out services, for tuning with services held out)."""

    services: dict[str, Counter[tuple[str, str]]] = field(
        default_factory=lambda: defaultdict(Counter)
    )
    generic: dict[str, Counter[tuple[str, str]]] = field(
        default_factory=lambda: defaultdict(Counter)
    )
    turns: int = 0
    kept: int = 0
    rejected: Counter[str] = field(default_factory=Counter)

    def tables(
        self, settings: MineSettings, exclude: frozenset[str] = frozenset()
    ) -> tuple[dict[str, Table], Table]:
        ranked = {
            s: _rank(c, settings) for s, c in sorted(self.services.items()) if s not in exclude
        }
        if settings.corpus and settings.joint:  # one corpus: every service's replies
            _lead(list(ranked.values()), settings)
        elif settings.corpus:
            for one in ranked.values():
                _lead([one], settings)
        per_service = {s: table for s, (table, _) in ranked.items()}
        total: Counter[tuple[str, str]] = Counter()
        writers: Counter[tuple[str, str]] = Counter()
        for service, counts in self.generic.items():
            if service not in exclude:
                total.update(counts)
                writers.update(counts.keys())
        shared = {k for k, n in writers.items() if n >= settings.min_services}
        if not settings.single_service:
            total = Counter({k: n for k, n in total.items() if k in shared})
        generic = _rank(total, settings, shared, generic=True)
        if settings.corpus:
            _lead([generic], settings)
        return per_service, generic[0]


def _rank(
    counts: Mapping[tuple[str, str], int],
    settings: MineSettings,
    shared: AbstractSet[tuple[str, str]] | None = None,
    generic: bool = False,
) -> tuple[Table, list[KeyStats]]:
    """Each key's most representative templates (of those in ``shared``, when given), and,
    with ``settings.corpus``, each key's candidates for ``_lead``."""
    by_key: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for (key, template), n in counts.items():
        by_key[key].append((template, n))
    shortness = settings.generic_shortness if generic else settings.shortness
    table: Table = {}
    keys: list[KeyStats] = []
    for key in sorted(by_key):
        entries = by_key[key]
        if shared is not None and any((key, t) in shared for t, _ in entries):
            entries = [(t, n) for t, n in entries if (key, t) in shared]
        ranked = sorted(entries, key=lambda t: (-t[1], len(t[0]), t[0]))
        scored = representative(
            ranked[: settings.candidates], ranked[: settings.references], shortness
        )
        best = scored[0][0]
        kept = [
            (t, n)
            for score, (t, n) in scored[: settings.per_key]
            if score >= settings.equivalent * best and n >= settings.min_count
        ] or [scored[0][1]]
        # A request with a value ("Check in on {date}?") and one without ("When?") share a
        # key: the best template of each set of placeholders stays, for the acts it fits.
        have = {frozenset(placeholders(t)) for t, _ in kept}
        for _, (t, n) in scored:
            if frozenset(placeholders(t)) not in have:
                kept.append((t, n))
                have.add(frozenset(placeholders(t)))
        table[key] = kept
        if settings.corpus:
            keys.append(_key_stats(key, ranked, kept[0], settings))
    return table, keys


def _lead(ranked: Sequence[tuple[Table, list[KeyStats]]], settings: MineSettings) -> None:
    """Put first in each key the template ``corpus_choice`` picks over all the tables."""
    pairs = [(table, info) for table, keys in ranked for info in keys]
    choices = corpus_choice([info for _, info in pairs], settings.passes)
    for (table, info), choice in zip(pairs, choices, strict=True):
        chosen = info.candidates[choice][0]
        table[info.key] = [chosen, *(e for e in table[info.key] if e[0] != chosen[0])]


@dataclass
class KeyStats:
    """A key's candidates with their expected n-gram statistics against what people wrote
    for it: (template, count), [matches of n = 1..4, length]; and how often it was said."""

    key: str
    candidates: list[tuple[tuple[str, int], list[float]]]
    weight: int
    reference_length: float
    start: int  # the candidate the per-key choice gave


def _key_stats(
    key: str, ranked: Sequence[tuple[str, int]], first: tuple[str, int], settings: MineSettings
) -> KeyStats:
    written = ranked[: settings.references]
    refs = [(t, _grams(t), n) for t, n in written]
    weight = sum(n for _, n in ranked)
    pool = list(ranked[: settings.candidates])
    if first not in pool:
        pool.append(first)
    candidates = []
    for entry in pool:
        text = entry[0]
        length, grams = _grams(text)
        # leave one out: a candidate's own writing is not evidence that people say it
        total = sum(n - (t == text) for t, _, n in refs)
        if total <= 0:
            total = sum(n for _, _, n in refs)
            own = 0
        else:
            own = 1
        matches = [0.0] * 4
        for t, (_, theirs), n in refs:
            w = n - (own if t == text else 0)
            if not w:
                continue
            for i in range(4):
                matches[i] += w * sum(min(k, theirs[i][g]) for g, k in grams[i].items())
        candidates.append((entry, [m / total for m in matches] + [float(length)]))
    # people's length over all the key's wordings: the rare ones left out of ``refs`` are
    # the long ones
    ref_length = sum(n * _length(t) for t, n in ranked) / max(weight, 1)
    start = pool.index(first)
    return KeyStats(key, candidates, weight, ref_length, start)


def _objective(sums: Sequence[float]) -> float:
    """log corpus BLEU of summed statistics: matches 1..4, hypothesis n-grams 1..4, length,
    reference length."""
    m, c, length, ref = sums[:4], sums[4:8], sums[8], sums[9]
    if min(m) <= 0 or length <= 0:
        return -math.inf
    brevity = min(0.0, 1 - ref / length)
    return brevity + sum(math.log(m[i] / c[i]) for i in range(4)) / 4


def corpus_choice(keys: Sequence[KeyStats], passes: int) -> list[int]:
    """Which candidate each key leads with: coordinate ascent on the corpus BLEU of the
    table's keys, each said as often as people said it, against what they wrote. A
    sentence-level choice per key prefers a key's shortest good wording, so a corpus of
    such choices is shorter than people's, which corpus BLEU penalises; chosen together,
    a frequent key takes a fuller wording where that costs little precision."""

    def row(info: KeyStats, i: int) -> list[float]:
        st = info.candidates[i][1]
        length = st[4]
        f = info.weight
        return (
            [f * x for x in st[:4]]
            + [f * max(length - n, 0.0) for n in range(4)]
            + [f * length, f * info.reference_length]
        )

    choice = [k.start for k in keys]
    rows = [row(k, c) for k, c in zip(keys, choice, strict=True)]
    sums = [sum(r[j] for r in rows) for j in range(10)]
    order = sorted(range(len(keys)), key=lambda i: -keys[i].weight)
    for _ in range(passes):
        changed = False
        for i in order:
            info = keys[i]
            if len(info.candidates) < 2:
                continue
            base = [s - x for s, x in zip(sums, rows[i], strict=True)]
            best, best_row = choice[i], rows[i]
            best_score = _objective(sums)
            for j in range(len(info.candidates)):
                if j == choice[i]:
                    continue
                r = row(info, j)
                score = _objective([b + x for b, x in zip(base, r, strict=True)])
                if score > best_score + 1e-12:
                    best, best_row, best_score = j, r, score
            if best != choice[i]:
                choice[i], rows[i], changed = best, best_row, True
                sums = [b + x for b, x in zip(base, best_row, strict=True)]
        if not changed:
            break
    return choice


_TOKEN = re.compile(r"\{[a-z0-9_.]+\}|\w+|[^\w\s]")
Grams = tuple[int, list[Counter[tuple[str, ...]]]]  # length, n-gram counts for n = 1..4


def _grams(text: str) -> Grams:
    tokens = _TOKEN.findall(text.lower())
    counts = [Counter(zip(*(tokens[i:] for i in range(n)), strict=False)) for n in range(1, 5)]
    return len(tokens), counts


def _length(text: str) -> int:
    return len(_TOKEN.findall(text))


def _bleu(candidate: Grams, reference: Grams, shortness: float) -> float:
    """Smoothed sentence BLEU of two templates (placeholders are tokens), its brevity penalty
    raised to the power ``shortness``."""
    length, grams = candidate
    log = 0.0
    for n, (mine, theirs) in enumerate(zip(grams, reference[1], strict=True)):
        total = max(length - n, 0)
        matched = sum(min(k, theirs[g]) for g, k in mine.items()) if total else 0
        log += math.log((matched + 1) / (total + 1))
    brevity = min(0.0, 1 - reference[0] / max(length, 1))
    return math.exp(log / 4 + shortness * brevity)


def representative(
    candidates: Sequence[tuple[str, int]], written: Sequence[tuple[str, int]], shortness: float
) -> list[tuple[float, tuple[str, int]]]:
    """The candidates with their expected BLEU against what people wrote for the key (each
    wording weighted by how often it was written), best first: the key's medoid leads. A
    short candidate is penalised ``shortness`` times sentence BLEU's brevity penalty, for a
    corpus of a key's shortest wordings is shorter than people's, which BLEU penalises."""
    references = [(_grams(t), n) for t, n in written]
    total = sum(n for _, n in written)
    scored = []
    for entry in candidates:
        grams = _grams(entry[0])
        score = sum(n * _bleu(grams, ref, shortness) for ref, n in references) / total
        scored.append((score, entry))
    scored.sort(key=lambda s: (-s[0], -s[1][1], s[1][0]))
    return scored


def _find(text: str, lowered: str, value: str, taken: list[tuple[int, int]]) -> tuple[int, int]:
    """The first free whole-word occurrence of ``value`` in ``text``, else (-1, -1)."""
    forms = [value]
    if value in NUMBER_WORDS:
        forms.append(NUMBER_WORDS[value])
    for form in forms:
        needle = form.strip().lower()
        if not needle:
            continue
        start = lowered.find(needle)
        while start >= 0:
            end = start + len(needle)
            before = lowered[start - 1] if start else " "
            after = lowered[end] if end < len(lowered) else " "
            edge_ok = not (before.isalnum() and needle[0].isalnum()) and not (
                after.isalnum() and needle[-1].isalnum()
            )
            if edge_ok and not any(s < end and start < e for s, e in taken):
                return start, end
            start = lowered.find(needle, start + 1)
    return -1, -1


def delexicalise(
    utterance: str,
    holders: Sequence[tuple[str, str, str]],
    spans: Sequence[tuple[str, int, int]],
) -> list[tuple[int, int, int]] | str:
    """Where each placeholder's value lies: ``[(start, end, index into holders)]``, or the
    reason the utterance is rejected. ``holders``: (placeholder, slot, value); ``spans``:
    the frame's annotated (slot, start, end)."""
    if "{" in utterance or "}" in utterance:
        return "braces"
    lowered = utterance.lower()
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, int, int]] = []
    for index, (_, slot, value) in enumerate(holders):
        start = end = -1
        for s_slot, s_start, s_end in spans:
            same = s_slot == slot and lowered[s_start:s_end] == value.strip().lower()
            if same and not any(s < s_end and s_start < e for s, e in taken):
                start, end = s_start, s_end
                break
        if start < 0:
            start, end = _find(utterance, lowered, value, taken)
        if start < 0:
            return "value not found"
        taken.append((start, end))
        found.append((start, end, index))
    return found


def render(utterance: str, found: Sequence[tuple[int, int, int]], names: Sequence[str]) -> str:
    text = utterance
    for start, end, index in sorted(found, reverse=True):
        text = text[:start] + "{" + names[index] + "}" + text[end:]
    return _SPACE.sub(" ", text).strip()


def mine_frame(
    mined: Mined,
    service: str,
    schema: ServiceSchema | None,
    utterance: str,
    actions: Sequence[Action],
    spans: Sequence[tuple[str, int, int]],
) -> None:
    """Add one frame's templates to ``mined`` (or count why it was rejected)."""
    mined.turns += 1
    if not actions:
        mined.rejected["no acts"] += 1
        return
    own: Signature = service_signature(actions)
    wide: Signature = generic_signature(actions, schema)
    holders = [(h, own.slots[h], v) for h, v in own.values.items()]
    found = delexicalise(utterance, holders, spans)
    if isinstance(found, str):
        mined.rejected[found] += 1
        return
    template = render(utterance, found, [h for h, _, _ in holders])
    if _DIGIT.search(template):
        mined.rejected["invents a number"] += 1
        return
    if not template:
        mined.rejected["empty"] += 1
        return
    mined.kept += 1
    mined.services[service][(own.key, template)] += 1
    generic = render(utterance, found, list(wide.values))
    mined.generic[service][(wide.key, generic)] += 1


def mine_dialogues(
    mined: Mined,
    dialogues: Iterable[Mapping[str, Any]],
    schemas: Mapping[str, ServiceSchema],
    speaker: str,
    skip_services: frozenset[str] = frozenset(),
) -> None:
    """Mine the single-frame turns of ``speaker`` in raw SGD dialogue objects."""
    for dialogue in dialogues:
        for turn in dialogue["turns"]:
            frames = turn["frames"]
            if turn["speaker"] != speaker or len(frames) != 1:
                continue
            frame = frames[0]
            service = frame["service"]
            if service in skip_services:
                continue
            actions = [Action.model_validate(a) for a in frame["actions"]]
            spans = [(s["slot"], s["start"], s["exclusive_end"]) for s in frame.get("slots", [])]
            mine_frame(mined, service, schemas.get(service), turn["utterance"], actions, spans)
