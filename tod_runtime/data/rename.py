"""Opaque names for a split: the check that nothing in the pipeline reads a name.

``Renaming.opaque(schemas)`` maps every service to ``Service_NN``, every intent to
``Intent_N`` and every slot to ``slot_N`` (numbered over the whole split in schema order, so a
slot shared by name between two services, like ``city``, gets two unrelated names), and
``rename_split`` writes a split's schema.json and dialogues under those names. Descriptions,
possible values, utterances, spans and every dialogue value stay as they were; only names
change, and they change consistently everywhere a name appears: schema slots, intents and
their slot lists, dialogue services, frames, slot spans, acts (``INFORM_INTENT`` and
``OFFER_INTENT`` values are intent names), states, service calls and their results.

``tod data rename SGD_DIR --split dev --out DIR`` runs it; replaying DIR should score as the
original does (tests/data/test_rename.py, ``python benchmarks/rename_gap.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tod_runtime.data.sgd import SGDSplit
from tod_runtime.dialogue.models import Action, Dialogue, Frame, State
from tod_runtime.files import write_json
from tod_runtime.schema.models import IntentSchema, ServiceSchema, SlotSchema

_Slot = Callable[[str], str]  # a slot's new name from its old one
INTENT_SLOT = "intent"  # the slot of INFORM_INTENT / OFFER_INTENT acts: its values are intents
INTENT_ACTS = frozenset({"INFORM_INTENT", "OFFER_INTENT"})  # (a service may have a slot "intent")


@dataclass(frozen=True)
class Renaming:
    """New names of one split's services, and of each service's intents and slots."""

    services: dict[str, str] = field(default_factory=dict)
    intents: dict[str, dict[str, str]] = field(default_factory=dict)  # service -> old -> new
    slots: dict[str, dict[str, str]] = field(default_factory=dict)

    @classmethod
    def opaque(cls, schemas: Iterable[ServiceSchema]) -> Renaming:
        """Deterministic opaque names, numbered in the order of ``schemas``."""
        schemas = list(schemas)
        width = len(str(len(schemas)))
        renaming = cls()
        intent_count = slot_count = 0
        for index, schema in enumerate(schemas, 1):
            name = schema.service_name
            renaming.services[name] = f"Service_{index:0{width}d}"
            intents = renaming.intents[name] = {}
            for intent in schema.intents:
                intent_count += 1
                intents[intent.name] = f"Intent_{intent_count}"
            slots = renaming.slots[name] = {}
            for slot in schema.slots:
                slot_count += 1
                slots[slot.name] = f"slot_{slot_count}"
        return renaming

    # ------------------------------------------------------------ schemas

    def schema(self, schema: ServiceSchema) -> ServiceSchema:
        service = schema.service_name
        slot = self._slot_map(service)
        intent = self.intents.get(service, {})
        return ServiceSchema(
            service_name=self.services.get(service, service),
            description=schema.description,
            slots=[
                SlotSchema(
                    name=slot(s.name),
                    description=s.description,
                    is_categorical=s.is_categorical,
                    possible_values=list(s.possible_values),
                )
                for s in schema.slots
            ],
            intents=[
                IntentSchema(
                    name=intent.get(i.name, i.name),
                    description=i.description,
                    is_transactional=i.is_transactional,
                    required_slots=[slot(s) for s in i.required_slots],
                    optional_slots={slot(s): v for s, v in i.optional_slots.items()},
                    result_slots=[slot(s) for s in i.result_slots],
                )
                for i in schema.intents
            ],
        )

    # ------------------------------------------------------------ dialogues

    def dialogue(self, dialogue: Dialogue) -> Dialogue:
        out = dialogue.model_copy(deep=True)
        out.services = [self.services.get(s, s) for s in dialogue.services]
        for turn in out.turns:
            turn.frames = [self._frame(f) for f in turn.frames]
        return out

    def _frame(self, frame: Frame) -> Frame:
        service = frame.service
        slot = self._slot_map(service)
        intent = self.intents.get(service, {})
        frame.service = self.services.get(service, service)
        for span in frame.slots:
            span.slot = slot(span.slot)
        frame.actions = [self._action(a, slot, intent) for a in frame.actions]
        if frame.state is not None:
            frame.state = self._state(frame.state, slot, intent)
        if frame.service_call is not None:
            call = frame.service_call
            call.method = intent.get(call.method, call.method)
            call.parameters = {slot(k): v for k, v in call.parameters.items()}
        if frame.service_results is not None:
            frame.service_results = [
                {slot(k): v for k, v in row.items()} for row in frame.service_results
            ]
        return frame

    @staticmethod
    def _action(action: Action, slot: _Slot, intent: Mapping[str, str]) -> Action:
        if action.slot == INTENT_SLOT and action.act in INTENT_ACTS:
            values = [intent.get(v, v) for v in action.values]
            canonical = [intent.get(v, v) for v in action.canonical_values]
            return action.model_copy(update={"values": values, "canonical_values": canonical})
        return action.model_copy(update={"slot": slot(action.slot)})

    @staticmethod
    def _state(state: State, slot: _Slot, intent: Mapping[str, str]) -> State:
        return State(
            active_intent=intent.get(state.active_intent, state.active_intent),
            requested_slots=[slot(s) for s in state.requested_slots],
            slot_values={slot(k): list(v) for k, v in state.slot_values.items()},
        )

    def _slot_map(self, service: str) -> _Slot:
        names = self.slots.get(service, {})
        return lambda name: names.get(name, name)


def rename_split(
    split: SGDSplit,
    out: str | Path,
    *,
    files: Sequence[str] | None = None,
    limit: int | None = None,
    renaming: Renaming | None = None,
) -> Path:
    """Write ``split`` (its ``files``, default all; at most ``limit`` dialogues of each) to
    ``out/<split name>/`` under ``renaming`` (default: ``Renaming.opaque``; pass
    ``Renaming()`` to copy the split unchanged). Returns the split folder written."""
    schemas = list(split.schemas().values())
    renaming = Renaming.opaque(schemas) if renaming is None else renaming
    folder = Path(out) / split.name
    folder.mkdir(parents=True, exist_ok=True)
    written = [renaming.schema(s).to_json() for s in schemas]
    write_json(folder / "schema.json", written)  # atomic: a full disk leaves no half file
    for file in split.dialogue_files() if files is None else files:
        dialogues = split.read_file(file)[:limit]
        renamed = [renaming.dialogue(d).to_json() for d in dialogues]
        write_json(folder / file, renamed)
    return folder
