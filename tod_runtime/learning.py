"""What the learned components share (stages do not import one another): the content words of
a schema description, and the deterministic full-batch logistic-regression trainer of the
tracker's carry-over model and the learned policy."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from tod_runtime.schema.roles import FUNCTION_WORDS

ARTICLES = frozenset({"a", "an", "the", "in", "it", "its", "this", "these", "those", "there"})
_WORD = re.compile(r"[a-z]+")


def stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:6]


def content_words(text: str) -> tuple[str, ...]:
    """The stems of ``text``'s content words, in order, once each."""
    skip = FUNCTION_WORDS | ARTICLES
    found = (stem(w) for w in _WORD.findall(text.lower()) if w not in skip and len(w) > 1)
    return tuple(dict.fromkeys(found))


def fit(
    rows: Sequence[tuple[Sequence[int], float, float]],
    *,
    bits: int,
    l2: float,
    iterations: int,
    rate: float,
) -> npt.NDArray[np.float32]:
    """Weights fitted to ``rows`` of (features, times seen as positive, times as negative):
    full-batch AdaGrad on the summed logistic loss plus ``l2`` times the squared weights.
    Deterministic (no sampling), so no seed is needed."""
    size = 1 << bits
    lengths = np.array([len(f) for f, _, _ in rows], dtype=np.int64)
    feats = np.fromiter((i for f, _, _ in rows for i in f), dtype=np.int64, count=lengths.sum())
    row_of = np.repeat(np.arange(len(rows)), lengths)
    pos = np.array([p for _, p, _ in rows], dtype=np.float64)
    total = pos + np.array([n for _, _, n in rows], dtype=np.float64)
    w = np.zeros(size, dtype=np.float64)
    g2 = np.full(size, 1e-8, dtype=np.float64)
    for _ in range(iterations):
        z = np.bincount(row_of, weights=w[feats], minlength=len(rows))
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
        g = total * p - pos
        grad = np.bincount(feats, weights=g[row_of], minlength=size) + 2 * l2 * w
        g2 += grad * grad
        w -= rate * grad / np.sqrt(g2)
    return w.astype(np.float32)
