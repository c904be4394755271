"""The policy model: one logistic regression over hashed candidate features (fitted by the
trainer the carry-over model uses too, ``tod_runtime.learning.fit``) and its file
(``policy.npz``: weights and a JSON config with the decision thresholds; the shipped file's
weights were rounded to float16 when it was written)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property

from pydantic import BaseModel, ConfigDict, Field

from tod_runtime.learning import LinearModel, load_linear
from tod_runtime.policy.learned.features import BITS


class Decisions(BaseModel):
    """The learned policy's decision settings, one typed object saved in the model's config
    (``policy.npz``) beside the weights: ``tod train policy`` writes the values chosen on
    train's held-out services (``train.DECISIONS``); a file without a key has it off."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    offer_floor: float = Field(
        default=0.0,
        ge=0,
        description="after a search with results and no OFFER over its threshold, the OFFERs "
        "scored within this ratio of the best are said (0: none)",
    )
    offer_repeat: bool = Field(
        default=False,
        description="an offer of a search's results names the slots offered of that search "
        "before in the dialogue, when there are any",
    )
    request_floor: float = Field(
        default=0.0,
        ge=0,
        description="when a REQUEST is said, the REQUESTs scored within this ratio of the best "
        "are said with it (0: none)",
    )
    confirm_call: bool = Field(
        default=False,
        description="a transaction's first confirmation names every value of its call the "
        "user did not leave open: its required slots and the optional ones with a default",
    )
    confirm_complete: bool = Field(
        default=False,
        description="a transaction is confirmed once none of its required slots is missing; "
        "until then the model's CONFIRMs give way to a REQUEST of a missing one",
    )
    expected_f1: bool = Field(
        default=False,
        description="the acts said are the set of candidates with the highest expected F1 "
        "against what a system would say (every act over its threshold otherwise)",
    )


@dataclass(frozen=True)
class PolicyModel(LinearModel):
    @property
    def bits(self) -> int:
        return int(self.config.get("bits", BITS))

    @cached_property
    def decisions(self) -> Decisions:
        """How the scores become acts, as saved with the model (absent keys: off)."""
        fields = Decisions.model_fields
        return Decisions.model_validate({k: v for k, v in self.config.items() if k in fields})

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
