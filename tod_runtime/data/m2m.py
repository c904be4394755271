"""M2M (Shah et al. 2018) sim-M / sim-R dialogues -> an SGD split folder.

The M2M files are lists of dialogues whose turns pair a system turn with the user's answer
(the first turn has no system part): token lists with token-indexed slot spans, acts without
values on the user side, a cumulative ``dialogue_state`` list and ``user_intents`` on the first
turn. ``convert_files`` turns them into SGD's format:

- one service, named by the dialogue ids' prefix (``movies_00000001`` -> ``movies``), whose
  schema is inferred from the data: a slot per slot name met (categorical, with its values as
  possible values, when it takes at most ``CATEGORICAL_MAX`` distinct values); an intent per
  user intent, transactional when its dialogues end with a NOTIFY_SUCCESS / NOTIFY_FAILURE,
  whose required slots are those every successful booking of it had filled (the others
  optional); every slot a result slot;
- turns: user_0, system_1, user_1, ... (the M2M pair order), utterances as written; token
  spans become character spans of the utterance;
- user acts: INFORM becomes ``INFORM(slot=value)`` per slot span of the utterance (the value
  as said; the canonical value the state's when they differ); ``AFFIRM(slot)``, the user
  choosing among values the system listed, becomes ``SELECT(slot=value)``; ``GOOD_BYE``
  ``GOODBYE``; the first turn's ``user_intents`` ``INFORM_INTENT(intent=...)``; GREETING,
  CANT_UNDERSTAND and OTHER have no SGD act and are dropped. A state value that changes in a
  turn with no act giving it (rare: a value taken from the system's turn) gets an INFORM
  with the state's value, so the acts explain the state;
- system acts: SELECT (the system listing choices) becomes OFFER, NEGATE(slot=value) (a value
  not available) NOTIFY_FAILURE(slot=value), GOOD_BYE GOODBYE; REQUEST, CONFIRM, OFFER,
  NOTIFY_SUCCESS and NOTIFY_FAILURE keep their name, slot and value; the rest is dropped;
- state: ``dialogue_state`` becomes the frame's slot values, the latest named intent its
  active intent, the user's REQUEST slots its requested slots.

The split is named by the file (``sim-M-dev.json`` -> dev) unless given; several files written
together share one inferred schema.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tod_runtime.dialogue.models import Action, Dialogue, Frame, SlotSpan, State, Turn, act
from tod_runtime.dialogue.validate import check_against_schemas
from tod_runtime.errors import DataError
from tod_runtime.files import check_output_dir, write_json
from tod_runtime.schema.loader import Schemas
from tod_runtime.schema.models import IntentSchema, ServiceSchema, SlotSchema

CATEGORICAL_MAX = 6
FILE_SIZE = 128  # dialogues per dialogues_NNN.json, as in SGD
_SPLIT = re.compile(r"(train|dev|test)", re.IGNORECASE)
_DROPPED = frozenset({"GREETING", "CANT_UNDERSTAND", "OTHER"})
_SYSTEM = {"SELECT": "OFFER", "NEGATE": "NOTIFY_FAILURE", "GOOD_BYE": "GOODBYE"}
_SYSTEM_KEPT = frozenset({"REQUEST", "CONFIRM", "OFFER", "NOTIFY_SUCCESS", "NOTIFY_FAILURE"})
_SIMPLE_USER = {
    "AFFIRM": "AFFIRM",
    "NEGATE": "NEGATE",
    "THANK_YOU": "THANK_YOU",
    "GOOD_BYE": "GOODBYE",
    "REQUEST_ALTS": "REQUEST_ALTS",
    "SELECT": "SELECT",
}
_DONE = frozenset({"NOTIFY_SUCCESS", "NOTIFY_FAILURE"})


def split_name(path: str | Path) -> str:
    """``sim-M-dev.json`` -> ``dev``; a name without train/dev/test is an error."""
    found = _SPLIT.findall(Path(path).stem)
    if not found:
        raise DataError(
            "cannot tell the split from the file name", file=str(path), hint="pass --split NAME"
        )
    return str(found[-1]).lower()


def read_m2m(path: str | Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError("no such file", file=str(path)) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f"cannot read M2M JSON: {exc}", file=str(path)) from None
    if not isinstance(data, list) or not all(
        isinstance(d, dict) and "dialogue_id" in d and isinstance(d.get("turns"), list)
        for d in data
    ):
        raise DataError(
            "not an M2M dialogue list (a JSON list of {dialogue_id, turns})", file=str(path)
        )
    return data


def char_spans(utterance: dict[str, Any]) -> tuple[str, list[SlotSpan]]:
    """The utterance's text and its token spans as character spans of that text."""
    text: str = utterance.get("text", "")
    tokens: list[str] = utterance.get("tokens", [])
    starts, ends, cursor = [], [], 0
    for token in tokens:
        at = text.find(token, cursor)
        if at < 0:  # a token not in the text: fall back to the tokens joined by spaces
            return char_spans({**utterance, "text": " ".join(tokens)})
        starts.append(at)
        ends.append(at + len(token))
        cursor = at + len(token)
    spans = []
    for s in utterance.get("slots", []):
        first, end = s["start"], s["exclusive_end"]
        if 0 <= first < end <= len(tokens):
            spans.append(SlotSpan(slot=s["slot"], start=starts[first], exclusive_end=ends[end - 1]))
    return text, spans


