"""Simulated dialogues beside the SGD dialogues they imitate: how often each act is used (by
speaker, as a share of that speaker's acts) and how long dialogues are, over all dialogues and
over dialogues with the same intents (a dialogue's intents: every active intent of its user
frames; a simulated one's: its tasks' searches and intents)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tod_runtime.data.sgd import open_split
from tod_runtime.progress import progress
from tod_runtime.simulate.runner import Outcome

Intents = frozenset[tuple[str, str]]


@dataclass
class Stats:
    dialogues: int = 0
    turns: int = 0
    user: Counter[str] = field(default_factory=Counter)
    system: Counter[str] = field(default_factory=Counter)
    by_intents: dict[Intents, list[int]] = field(default_factory=dict)

    def add(self, turns: int, user: dict[str, int], system: dict[str, int], key: Intents) -> None:
        self.dialogues += 1
        self.turns += turns
        self.user.update(user)
        self.system.update(system)
        self.by_intents.setdefault(key, []).append(turns)


def reference_stats(root: str, split: str) -> Stats:
    """Act counts and lengths of every dialogue of an SGD split (read as raw JSON: fast)."""
    data = open_split(root, split)
    stats = Stats()
    files = data.dialogue_files()
    with progress(f"read {split} for realism", len(files)) as bar:
        for file in files:
            for dialogue in data.read_raw(file):
                user: Counter[str] = Counter()
                system: Counter[str] = Counter()
                intents: set[tuple[str, str]] = set()
                for turn in dialogue.get("turns", ()):
                    counts = user if turn.get("speaker") == "USER" else system
                    for frame in turn.get("frames", ()):
                        counts.update(a.get("act", "") for a in frame.get("actions", ()))
                        intent = (frame.get("state") or {}).get("active_intent", "NONE")
                        if intent != "NONE":
                            intents.add((frame.get("service", ""), intent))
                stats.add(len(dialogue.get("turns", ())), user, system, frozenset(intents))
            bar.advance()
    return stats


def outcome_intents(outcome: Outcome) -> Intents:
    found = set()
    for task in outcome.goal.tasks:
        found.add((task.service, task.intent))
        if task.search:
            found.add((task.service, task.search))
    return frozenset(found)


def simulated_stats(outcomes: Iterable[Outcome]) -> Stats:
    stats = Stats()
    for o in outcomes:
        stats.add(o.turns, o.user_acts, o.system_acts, outcome_intents(o))
    return stats


def _shares(counts: Counter[str]) -> dict[str, float]:
    total = sum(counts.values()) or 1
    return {act: round(n / total, 4) for act, n in counts.most_common()}


def _side_by_side(sim: Counter[str], ref: Counter[str]) -> dict[str, dict[str, float]]:
    a, b = _shares(sim), _shares(ref)
    return {
        act: {"simulated": a.get(act, 0.0), "reference": b.get(act, 0.0)}
        for act in sorted(set(a) | set(b))
    }


def compare(outcomes: list[Outcome], reference: Stats, label: str) -> dict[str, Any]:
    sim = simulated_stats(outcomes)
    won = simulated_stats(o for o in outcomes if o.verdict.success)
    shared_sim = shared_ref = 0.0
    matched = 0
    for key, lengths in won.by_intents.items():
        ref = reference.by_intents.get(key)
        if not ref:
            continue
        matched += len(lengths)
        shared_sim += sum(lengths)
        shared_ref += len(lengths) * sum(ref) / len(ref)  # the reference, weighted like sim
    return {
        "reference": label,
        "reference_dialogues": reference.dialogues,
        "turns": {
            "simulated": round(sim.turns / sim.dialogues, 2) if sim.dialogues else None,
            "reference": round(reference.turns / reference.dialogues, 2)
            if reference.dialogues
            else None,
        },
        "same_intents": {
            "dialogues": matched,
            "simulated": round(shared_sim / matched, 2) if matched else None,
            "reference": round(shared_ref / matched, 2) if matched else None,
        },
        "user_acts": _side_by_side(sim.user, reference.user),
        "system_acts": _side_by_side(sim.system, reference.system),
    }
