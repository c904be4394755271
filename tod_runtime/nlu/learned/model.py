"""Logistic regression over sparse hashed features, in numpy: rows, a seeded minibatch
AdaGrad trainer with L2, and the model file (``nlu.npz``)."""

from __future__ import annotations

import json
import math
import zipfile
import zlib
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from functools import cached_property
from importlib import resources
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from tod_runtime.errors import DataError
from tod_runtime.nlu.learned.features import BITS

Vector = npt.NDArray[np.float32]


@dataclass
class Rows:
    """Training rows: binary features (bucket indices), a 0/1 label and a weight each, and
    the services each row belongs to (for folds over services): the turn's service and, for
    a row about another service's element (an intent candidate), that one's (-1: none)."""

    indices: array[int] = field(default_factory=lambda: array("i"))
    offsets: array[int] = field(default_factory=lambda: array("q", [0]))
    labels: array[float] = field(default_factory=lambda: array("f"))
    weights: array[float] = field(default_factory=lambda: array("f"))
    service: array[int] = field(default_factory=lambda: array("h"))
    other: array[int] = field(default_factory=lambda: array("h"))

    def add(
        self,
        features: Sequence[int],
        label: bool,
        weight: float = 1.0,
        service: int = -1,
        other: int = -1,
    ) -> None:
        self.indices.extend(features)
        self.offsets.append(len(self.indices))
        self.labels.append(float(label))
        self.weights.append(weight)
        self.service.append(service)
        self.other.append(other)

    def extend(self, other: Rows) -> None:
        base = len(self.indices)
        self.indices.extend(other.indices)
        self.offsets.extend(base + o for o in other.offsets[1:])
        self.labels.extend(other.labels)
        self.weights.extend(other.weights)
        self.service.extend(other.service)
        self.other.extend(other.other)

    def without(self, services: Sequence[int]) -> npt.NDArray[np.int64]:
        """The rows that belong to none of ``services``."""
        out = np.array(services, dtype=np.int16)
        keep = ~np.isin(np.frombuffer(self.service, dtype=np.int16), out)
        keep &= ~np.isin(np.frombuffer(self.other, dtype=np.int16), out)
        return np.flatnonzero(keep).astype(np.int64)

    def __len__(self) -> int:
        return len(self.labels)


def train_logreg(
    rows: Rows,
    *,
    bits: int = BITS,
    epochs: int = 3,
    rate: float = 0.1,
    l2: float = 1e-6,
    batch: int = 1024,
    seed: int = 0,
    subset: npt.NDArray[np.int64] | None = None,
    advance: Callable[[float], None] | None = None,
) -> Vector:
    """Weights of a logistic regression fitted to ``rows`` (a bias is an ordinary feature)."""
    rng = np.random.default_rng(seed)
    idx = np.frombuffer(rows.indices, dtype=np.int32)
    off = np.frombuffer(rows.offsets, dtype=np.int64)
    y = np.frombuffer(rows.labels, dtype=np.float32)
    sw = np.frombuffer(rows.weights, dtype=np.float32)
    w = np.zeros(1 << bits, dtype=np.float64)
    g2 = np.full(1 << bits, 1e-8, dtype=np.float64)
    chosen = np.arange(len(y)) if subset is None else subset
    n = len(chosen)
    for _ in range(epochs):
        order = chosen[rng.permutation(n)]
        for start in range(0, n, batch):
            r = order[start : start + batch]
            lens = off[r + 1] - off[r]
            row_of = np.repeat(np.arange(len(r)), lens)
            shift = np.repeat(off[r] - np.concatenate(([0], np.cumsum(lens)[:-1])), lens)
            feat = idx[shift + np.arange(int(lens.sum()))]
            z = np.bincount(row_of, weights=w[feat], minlength=len(r))
            p = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
            g = (p - y[r]) * sw[r]
            touched, inverse = np.unique(feat, return_inverse=True)
            grad = np.bincount(inverse, weights=g[row_of], minlength=len(touched))
            grad += l2 * w[touched] * len(r)
            g2[touched] += grad * grad
            w[touched] -= rate * grad / np.sqrt(g2[touched])
            if advance is not None:
                advance(len(r))
    return w.astype(np.float32)


SMALL_SCORING = 200  # features: fewer are summed in Python (numpy's calls cost more)


def scores(weights: Vector, rows: Sequence[Sequence[int]]) -> list[float]:
    """The score of each row of features: the sum of its weights, in float64 (as in
    training), for all the rows at once. Few features are summed in a Python loop, in the
    same order, to the same bits (a turn's small scorings: a short utterance's spans, one
    service's slots)."""
    lengths = [len(row) for row in rows]
    if sum(lengths) <= SMALL_SCORING and weights.dtype == np.float32 and weights.ndim == 1:
        values = memoryview(np.ascontiguousarray(weights).data)
        out = []
        for row in rows:
            z = 0.0
            for k in row:
                z += values[k]
            out.append(z)
        return out
    features = np.fromiter(chain.from_iterable(rows), dtype=np.intp, count=sum(lengths))
    row_of = np.repeat(np.arange(len(rows)), lengths)
    sums: list[float] = np.bincount(row_of, weights=weights[features], minlength=len(rows)).tolist()
    return sums


