"""Replay one recorded dialogue through the runtime's pipeline and score every stage.

The dialogue runs as a session, as chat would run it: each user turn goes through the
pipeline's user step (the NLU reads the utterance, or the gold acts are given) and the tracker's
own state carries forward in the session's event log; each recorded system turn is folded into
that log as what the system did, so the next user turn has the recorded context. Observer
hooks fire as in chat.

System turns are scored teacher-forced, as DSTC8 scores each component: the pipeline's system
step runs on the gold state, the gold user acts and the recorded history; a service call it
makes gets the recorded results when it matches the recording (the ``RecordedBackend``). The
generator also realises the gold acts, scored against the recorded utterance (BLEU).

``exact``: every turn must agree with the recording to the letter (user acts, full state,
system acts, call and utterance): the check for conversations recorded with ``tod chat``.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, Field

from tod_runtime.backends.recorded import TURN_RECORDINGS
from tod_runtime.backends.sgd_tables import Recordings, record_key
from tod_runtime.dialogue.context import DialogueState, TurnContext, UserActs
from tod_runtime.dialogue.history import History
from tod_runtime.dialogue.models import Action, Dialogue, State, Turn
from tod_runtime.dialogue.steps import SystemStep, TurnResult, UserStep
from tod_runtime.errors import StageFailed
from tod_runtime.metrics.acts import act_f1, service_call_match, slot_errors
from tod_runtime.metrics.state import frame_state_metrics
from tod_runtime.metrics.state_errors import StateError, frame_errors
from tod_runtime.runtime import Runtime
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.session import SessionLog, system_events, user_events


class FrameScore(BaseModel):
    """The DSTC8 state metrics of one gold user frame."""

    service: str
    metrics: dict[str, float]


class SystemScore(BaseModel):
    """One system turn: act F1 against the annotation, and whether the service call matched
    (None when neither the annotation nor the policy made one)."""

    service: str
    act_f1: float
    call_match: float | None


class Realised(BaseModel):
    """The generator's text for the gold acts of a system turn, the recorded text, and the
    slot errors of the text (``metrics.acts.slot_errors``: missing or invented values, out of
    ``values``)."""

    service: str
    hypothesis: str
    reference: str
    slot_errors: int = 0
    values: int = 0


class DialogueResult(BaseModel):
    """Everything replay learned about one dialogue (plain data: crosses process bounds)."""

    dialogue_id: str
    file: str
    turns: int
    frames: list[FrameScore] = Field(default_factory=list)
    system: list[SystemScore] = Field(default_factory=list)
    generated: list[Realised] = Field(default_factory=list)
    diffs: list[str] = Field(default_factory=list)
    errors: list[StateError] = Field(default_factory=list)  # with keep_errors
    predicted: Dialogue | None = None  # the dialogue with the predicted state in user frames

    @property
    def passed(self) -> bool:
        return not self.diffs


def state_diff(gold: State, pred: State | None, *, exact: bool = False) -> list[str]:
    """Where a predicted frame state differs from the gold one. A slot matches when the
    predicted first value is one of the gold variants (case-insensitive); ``exact``: when the
    value lists are equal."""
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
        if exact:
            ok = g == p
        else:
            ok = bool(g and p and p[0].lower() in {v.lower() for v in g}) or (not g and not p)
        if not ok:
            out.append(f"slot_values.{slot}: expected {g!r} got {p!r}")
    return out


def _acts_text(actions: list[Action]) -> str:
    return "[" + ", ".join(str(a) for a in actions) + "]"


def _turn_recordings(turn: Turn) -> Recordings:
    """The calls a recorded system turn made, with their results."""
    return {
        record_key(frame.service, frame.service_call): list(frame.service_results or [])
        for frame in turn.frames
        if frame.service_call is not None
    }


def _recorded_step(turn: Turn) -> SystemStep:
    """A recorded system turn as the system step chat would have produced (SGD system turns
    have one frame)."""
    frame = turn.frames[0]
    return SystemStep(
        service=frame.service,
        actions=list(frame.actions),
        service_call=frame.service_call,
        service_results=frame.service_results,
        utterance=turn.utterance,
    )


def _gold_acts(turn: Turn) -> UserActs:
    """The turn's annotated acts per frame; a frame without acts (a recorded chat keeps the
    state of a frame the user said nothing to) is not addressed."""
    return {f.service: list(f.actions) for f in turn.frames if f.actions}


def _acted(acts: UserActs) -> UserActs:
    """The services that have acts: a recorded frame with no acts only carries state."""
    return {service: actions for service, actions in acts.items() if actions}


class DialogueReplayer:
    """Replays dialogues through one started runtime's pipeline."""

    def __init__(
        self,
        runtime: Runtime,
        *,
        gold_nlu: bool,
        keep_predictions: bool = False,
        keep_errors: bool = False,
        exact: bool = False,
        dialogue_services: bool = True,
        lower_case: bool = False,
    ) -> None:
        self.runtime = runtime
        self.schemas = runtime.schemas
        self.gold_nlu = gold_nlu
        self.keep_predictions = keep_predictions
        self.keep_errors = keep_errors
        self.exact = exact
        self.dialogue_services = dialogue_services
        self.lower_case = lower_case

    async def replay(self, dialogue: Dialogue, file: str) -> DialogueResult:
        """Replay one dialogue. A component that fails (or runs over the turn's time limit)
        ends the dialogue's replay: it counts as failed, with the error as its last diff."""
        result = DialogueResult(
            dialogue_id=dialogue.dialogue_id, file=file, turns=len(dialogue.turns)
        )
        run = _DialogueRun(self, dialogue, result)
        pipeline = self.runtime.pipeline
        for index, turn in enumerate(dialogue.turns):
            try:
                async with pipeline.time_limit():
                    if turn.speaker == "USER":
                        await run.user_turn(index, turn)
                    else:
                        await run.system_turn(index, turn)
            except StageFailed as failed:
                result.diffs.append(f"turn {index} {turn.speaker}: {failed}")
                break
        result.predicted = run.predicted
        return result

    def score_user(self, index: int, turn: Turn, user: UserStep, result: DialogueResult) -> None:
        if self.exact and not self.gold_nlu and _acted(user.acts) != _acted(_gold_acts(turn)):
            got = {s: _acts_text(a) for s, a in user.acts.items()}
            want = {s: _acts_text(a) for s, a in _gold_acts(turn).items()}
            result.diffs.append(f"turn {index} USER acts: expected {want} got {got}")
        for frame in turn.frames:
            if frame.state is None:
                continue
            pred = user.state.get(frame.service)
            schema = self.schemas[frame.service]
            metrics = frame_state_metrics(frame.state, pred, schema)
            if self.keep_errors:
                where = (result.dialogue_id, index, turn.utterance)
                result.errors += frame_errors(frame.state, pred, schema, where)
            result.frames.append(FrameScore(service=frame.service, metrics=metrics))
            for line in state_diff(frame.state, pred, exact=self.exact):
                result.diffs.append(f"turn {index} USER {frame.service} {line}")

    def score_system(
        self, index: int, turn: Turn, system: SystemStep, result: DialogueResult
    ) -> None:
        gold_frame = turn.frames[0]
        gold_actions = [a for f in turn.frames for a in f.actions]
        gold_call = gold_frame.service_call
        f1 = act_f1(gold_actions, system.actions)
        match = service_call_match(gold_call, system.service_call)
        service = gold_frame.service
        result.system.append(SystemScore(service=service, act_f1=f1, call_match=match))
        if f1 < 1.0 or (self.exact and system.actions != gold_actions):
            result.diffs.append(
                f"turn {index} SYSTEM {service} acts: expected "
                f"{_acts_text(gold_actions)} got {_acts_text(system.actions)}"
            )
        if match == 0.0:
            expected = gold_call.model_dump() if gold_call else None
            got = system.service_call.model_dump() if system.service_call else None
            result.diffs.append(
                f"turn {index} SYSTEM {service} service_call: expected {expected} got {got}"
            )
        if self.exact and system.utterance != turn.utterance:
            result.diffs.append(
                f"turn {index} SYSTEM utterance: expected {turn.utterance!r} "
                f"got {system.utterance!r}"
            )

    async def realise(self, turn: Turn, result: DialogueResult) -> None:
        pipeline = self.runtime.pipeline
        parts = [await pipeline.realise(f.service, f.actions) for f in turn.frames]
        service = turn.frames[0].service if turn.frames else ""
        hypothesis = " ".join(parts)
        errors, values = slot_errors([a for f in turn.frames for a in f.actions], hypothesis)
        result.generated.append(
            Realised(
                service=service,
                hypothesis=hypothesis,
                reference=turn.utterance,
                slot_errors=errors,
                values=values,
            )
        )


