"""The carry-over model: a logistic regression over hashed candidate features (the linear model
of ``tod_runtime.learning``: full-batch trainer, each distinct row weighted by how often it was
seen) and its file (``carry.npz``: float32 weights and a JSON config)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property

from tod_runtime.dst.learned.features import BITS, SlotView, description_key
from tod_runtime.learning import LinearModel, load_linear


@dataclass(frozen=True)
class CarryModel(LinearModel):
    @property
    def bits(self) -> int:
        return int(self.config.get("bits", BITS))

    @property
    def threshold(self) -> float:
        return float(self.config.get("threshold", 0.5))

    @property
    def fallback(self) -> bool:
        """Whether the weights hold, after the main model's, those of the fallback model
        (``features.unknown_source``), trained on the same rows."""
        return bool(self.config.get("fallback")) and len(self.weights) >= 2 << self.bits

    @property
    def reworded(self) -> bool:
        """Whether the weights hold, after the fallback model's, those of the reworded model:
        the main model's features, fitted on the same rows and on SGD-X's rewordings of them,
        for the frames of a service the main model does not know (``carry.carry_over``)."""
        return bool(self.config.get("reworded")) and len(self.weights) >= 3 << self.bits

    @cached_property
    def _known(self) -> frozenset[int]:
        return frozenset(int(k) for k in self.config.get("known_slots", []))

    @cached_property
    def _reworded_known(self) -> frozenset[int]:
        return frozenset(int(k) for k in self.config.get("reworded_slots", []))

    def knows(self, view: SlotView, *, reworded: bool = False) -> bool:
        """Whether a slot of the services the model was trained on is described as ``view``
        (its ``description_key``) in SGD's wording (or, with ``reworded``, in one of the
        rewordings the reworded model learned from too): its scores are those of a slot
        seen in training."""
        key = description_key(view)
        return key in self._known or (reworded and key in self._reworded_known)


@cache
def load_model(path: str | None = None) -> CarryModel:
    """The model at ``path``, or the one shipped in the package (loaded once per path)."""
    return load_linear(
        CarryModel,
        path,
        package=__name__.rpartition(".")[0],
        file="carry.npz",
        what="carry-over model",
        train="tod train dst SGD_DIR --out DIR",
    )