class Weights:
    """One scorer's weights read a feature at a time, for a row scored where it is built
    (no list of buckets, no numpy call): ``weights.of(feature)`` is the weight of a feature
    string, ``weights.at(crc, end)`` that of a string whose first part has the CRC ``crc``
    and whose last part is the bytes ``end`` (as ``hashed_crossed`` hashes). Rows summed
    from these in their features' order, starting from 0.0, equal ``scores`` (float32
    weights added in float64, in order)."""

    def __init__(self, vector: Vector, bits: int) -> None:
        self.values = array("f", np.ascontiguousarray(vector, dtype=np.float32).tobytes())
        self.mask = (1 << bits) - 1

    def of(self, feature: str) -> float:
        return self.values[zlib.crc32(feature.encode()) & self.mask]

    def at(self, crc: int, end: bytes) -> float:
        return self.values[zlib.crc32(end, crc) & self.mask]


def grouped_scores(weights: Vector, groups: Sequence[Sequence[Sequence[int]]]) -> list[list[float]]:
    """``scores`` of each group of rows, all the rows gathered at once."""
    flat = scores(weights, [row for group in groups for row in group])
    out, start = [], 0
    for group in groups:
        out.append(flat[start : start + len(group)])
        start += len(group)
    return out


def probabilities(weights: Vector, rows: Sequence[Sequence[int]]) -> list[float]:
    """The probability of each row of features."""
    return [sigmoid(z) for z in scores(weights, rows)]


def sigmoid(z: float) -> float:
    # ``z`` clipped to [-30, 30] as ``max(-30.0, min(30.0, z))`` does (NaN included: 30.0),
    # without the two builtin calls
    z = z if z < 30.0 else 30.0
    z = z if z > -30.0 else -30.0
    return 1.0 / (1.0 + math.exp(-z))


SCORERS = ("intent", "slots", "spans", "assign", "pick")


@dataclass(frozen=True)
class Thresholds:
    """Every decision threshold of the learned NLU, saved with the model (its config's
    ``thresholds``; `tod train nlu` writes the values chosen on train with services held out,
    training/nlu.py's ``SETTINGS`` says why each). Probabilities, except the margins (logits).
    A model saved without one gets the default here."""

    slots: float = 0.5  # a slot is asked about (the request scorer)
    spans: float = 0.5  # a span of the turn is a value
    assign: float = 0.5  # a span takes a slot
    pick: float = 0.5  # a categorical value is said
    sure_span: float = 2.0  # a span this sure takes its slot from ``sure_assign`` (over 1: never)
    sure_assign: float = math.nan  # default: ``assign``
    sure_pick: float = (
        math.nan
    )  # a value said beside its slot's description words; default: ``pick``
    said_flag: float = 0.02  # a yes/no slot whose description words are said (reader.py)
    known_assign: float = 2.0  # a span the backend knows takes its slot (over 1: never)
    intent_margin: float = 0.0  # values are also read for intents this close to the chosen one
    values_margin: float = 0.0  # a near intent of the service taking more values wins
    service_margin: float = 0.0  # ... and another service's best intent, the same way
    switch_margin: float = math.inf  # an opening of another service leaves the task mid-way
    ask_floor: float = math.nan  # a bare question asks about its likeliest slot; default: ``slots``
    clarify_margin: float = 0.5  # two services this close at an opening: ask which (0: never)

    def __post_init__(self) -> None:
        for name, default in (
            ("sure_assign", "assign"),
            ("sure_pick", "pick"),
            ("ask_floor", "slots"),
        ):
            if math.isnan(getattr(self, name)):
                object.__setattr__(self, name, getattr(self, default))

    @classmethod
    def of(cls, config: dict[str, Any]) -> Thresholds:
        """The thresholds a model's config holds; an unknown name is a broken model file."""
        given = dict(config.get("thresholds", {}))
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(given) - known)
        if unknown:
            raise DataError(
                f"NLU model: unknown threshold {', '.join(map(repr, unknown))}",
                hint=f"known: {', '.join(sorted(known))}; retrain with `tod train nlu`",
            )
        return cls(**{name: float(value) for name, value in given.items()})


@dataclass(frozen=True)
class NLUModel:
    """The weights of every scorer, by name (see SCORERS), and the training configuration."""

    weights: dict[str, Vector]
    config: dict[str, Any]

    @property
    def intent(self) -> Vector:
        return self.weights["intent"]

    @property
    def slots(self) -> Vector:
        return self.weights["slots"]

    @property
    def bits(self) -> int:
        return int(self.config.get("bits", BITS))

    @cached_property
    def thresholds(self) -> Thresholds:
        return Thresholds.of(self.config)

    def save(self, path: str | Path) -> None:
        arrays: dict[str, Any] = {name: w.astype(np.float16) for name, w in self.weights.items()}
        arrays["config"] = np.array(json.dumps(self.config, sort_keys=True))
        np.savez_compressed(path, **arrays)


def load_model(path: str | Path | None = None) -> NLUModel:
    """The model at ``path``, or the one shipped in the package."""
    try:
        if path is None:
            with resources.as_file(resources.files(__package__) / "nlu.npz") as shipped:
                return _load(shipped)
        return _load(Path(path))
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise DataError(
            f"cannot load the NLU model: {exc}",
            file=str(path or "tod_runtime/nlu/learned/nlu.npz"),
            hint="train one with `tod train nlu SGD_DIR --out DIR`",
        ) from None


def _load(path: Path) -> NLUModel:
    # numpy leaves the file open when it is no zip: the file is opened (and closed) here
    with path.open("rb") as file, np.load(file, allow_pickle=False) as data:
        weights = {name: data[name].astype(np.float32) for name in SCORERS if name in data}
        missing = [name for name in SCORERS if name not in weights]
        if missing:
            raise KeyError(f"no weights for {', '.join(missing)}")
        return NLUModel(weights, json.loads(str(data["config"])))
