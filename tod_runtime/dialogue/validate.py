"""Validation of dialogue files: types and SGD rules, errors naming file, dialogue and field."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from tod_runtime.dialogue.models import Dialogue, Frame, State
from tod_runtime.errors import DataError, from_validation_error
from tod_runtime.schema.models import ServiceSchema


def parse_dialogue_list(data: Any, *, file: str = "<dialogues>") -> list[Dialogue]:
    """Validate the decoded content of a dialogues_NNN.json (a JSON list of dialogues)."""
    if not isinstance(data, list):
        raise DataError("expected a JSON list of dialogues", file=file)
    dialogues = []
    for index, item in enumerate(data):
        ident = item.get("dialogue_id") if isinstance(item, dict) else None
        where = f"dialogue {ident}" if ident else f"dialogue #{index}"
        try:
            dialogues.append(Dialogue.model_validate(item))
        except ValidationError as exc:
            raise from_validation_error(exc, DataError, file=file, where=where) from None
    return dialogues


def check_against_schemas(
    dialogue: Dialogue, schemas: Mapping[str, ServiceSchema], *, file: str = "<dialogues>"
) -> None:
    """Check that services, intents and slots a dialogue uses exist in the schemas."""
    where = f"dialogue {dialogue.dialogue_id}"
    for name in dialogue.services:
        if name not in schemas:
            raise DataError(
                f"service {name!r} is not in the schema",
                file=file,
                where=where,
                path="services",
                hint="use the schema.json of the same split",
            )
    for t, turn in enumerate(dialogue.turns):
        for f, frame in enumerate(turn.frames):
            _check_frame(frame, schemas, _At(file, where, f"turns[{t}].frames[{f}]"))


@dataclass(frozen=True)
class _At:
    """Where a frame is, for its errors: the file, the dialogue and the frame's path."""

    file: str
    where: str
    prefix: str

    def error(self, message: str, path: str, hint: str | None = None) -> DataError:
        return DataError(
            message, file=self.file, where=self.where, path=f"{self.prefix}.{path}", hint=hint
        )


def _check_frame(frame: Frame, schemas: Mapping[str, ServiceSchema], at: _At) -> None:
    if frame.service not in schemas:
        raise at.error(f"service {frame.service!r} is not in the schema", "service")
    schema = schemas[frame.service]
    for a, action in enumerate(frame.actions):
        slot = action.slot
        if slot and slot not in ("intent", "count") and slot not in schema.slot_map:
            raise at.error(f"slot {slot!r} is not a slot of {frame.service}", f"actions[{a}].slot")
    if frame.state is not None:
        _check_state(frame.state, frame.service, schema, at)
    call = frame.service_call
    if call is not None and call.method not in schema.intent_map:
        raise at.error(
            f"method {call.method!r} is not an intent of {frame.service}", "service_call.method"
        )


def _check_state(state: State, service: str, schema: ServiceSchema, at: _At) -> None:
    if state.active_intent != "NONE" and state.active_intent not in schema.intent_map:
        raise at.error(
            f"intent {state.active_intent!r} is not an intent of {service}", "state.active_intent"
        )
    for slot in [*state.slot_values, *state.requested_slots]:
        if slot not in schema.slot_map:
            raise at.error(f"slot {slot!r} is not a slot of {service}", "state")
    for slot, values in state.slot_values.items():
        if not values:
            raise at.error(
                "a slot in the state has no value",
                f"state.slot_values.{slot}",
                hint="leave the slot out, or give it its value(s)",
            )
