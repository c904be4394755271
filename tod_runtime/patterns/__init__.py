"""Conversation patterns (Rasa's conversation repair as the model): how the runtime holds a
conversation that strays from a task's flow, for any schema. Each is a named unit (see
``units``), run in the order of ``PATTERNS`` by the pipeline after the tracker; the config's
``patterns_off`` switches units off by name. docs/patterns.md lists them with examples."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

from tod_runtime.errors import ConfigError
from tod_runtime.nlu.rules import plain_words
from tod_runtime.patterns.asked import AskedSlot
from tod_runtime.patterns.base import Pattern, PatternTurn
from tod_runtime.patterns.counts import OutOfRange
from tod_runtime.patterns.units import (
    Acknowledge,
    Another,
    Cancel,
    Clarify,
    Decline,
    Digression,
    FollowSearch,
    Greeting,
    NextTask,
    OutOfScope,
    PickResult,
    Refine,
    Repeat,
    Skip,
    TakeOffer,
    ThanksToConfirm,
)

PATTERNS: tuple[Pattern, ...] = (
    Repeat(),
    Greeting(),
    Cancel(),
    Decline(),
    Clarify(),
    Skip(),
    OutOfRange(),
    PickResult(),
    Refine(),
    Another(),
    AskedSlot(),
    Digression(),
    TakeOffer(),
    FollowSearch(),
    NextTask(),
    ThanksToConfirm(),
    Acknowledge(),
    OutOfScope(),
)
NAMES = tuple(p.name for p in PATTERNS)
log = logging.getLogger(__name__)


class Patterns:
    """The patterns a pipeline runs, in order; a pattern that answers the turn ends the run."""

    def __init__(self, units: Sequence[Pattern] = PATTERNS) -> None:
        self.units = tuple(units)

    @classmethod
    def without(cls, off: Iterable[str]) -> Patterns:
        """All patterns but those named in ``off`` (the config's ``patterns_off``)."""
        off = list(off)
        unknown = [name for name in off if name not in NAMES]
        if unknown:
            raise ConfigError(
                f"patterns_off: unknown pattern {', '.join(map(repr, unknown))}",
                hint=f"known: {', '.join(NAMES)}",
            )
        return cls([p for p in PATTERNS if p.name not in off])

    def apply(self, turn: PatternTurn) -> PatternTurn:
        for unit in self.units:
            if turn.answer is not None:
                break
            if unit.applies(turn):
                turn = unit.apply(turn).amended(applied=(*turn.applied, unit.name))
                log.debug("pattern %s applied to %r", unit.name, turn.text)
        return turn


__all__ = ["NAMES", "PATTERNS", "Pattern", "PatternTurn", "Patterns", "plain_words"]
