"""What the trainers share: the deterministic full-batch logistic-regression trainer of the
linear models (``tod_runtime.learning.LinearModel``), the folds over services of ``--cv K``,
SGD-X's rewordings of a split, and the worker processes a trainer reads a split with
(``split_pool``, ``collect_rows``)."""

from __future__ import annotations

import random
import signal
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from multiprocessing import get_context
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from tod_runtime.learning import Vector
from tod_runtime.progress import progress
from tod_runtime.schema.roles import bind_values

if TYPE_CHECKING:
    from tod_runtime.data.sgd import SGDSplit
    from tod_runtime.dialogue.models import Dialogue
    from tod_runtime.schema.loader import Schemas
    from tod_runtime.schema.models import ServiceSchema


def fit(
    rows: Sequence[tuple[Sequence[int], float, float]],
    *,
    bits: int,
    l2: float,
    iterations: int,
    rate: float,
    blocks: int = 1,
) -> Vector:
    """Weights fitted to ``rows`` of (features, times seen as positive, times as negative):
    full-batch AdaGrad on the summed logistic loss plus ``l2`` times the squared weights.
    ``blocks`` models of ``2**bits`` weights each side by side (a row's features index the
    whole vector). Deterministic (no sampling), so no seed is needed."""
    size = blocks << bits
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


def service_folds(services: Iterable[str], k: int, seed: int) -> list[frozenset[str]]:
    """``--cv K``'s folds: the services, sorted then shuffled by ``seed``, dealt into ``k``."""
    names = sorted(services)
    random.Random(seed).shuffle(names)
    return [frozenset(names[i::k]) for i in range(k)]


# ---------------------------------------------------------------- trainers' worker processes

_split: SGDSplit | None = None
Key = TypeVar("Key")
RowCounts = dict[Key, list[int]]  # a row's key -> [times positive, times negative]


def quiet_worker_signals() -> None:
    """In a trainer's worker process: Ctrl-C and SIGTERM sent to the whole process group
    are the parent's to handle (it ends the pool); a worker never prints a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _init_split(split: SGDSplit) -> None:
    global _split
    quiet_worker_signals()
    _split = split


def split_pool(split: SGDSplit, workers: int) -> Any:
    """Worker processes that each hold ``split`` (``worker_split()`` in them)."""
    return get_context("spawn").Pool(max(workers, 1), _init_split, (split,))


def worker_split() -> SGDSplit:
    """The split of this ``split_pool`` worker."""
    assert _split is not None
    return _split


_wordings: list[Mapping[str, ServiceSchema]] | None = None


def worker_wordings() -> list[Mapping[str, ServiceSchema]]:
    """The schemas of this ``split_pool`` worker's split in every wording: SGD's first, then
    SGD-X's rewordings in the same names (``reworded_variants``; none when the
    dataset has no SGD-X schemas), read once per worker."""
    global _wordings
    if _wordings is None:
        split = worker_split()
        _wordings = [split.schemas(), *reworded_variants(split)]
    return _wordings


def reworded_variants(split: SGDSplit) -> list[Schemas]:
    """Every SGD-X rewording of the split's schemas in the original's names
    (``data.sgdx.reworded_schemas``), the slot types their descriptions leave open decided by
    the split's recorded values, as the runtime's backend decides them
    (``schema.roles.bind_values``)."""
    from tod_runtime.backends.sgd_tables import recorded_values
    from tod_runtime.data.sgdx import reworded_schemas

    out = reworded_schemas(split)
    known = recorded_values(split, transactions=False) if out else {}
    for schemas in out:
        for service, schema in schemas.items():
            bind_values(schema, known[service])
    return out


def rewording_of(dialogue_id: str, rewordings: int) -> int:
    """Which of ``rewordings`` a dialogue is also learned from, the same on every run."""
    return zlib.crc32(dialogue_id.encode()) % rewordings


DialogueRows = Callable[["Dialogue", Mapping[str, "ServiceSchema"], RowCounts[Key]], None]


def _file_rows(dialogue_rows: DialogueRows[Key], file: str) -> RowCounts[Key]:
    split = worker_split()
    schemas = split.schemas()
    out: RowCounts[Key] = {}
    for dialogue in split.read_file(file):
        dialogue_rows(dialogue, schemas, out)
    return out


def collect_rows(
    pool: Any, files: Sequence[str], dialogue_rows: DialogueRows[Key], label: str
) -> RowCounts[Key]:
    """The rows ``dialogue_rows`` counts over ``files``, read by ``pool``'s workers, merged."""
    counts: RowCounts[Key] = {}
    with progress(label, len(files)) as bar:
        for part in pool.imap(partial(_file_rows, dialogue_rows), files):
            for key, (pos, neg) in part.items():
                total = counts.setdefault(key, [0, 0])
                total[0] += pos
                total[1] += neg
            bar.advance()
    return counts
