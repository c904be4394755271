"""The carry-over model: a logistic regression over hashed candidate features, its numpy
trainer (full batch, each distinct row weighted by how often it was seen) and its file
(``carry.npz``: float16 weights and a JSON config)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from tod_runtime.dst.learned.features import BITS
from tod_runtime.errors import DataError

Vector = npt.NDArray[np.float32]


@dataclass(frozen=True)
class CarryModel:
    weights: Vector
    config: dict[str, Any]

    @property
    def bits(self) -> int:
        return int(self.config.get("bits", BITS))

    @property
    def threshold(self) -> float:
        return float(self.config.get("threshold", 0.5))

    def probability(self, features: Sequence[int]) -> float:
        z = float(self.weights[list(features)].sum())
        return 1.0 / (1.0 + float(np.exp(-min(max(z, -30.0), 30.0))))

    def save(self, path: str | Path) -> None:
        np.savez_compressed(
            path,
            weights=self.weights.astype(np.float16),
            config=np.array(json.dumps(self.config, sort_keys=True)),
        )


@cache
def load_model(path: str | None = None) -> CarryModel:
    """The model at ``path``, or the one shipped in the package (loaded once per path)."""
    try:
        if path is None:
            with resources.as_file(resources.files(__package__) / "carry.npz") as shipped:
                return _load(shipped)
        return _load(Path(path))
    except (OSError, KeyError, ValueError) as exc:
        raise DataError(
            f"cannot load the carry-over model: {exc}",
            file=str(path or "tod_runtime/dst/learned/carry.npz"),
            hint="train one with `tod train dst SGD_DIR --out DIR`",
        ) from None


def _load(path: Path) -> CarryModel:
    with np.load(path, allow_pickle=False) as data:
        return CarryModel(data["weights"].astype(np.float32), json.loads(str(data["config"])))
