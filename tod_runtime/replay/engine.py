"""Replay one SGD dialogue through a runtime's components and score every stage.

User turns (cascaded, as in DSTC8): the NLU reads the utterance (or the gold acts are given,
``gold_nlu``) with the dataset's previous system turns as context; the tracker's own state
carries forward and is scored per frame against the gold state.
System turns: the policy is given the gold state, the gold user acts and the gold history;
a service call it makes is answered with the recorded results when it matches the
recording (else by the backend); its acts and call are scored against the annotation. The
generator realises the gold acts and is scored against the gold utterance (BLEU).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tod_runtime.dialogue.context import (
    DialogueState,
    PolicyInput,
    TrackerInput,
    TurnContext,
    UserActs,
)
from tod_runtime.dialogue.models import Action, Dialogue, Frame, ServiceCall, State, Turn
from tod_runtime.replay.act_metrics import act_f1, service_call_match
from tod_runtime.replay.state_metrics import frame_state_metrics


@dataclass
class DialogueResult:
    """Everything replay learned about one dialogue (plain data: crosses process bounds)."""

    dialogue_id: str
    file: str
    turns: int
    frames: list[tuple[str, dict[str, float]]] = field(default_factory=list)
    system: list[tuple[str, float, float | None]] = field(default_factory=list)
    generated: list[tuple[str, str, str]] = field(default_factory=list)  # service, hyp, ref
    diffs: list[str] = field(default_factory=list)
    predicted: dict[str, Any] | None = None

    @property
    def passed(self) -> bool:
        return not self.diffs


def _fmt(values: object) -> str:
    return repr(values)


def state_diff(gold: State, pred: State | None) -> list[str]:
    """Where a predicted frame state differs from the gold one. A slot matches when the
    predicted first value is one of the gold variants (case-insensitive)."""
    pred = pred or State()
    out = []
    if gold.active_intent != pred.active_intent:
        out.append(f"active_intent: expected {gold.active_intent!r} got {pred.active_intent!r}")
    if set(gold.requested_slots) != set(pred.requested_slots):
        out.append(
            f"requested_slots: expected {sorted(gold.requested_slots)} "
            f"got {sorted(pred.requested_slots)}"
        )
    for slot in sorted(set(gold.slot_values) | set(pred.slot_values)):
        g, p = gold.slot_values.get(slot), pred.slot_values.get(slot)
        ok = bool(g and p and p[0].lower() in {v.lower() for v in g}) or (not g and not p)
        if not ok:
            out.append(f"slot_values.{slot}: expected {_fmt(g)} got {_fmt(p)}")
    return out


def _acts_text(actions: list[Action]) -> str:
    return "[" + ", ".join(str(a) for a in actions) + "]"


class DialogueReplayer:
    """Replays dialogues with one runtime's components (``runtime.start()`` done)."""

    def __init__(self, runtime: Any, *, gold_nlu: bool, keep_predictions: bool = False) -> None:
        self.rt = runtime
        self.schemas = runtime.schemas
        self.gold_nlu = gold_nlu
        self.keep_predictions = keep_predictions

    async def replay(self, dialogue: Dialogue, file: str) -> DialogueResult:
        result = DialogueResult(dialogue.dialogue_id, file, len(dialogue.turns))
        predicted = dialogue.to_json() if self.keep_predictions else None
        pred_state: DialogueState = {}
        pred_history: list[Turn] = []
        gold_history: list[Turn] = []
        gold_state: DialogueState = {}
        last_user: Turn | None = None
        before_user: list[Turn] = []
        for index, turn in enumerate(dialogue.turns):
            if turn.speaker == "USER":
                pred_state = await self._user_turn(index, turn, pred_state, pred_history, result)
                if predicted is not None:
                    for frame in predicted["turns"][index]["frames"]:
                        state = pred_state.get(frame["service"], State())
                        frame["state"] = state.model_dump(mode="json")
                before_user = list(gold_history)
                for frame in turn.frames:
                    if frame.state is not None:
                        gold_state[frame.service] = frame.state
                last_user = turn
            else:
                if last_user is not None:
                    await self._system_turn(index, turn, last_user, before_user, gold_state, result)
                await self._generate(turn, result)
                pred_history.append(turn)
            gold_history.append(turn)
        result.predicted = predicted
        return result

    async def _user_turn(
        self,
        index: int,
        turn: Turn,
        state: DialogueState,
        history: list[Turn],
        result: DialogueResult,
    ) -> DialogueState:
        context = TurnContext(self.schemas, history, state)
        if self.gold_nlu:
            acts: UserActs = {f.service: list(f.actions) for f in turn.frames}
        else:
            acts = await self.rt.nlu.parse(turn.utterance, context)
        new_state: DialogueState = await self.rt.tracker.update(
            TrackerInput(context, acts, turn.utterance)
        )
        services = list(dict.fromkeys([*acts, *(f.service for f in turn.frames)]))
        frames = [
            Frame(service=s, actions=acts.get(s, []), state=new_state.get(s, State()))
            for s in services
        ]
        history.append(Turn(speaker="USER", utterance=turn.utterance, frames=frames))
        for frame in turn.frames:
            if frame.state is None:
                continue
            pred = new_state.get(frame.service)
            result.frames.append(
                (frame.service, frame_state_metrics(frame.state, pred, self.schemas[frame.service]))
            )
            for line in state_diff(frame.state, pred):
                result.diffs.append(f"turn {index} USER {frame.service} {line}")
        return new_state

    async def _system_turn(
        self,
        index: int,
        turn: Turn,
        user: Turn,
        history: list[Turn],
        gold_state: DialogueState,
        result: DialogueResult,
    ) -> None:
        if not turn.frames:
            return
        gold_frame = turn.frames[0]
        acts = {f.service: list(f.actions) for f in user.frames}
        context = TurnContext(self.schemas, history, dict(gold_state))
        active = user.frames[-1].service if user.frames else gold_frame.service
        plan = await self.rt.policy.decide(PolicyInput(context, acts, active))
        call: ServiceCall | None = plan.service_call
        if call is not None:
            results = self._recorded(plan.service, call)
            if results is None:
                results = await self.rt.backend.call(plan.service, call)
            plan = await self.rt.policy.decide(
                PolicyInput(context, acts, plan.service, call, results)
            )
        gold_actions = [a for f in turn.frames for a in f.actions]
        gold_call = gold_frame.service_call
        f1 = act_f1(gold_actions, plan.actions)
        match = service_call_match(gold_call, call)
        result.system.append((gold_frame.service, f1, match))
        if f1 < 1.0:
            result.diffs.append(
                f"turn {index} SYSTEM {gold_frame.service} acts: expected "
                f"{_acts_text(gold_actions)} got {_acts_text(plan.actions)}"
            )
        if match == 0.0:
            expected = gold_call.model_dump() if gold_call else None
            got = call.model_dump() if call else None
            result.diffs.append(
                f"turn {index} SYSTEM {gold_frame.service} service_call: expected {expected} "
                f"got {got}"
            )

    def _recorded(self, service: str, call: ServiceCall) -> list[dict[str, str]] | None:
        lookup = getattr(self.rt.backend, "recorded", None)
        return lookup(service, call) if callable(lookup) else None

    async def _generate(self, turn: Turn, result: DialogueResult) -> None:
        parts = [await self.rt.generator.generate(f.service, f.actions) for f in turn.frames]
        service = turn.frames[0].service if turn.frames else ""
        result.generated.append((service, " ".join(parts), turn.utterance))