def _service_name(dialogue_id: str) -> str:
    head, sep, _ = dialogue_id.rpartition("_")
    return head if sep and head else "m2m"


@dataclass
class _Inferred:
    """What the data says about the service: slots and their values, intents and the slots
    filled when each succeeded."""

    name: str
    slots: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    intents: dict[str, list[set[str]]] = field(default_factory=lambda: defaultdict(list))
    transactional: set[str] = field(default_factory=set)

    def add(self, dialogue: dict[str, Any]) -> None:
        intent = ""
        for turn in dialogue["turns"]:
            for name in turn.get("user_intents", []):
                intent = name
                self.intents.setdefault(name, [])
            for pair in turn.get("dialogue_state", []):
                self.slots[pair["slot"]].add(pair["value"])
            for part in ("user_utterance", "system_utterance"):
                for span in turn.get(part, {}).get("slots", []):
                    self.slots.setdefault(span["slot"], set())
            for a in turn.get("system_acts", []) + turn.get("user_acts", []):
                if a.get("slot"):
                    self.slots.setdefault(a["slot"], set())
            if intent and any(a["type"] in _DONE for a in turn.get("system_acts", [])):
                self.transactional.add(intent)
                if any(a["type"] == "NOTIFY_SUCCESS" for a in turn.get("system_acts", [])):
                    filled = {p["slot"] for p in turn.get("dialogue_state", [])}
                    self.intents[intent].append(filled)

    def schema(self) -> ServiceSchema:
        slots = []
        for name in sorted(self.slots):
            values = sorted(self.slots[name])
            categorical = 0 < len(values) <= CATEGORICAL_MAX
            slots.append(
                SlotSchema(
                    name=name,
                    description=name.replace("_", " "),
                    is_categorical=categorical,
                    possible_values=values if categorical else [],
                )
            )
        intents = []
        for name in sorted(self.intents):
            successes = self.intents[name]
            required = set.intersection(*successes) if successes else set()
            optional = set().union(*successes) - required if successes else set()
            intents.append(
                IntentSchema(
                    name=name,
                    description=name.replace("_", " ").lower(),
                    is_transactional=name in self.transactional,
                    required_slots=sorted(required),
                    optional_slots={s: "dontcare" for s in sorted(optional)},
                    result_slots=sorted(self.slots),
                )
            )
        words = sorted({w for i in self.intents for w in i.lower().split("_")})
        return ServiceSchema(
            service_name=self.name,
            description=f"{self.name.replace('_', ' ')}: {' '.join(words)}",
            slots=slots,
            intents=intents,
        )


def _user_actions(
    turn: dict[str, Any], text: str, spans: list[SlotSpan], state: dict[str, str]
) -> list[Action]:
    said = {s.slot: text[s.start : s.exclusive_end] for s in spans}

    def valued(name: Any, slot: str) -> Action:
        value = said.get(slot, state.get(slot, ""))
        canonical = state.get(slot, value)
        return act(name, slot, [value] if value else [], [canonical] if canonical else [])

    actions: list[Action] = [
        act("INFORM_INTENT", "intent", [i]) for i in turn.get("user_intents", [])
    ]
    chosen: set[str] = set()
    for a in turn.get("user_acts", []):
        kind, slot = a["type"], a.get("slot", "")
        if kind == "AFFIRM" and slot:
            actions.append(valued("SELECT", slot))
            chosen.add(slot)
        elif kind == "REQUEST" and slot:
            actions.append(act("REQUEST", slot))
        elif kind in _SIMPLE_USER:
            actions.append(act(_SIMPLE_USER[kind]))  # type: ignore[arg-type]
    if any(a["type"] == "INFORM" for a in turn.get("user_acts", [])):
        for slot in said:
            if slot not in chosen:
                actions.append(valued("INFORM", slot))
                chosen.add(slot)
    return actions