class _DialogueRun:
    """One dialogue being replayed: the pipeline's own session (as in chat), the recording so
    far (the policy's teacher-forced context) and the gold state."""

    def __init__(self, replayer: DialogueReplayer, dialogue: Dialogue, result: DialogueResult):
        self.replayer = replayer
        self.pipeline = replayer.runtime.pipeline
        self.schemas: Mapping[str, ServiceSchema] = replayer.schemas
        if replayer.dialogue_services:  # the turns may address the dialogue's services only
            self.schemas = {s: self.schemas[s] for s in dialogue.services if s in self.schemas}
        self.sid = dialogue.dialogue_id
        self.result = result
        self.predicted = dialogue.model_copy(deep=True) if replayer.keep_predictions else None
        self.session = SessionLog()
        self.recorded = History()  # the recording before the current user turn
        self.gold_state: DialogueState = {}
        self.user: UserStep | None = None
        self.last_user: Turn | None = None
        self.pending: Turn | None = None  # the user turn not yet in `recorded`

    async def user_turn(self, index: int, turn: Turn) -> None:
        text = turn.utterance.lower() if self.replayer.lower_case else turn.utterance
        await self.pipeline.turn_started(self.sid, text)
        acts = _gold_acts(turn) if self.replayer.gold_nlu else None
        context = self.session.context(self.schemas)
        user = self.user = await self.pipeline.user_step(context, text, acts)
        self.session.apply(user_events(user))
        self.replayer.score_user(index, turn, user, self.result)
        if self.predicted is not None:
            for frame in self.predicted.turns[index].frames:
                frame.state = user.state.get(frame.service, State())
        if self.pending is not None:  # two user turns in a row
            self.recorded.append(self.pending)
        for frame in turn.frames:
            if frame.state is not None:
                self.gold_state[frame.service] = frame.state
        self.last_user = self.pending = turn

    async def system_turn(self, index: int, turn: Turn) -> None:
        user, last_user = self.user, self.last_user
        if last_user is not None and user is not None and turn.frames:
            context = TurnContext(self.schemas, self.recorded, dict(self.gold_state))
            token = TURN_RECORDINGS.set(_turn_recordings(turn))
            try:
                system = await self.pipeline.system_step(self.sid, context, _gold_acts(last_user))
            finally:
                TURN_RECORDINGS.reset(token)
            self.replayer.score_system(index, turn, system, self.result)
            await self.pipeline.turn_finished(self.sid, TurnResult.of(self.sid, user, system))
        await self.replayer.realise(turn, self.result)
        if turn.frames:
            self.session.apply(system_events(_recorded_step(turn)))
        if self.pending is not None:
            self.recorded.append(self.pending)
            self.pending = None
        self.recorded.append(turn)
