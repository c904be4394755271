"""What the system has said so far, per service, read from the dialogue history."""

from __future__ import annotations

from collections.abc import Sequence

from tod_runtime.dialogue.models import Action, Turn
from tod_runtime.schema.models import ServiceSchema


class SystemMemory:
    """Looks back through the history's system turns (newest first), lazily."""

    def __init__(self, history: Sequence[Turn]) -> None:
        self._system = [t for t in reversed(history) if t.speaker == "SYSTEM"]

    def last_acts(self, service: str) -> list[Action]:
        """The previous system turn's acts in ``service`` (empty if it spoke of another)."""
        if not self._system:
            return []
        frame = self._system[0].frame(service)
        return list(frame.actions) if frame else []

    def current_offer(self, service: str) -> list[Action]:
        """The OFFER acts of the latest system turn in ``service`` that made an offer."""
        for turn in self._system:
            frame = turn.frame(service)
            if frame is None:
                continue
            offers = [a for a in frame.actions if a.act == "OFFER" and a.slot]
            if offers:
                return offers
        return []

    def confirmed(self, service: str, slot: str) -> list[str]:
        """The values the system last asked the user to confirm for ``slot`` in ``service``."""
        for turn in self._system:
            frame = turn.frame(service)
            if frame is None:
                continue
            for act in frame.actions:
                if act.act == "CONFIRM" and act.slot == slot and act.values:
                    return list(act.values)
        return []

    def mentioned_spot(self, service: str, schema: ServiceSchema) -> list[str]:
        """The newest address or venue the system told the user about in ``service``."""
        from tod_runtime.dst.carry import is_spot

        for turn in self._system:
            frame = turn.frame(service)
            if frame is None:
                continue
            for act in frame.actions:
                spec = schema.slot(act.slot)
                if act.act in ("INFORM", "OFFER") and act.values and spec and is_spot(spec):
                    return list(act.values)
        return []