def _system_actions(turn: dict[str, Any]) -> list[Action]:
    out = []
    for a in turn.get("system_acts", []):
        kind = _SYSTEM.get(a["type"], a["type"])
        if kind == "GOODBYE":
            out.append(act("GOODBYE"))
        elif kind in _SYSTEM_KEPT:
            values = [a["value"]] if "value" in a else []
            out.append(act(kind, a.get("slot", ""), values))
    return out


def convert_dialogue(raw: dict[str, Any], service: str) -> Dialogue:
    """One M2M dialogue as an SGD dialogue of ``service``."""
    turns: list[Turn] = []
    previous: dict[str, str] = {}
    intent = "NONE"
    for pair in raw["turns"]:
        if "system_utterance" in pair:
            text, spans = char_spans(pair["system_utterance"])
            frame = Frame(service=service, slots=spans, actions=_system_actions(pair))
            turns.append(Turn(speaker="SYSTEM", utterance=text, frames=[frame]))
        state = {p["slot"]: p["value"] for p in pair.get("dialogue_state", [])}
        text, spans = char_spans(pair.get("user_utterance", {}))
        actions = _user_actions(pair, text, spans, state)
        given = {a.slot for a in actions if a.values}
        for slot, value in state.items():  # a change no act explains: the state's own value
            if previous.get(slot) != value and slot not in given:
                actions.append(act("INFORM", slot, [value]))
        for name in pair.get("user_intents", []):
            intent = name
        requested = [a["slot"] for a in pair.get("user_acts", []) if a["type"] == "REQUEST"]
        frame = Frame(
            service=service,
            slots=spans,
            actions=actions,
            state=State(
                active_intent=intent,
                requested_slots=requested,
                slot_values={k: [v] for k, v in state.items()},
            ),
        )
        turns.append(Turn(speaker="USER", utterance=text, frames=[frame]))
        previous = state
    return Dialogue(dialogue_id=raw["dialogue_id"], services=[service], turns=turns)


def convert(
    files: Sequence[tuple[str, Sequence[dict[str, Any]]]],
) -> tuple[list[ServiceSchema], dict[str, list[Dialogue]]]:
    """(split, raw dialogues) pairs -> the inferred schemas and each split's dialogues."""
    inferred: dict[str, _Inferred] = {}
    for _, dialogues in files:
        for raw in dialogues:
            name = _service_name(raw["dialogue_id"])
            inferred.setdefault(name, _Inferred(name)).add(raw)
    out: dict[str, list[Dialogue]] = defaultdict(list)
    for split, dialogues in files:
        out[split] += [convert_dialogue(r, _service_name(r["dialogue_id"])) for r in dialogues]
    return [inferred[n].schema() for n in sorted(inferred)], dict(out)


def convert_files(
    paths: Iterable[str | Path],
    out: str | Path,
    *,
    split: str | None = None,
    force: bool = False,
) -> list[Path]:
    """Convert M2M files into ``out/<split>/`` folders (split from each file's name unless
    given); returns the folders written."""
    paths = list(paths)
    files = [(split or split_name(p), read_m2m(p)) for p in paths]
    schemas, splits = convert(files)
    known = Schemas(schemas)
    folders = []
    for name, dialogues in splits.items():
        folder = check_output_dir(
            Path(out) / name, force=force, inputs=paths, owned="*.json", what="split folder"
        )
        write_json(folder / "schema.json", [s.to_json() for s in schemas])
        for index in range(0, len(dialogues), FILE_SIZE):
            chunk = dialogues[index : index + FILE_SIZE]
            target = folder / f"dialogues_{index // FILE_SIZE + 1:03d}.json"
            for dialogue in chunk:
                check_against_schemas(dialogue, known, file=str(target))
            write_json(target, [d.to_json() for d in chunk])
        folders.append(folder)
    return folders
