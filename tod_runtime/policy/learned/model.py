"""The policy model: one logistic regression over hashed candidate features (fitted by the
trainer the carry-over model uses too, ``tod_runtime.learning.fit``) and its file
(``policy.npz``: weights and a JSON config with the decision thresholds; the shipped file's
weights were rounded to float16 when it was written)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from tod_runtime.learning import LinearModel, load_linear
from tod_runtime.policy.learned.features import BITS


@dataclass(frozen=True)
class PolicyModel(LinearModel):
    @property
    def bits(self) -> int:
        return int(self.config.get("bits", BITS))

    @property
    def offer_floor(self) -> float:
        """After a search with results and no OFFER over its threshold, the OFFERs scored
        within this ratio of the best are said (0: none)."""
        return float(self.config.get("offer_floor", 0.0))

    @property
    def offer_repeat(self) -> bool:
        """An offer of a search's results names the slots offered of that search before in
        the dialogue, when there are any."""
        return bool(self.config.get("offer_repeat", False))

    @property
    def request_floor(self) -> float:
        """When a REQUEST is said, the REQUESTs scored within this ratio of the best are said
        with it (0: none)."""
        return float(self.config.get("request_floor", 0.0))

    @property
    def confirm_call(self) -> bool:
        """A transaction's first confirmation names every value of its call the user did not
        leave open: its required slots and the optional ones with a default of their own."""
        return bool(self.config.get("confirm_call", False))

    @property
    def confirm_complete(self) -> bool:
        """A transaction is confirmed once none of its required slots is missing; until then
        the model's CONFIRMs give way to a REQUEST of a missing one."""
        return bool(self.config.get("confirm_complete", False))

    @property
    def expected_f1(self) -> bool:
        """The acts said are the set of candidates with the highest expected F1 against what
        a system would say (every act over its threshold otherwise)."""
        return bool(self.config.get("expected_f1", False))

    @property
    def act_sets(self) -> list[frozenset[str]]:
        """The sets of act types SGD train's systems say together in a turn; with
        ``expected_f1``, the acts said are of the types of one of them (any when empty)."""
        return [frozenset(kinds) for kinds in self.config.get("act_sets", [])]

    def threshold(self, kind: str) -> float:
        """The decision threshold of a candidate kind ("CALL" or "acts")."""
        return float(self.config.get("thresholds", {}).get(kind, 0.5))

    def act_threshold(self, name: str) -> float:
        """The decision threshold of one act: its own, else the acts' one."""
        thresholds = self.config.get("thresholds", {})
        return float(thresholds.get(name, thresholds.get("acts", 0.5)))


@cache
def load_model(path: str | None = None) -> PolicyModel:
    """The model at ``path``, or the one shipped in the package (loaded once per path)."""
    return load_linear(
        PolicyModel,
        path,
        package=__name__.rpartition(".")[0],
        file="policy.npz",
        what="policy model",
        train="tod train policy SGD_DIR --out DIR",
    )
