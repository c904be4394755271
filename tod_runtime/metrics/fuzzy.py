"""DSTC8's fuzzy match of a non-categorical value, exactly as the official script scores it.

The DSTC8 evaluation (google-research schema_guided_dst/metrics.py) scores a predicted
non-categorical value by ``fuzz.token_sort_ratio(gold, predicted) / 100`` of fuzzywuzzy 0.18
as its requirements install it, without python-Levenshtein, so on difflib. This module is that
function re-written with the standard library (fuzzywuzzy is GPL; it is only a test
dependency, and tests/replay/test_fuzzy.py checks the two agree), step by step:

1. ``force_ascii``: the characters U+0080..U+00FF are deleted (only those: fuzzywuzzy's
   "asciidammit" table covers 128..255; a character above U+00FF stays);
2. every character matched by ``re.compile(r"(?ui)\\W")`` becomes a space (so ``_`` and
   every Unicode letter or digit stay), then ``str.lower`` and ``str.strip``;
3. the whitespace-separated tokens are sorted and joined by single spaces;
4. equal results score 100 (two empty strings included), else an empty one scores 0, else
   ``int(round(100 * difflib.SequenceMatcher(None, a, b).ratio()))`` (Python's round: half
   to even). The order matters: difflib's ratio is not symmetric, the gold value comes first.

rapidfuzz's ``token_sort_ratio`` is not a drop-in: its Indel ratio is the optimal one, difflib's
is its greedy matching blocks', and the two differ on some pairs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from difflib import SequenceMatcher
from functools import lru_cache

_NON_WORD = re.compile(r"(?ui)\W")
_LATIN1 = {code: None for code in range(128, 256)}


@lru_cache(maxsize=65536)
def sort_tokens(text: str) -> str:
    """fuzzywuzzy's ``_process_and_sort(text, force_ascii=True)``."""
    processed = _NON_WORD.sub(" ", text.translate(_LATIN1)).lower().strip()
    return " ".join(sorted(processed.split())).strip()


@lru_cache(maxsize=65536)
def token_sort_ratio(gold: str, predicted: str) -> int:
    """fuzzywuzzy 0.18's ``fuzz.token_sort_ratio(gold, predicted)`` on difflib: 0..100."""
    a, b = sort_tokens(gold), sort_tokens(predicted)
    if a == b:
        return 100
    if not a or not b:
        return 0
    return int(round(100 * SequenceMatcher(None, a, b).ratio()))


def fuzzy_match(gold_values: Iterable[str], predicted: str) -> float:
    """DSTC8's ``noncat_slot_value_match``: the best ratio over the gold variants, / 100."""
    score = 0.0
    for gold in gold_values:
        score = max(score, token_sort_ratio(gold, predicted) / 100.0)
    return score
