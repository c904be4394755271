"""The policy model: one logistic regression over hashed candidate features (fitted by the
trainer the carry-over model uses too, ``tod_runtime.learning.fit``) and its file
(``policy.npz``: float16 weights and a JSON config with the decision thresholds)."""

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

from tod_runtime.errors import DataError
from tod_runtime.policy.learned.features import BITS

Vector = npt.NDArray[np.float32]


@dataclass(frozen=True)
class PolicyModel:
    weights: Vector
    config: dict[str, Any]

    @property
    def bits(self) -> int:
        return int(self.config.get("bits", BITS))

    def threshold(self, kind: str) -> float:
        """The decision threshold of a candidate kind ("CALL" or "acts")."""
        return float(self.config.get("thresholds", {}).get(kind, 0.5))

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
def load_model(path: str | None = None) -> PolicyModel:
    """The model at ``path``, or the one shipped in the package (loaded once per path)."""
    try:
        if path is None:
            with resources.as_file(resources.files(__package__) / "policy.npz") as shipped:
                return _load(shipped)
        return _load(Path(path))
    except (OSError, KeyError, ValueError) as exc:
        raise DataError(
            f"cannot load the policy model: {exc}",
            file=str(path or "tod_runtime/policy/learned/policy.npz"),
            hint="train one with `tod train policy SGD_DIR --out DIR`",
        ) from None


def _load(path: Path) -> PolicyModel:
    with np.load(path, allow_pickle=False) as data:
        return PolicyModel(data["weights"].astype(np.float32), json.loads(str(data["config"])))
