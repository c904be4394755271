"""Averages of the replay metrics over frames and system turns, by group: all services,
seen and unseen services, and each service."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from tod_runtime.metrics.acts import corpus_bleu
from tod_runtime.metrics.state import STATE_METRICS
from tod_runtime.replay.engine import DialogueResult

METRICS = (
    *STATE_METRICS,
    "system_act_f1",
    "service_call_accuracy",
    "bleu",
    "slot_error_rate",
)
TEXT_METRICS = ("bleu", "slot_error_rate")


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 6) if values else None


class Aggregate:
    def __init__(self, seen: set[str]) -> None:
        self.seen = seen
        self.values: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        self.texts: dict[str, tuple[list[str], list[str]]] = defaultdict(lambda: ([], []))
        self.slot_errors: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # errors, values

    def _groups(self, service: str) -> tuple[str, str, str]:
        return "all", "seen" if service in self.seen else "unseen", f"service:{service}"

    def add(self, result: DialogueResult) -> None:
        for frame in result.frames:
            for group in self._groups(frame.service):
                for key, value in frame.metrics.items():
                    self.values[group][key].append(value)
        for system in result.system:
            for group in self._groups(system.service):
                self.values[group]["system_act_f1"].append(system.act_f1)
                if system.call_match is not None:
                    self.values[group]["service_call_accuracy"].append(system.call_match)
        for text in result.generated:
            for group in self._groups(text.service):
                hyps, refs = self.texts[group]
                hyps.append(text.hypothesis)
                refs.append(text.reference)
                counts = self.slot_errors[group]
                counts[0] += text.slot_errors
                counts[1] += text.values

    def add_all(self, results: Iterable[DialogueResult]) -> None:
        for result in results:
            self.add(result)

    def metrics(self, group: str) -> dict[str, float | None]:
        values = self.values.get(group, {})
        out = {key: _mean(values.get(key, [])) for key in METRICS if key not in TEXT_METRICS}
        hyps, refs = self.texts.get(group, ([], []))
        out["bleu"] = round(corpus_bleu(hyps, refs), 4) if hyps else None
        errors, total = self.slot_errors.get(group, (0, 0))
        out["slot_error_rate"] = round(errors / total, 6) if total else None
        return out

    def services(self) -> list[str]:
        return sorted(g.split(":", 1)[1] for g in set(self.values) | set(self.texts) if ":" in g)
