"""ConvLab-3's unified data format: export an SGD dataset as ``data.zip``.

The layout and every field follow ConvLab-3's ``data/unified_datasets/README.md`` and its SGD
converter (``data/unified_datasets/sgd/preprocess.py``): ``data.zip`` holds
``data/ontology.json`` and ``data/dialogues.json``; ``dummy_data.json`` beside it holds the
first 10 dialogues. Splits are named train / validation / test (SGD's dev is "validation");
dialogue ids are ``<dataset>-<split>-<n>`` with ``original_id`` the SGD id.

- Ontology: per service (domain) its description, slots (plus the ``count`` slot of
  INFORM_COUNT) and ``active_intents`` (the schema's intents); the act types as ``intents``;
  ``state`` with every slot empty; ``dialogue_acts`` per kind, the stringified
  ``{'user', 'system', 'intent', 'domain', 'slot'}`` dicts ConvLab lists.
- Acts, per ConvLab's SGD rules: REQ_MORE, AFFIRM, NEGATE, THANK_YOU and GOODBYE are binary
  without a domain; NOTIFY_SUCCESS, NOTIFY_FAILURE, REQUEST_ALTS, AFFIRM_INTENT and
  NEGATE_INTENT binary with the domain; INFORM_INTENT / OFFER_INTENT binary with the intent as
  the slot; REQUEST and SELECT without values binary; INFORM_COUNT non-categorical; other
  acts one per value, categorical or non-categorical by the slot, a non-categorical value with
  the ``start``/``end`` of its span when the frame has one. Five additions, all optional
  attributes ConvLab's loaders pass through: each act's ``order``, its action's index in the
  SGD frame (the unified lists group acts by kind, which loses the order a generator
  realises them in); an act without a domain (AFFIRM, THANK_YOU...) its SGD frame's
  service as ``frame``; a non-categorical value without a span (SGD's
  ``dontcare``) is kept without ``start``/``end`` where ConvLab's converter drops it; a
  canonical value that differs from the spoken one is kept as ``canonical_value``; and a user
  turn whose state holds a value with ``|`` in it (ConvLab's variant separator) also carries
  ``state_variants`` {domain: {slot: [values]}} for those slots, so it reads back whole.
- Turns: user turns carry ``state`` (every slot of every service of the dialogue, the last
  known value, variants joined by ``|``), ``active_intent`` and ``requested_slots`` per
  service; system turns ``service_call`` and ``db_results`` per service.

``tod data export unified SGD_DIR --out DIR`` writes ``DIR/data.zip`` and
``DIR/dummy_data.json``; ``tod_runtime.data.unified_read`` reads them back.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from tod_runtime.data.sgd import SGDSplit
from tod_runtime.dialogue.models import Dialogue, Frame
from tod_runtime.files import atomic_write, check_output, write_json
from tod_runtime.progress import progress
from tod_runtime.schema.models import ServiceSchema

SPLIT_NAMES = {"dev": "validation"}  # SGD's name -> ConvLab's
COUNT_SLOT = "count"
COUNT_DESCRIPTION = "the number of items found that satisfy the user's request."
NO_DOMAIN = frozenset({"REQ_MORE", "AFFIRM", "NEGATE", "THANK_YOU", "GOODBYE"})
DOMAIN_ONLY = frozenset(
    {"NOTIFY_SUCCESS", "NOTIFY_FAILURE", "REQUEST_ALTS", "AFFIRM_INTENT", "NEGATE_INTENT"}
)
INTENT_VALUED = frozenset({"OFFER_INTENT", "INFORM_INTENT"})
DUMMY = 10
FRAME = "frame"  # optional attribute of an act without a domain: its SGD frame's service
ORDER = "order"  # optional act attribute: the action's index in its SGD frame
STATE_VARIANTS = "state_variants"  # optional turn attribute: see the module's docstring

_ACT_DESCRIPTIONS = {  # the SGD README's act descriptions, as ConvLab's ontology carries them
    "inform": "Inform the value for a slot.",
    "request": "Request the value of a slot.",
    "confirm": "Confirm the value of a slot before making a transactional service call.",
    "offer": "Offer a certain value for a slot to the user.",
    "notify_success": "Inform the user that their request was successful.",
    "notify_failure": "Inform the user that their request failed.",
    "inform_count": "Inform the number of items found that satisfy the user's request.",
    "offer_intent": "Offer a new intent to the user.",
    "req_more": "Asking the user if they need anything else.",
    "goodbye": "End the dialogue.",
    "inform_intent": "Express the desire to perform a certain task to the system.",
    "negate_intent": "Negate the intent which has been offered by the system.",
    "affirm_intent": "Agree to the intent which has been offered by the system.",
    "affirm": "Agree to the system's proposition. ",
    "negate": "Deny the system's proposal.",
    "select": "Select a result being offered by the system.",
    "request_alts": "Ask for more results besides the ones offered by the system.",
    "thank_you": "Thank the system.",
}


def unified_split(name: str) -> str:
    return SPLIT_NAMES.get(name, name)


class _Ontology:
    def __init__(self) -> None:
        self.domains: dict[str, dict[str, Any]] = {}
        self.state: dict[str, dict[str, str]] = {}
        self.acts: dict[str, dict[tuple[str, str, str], dict[str, bool]]] = {
            "categorical": {},
            "non-categorical": {},
            "binary": {},
        }

    def add_schema(self, schema: ServiceSchema) -> None:
        domain = self.domains.setdefault(schema.service_name, {})
        domain["description"] = schema.description
        slots = domain.setdefault("slots", {})
        domain["active_intents"] = [i.model_dump(mode="json") for i in schema.intents]
        state = self.state.setdefault(schema.service_name, {})
        for slot in schema.slots:
            slots[slot.name] = {
                "description": slot.description,
                "is_categorical": slot.is_categorical,
                "possible_values": list(slot.possible_values),
            }
            state[slot.name] = ""
        slots.setdefault(
            COUNT_SLOT,
            {"description": COUNT_DESCRIPTION, "is_categorical": False, "possible_values": []},
        )

    def note(self, kind: str, act: dict[str, Any], speaker: str) -> None:
        key = (act["intent"], act["domain"], act["slot"])
        self.acts[kind].setdefault(key, {})[speaker] = True

    def to_json(self) -> dict[str, Any]:
        acts = {
            kind: sorted(
                str(
                    {
                        "user": who.get("user", False),
                        "system": who.get("system", False),
                        "intent": key[0],
                        "domain": key[1],
                        "slot": key[2],
                    }
                )
                for key, who in table.items()
            )
            for kind, table in self.acts.items()
        }
        return {
            "domains": self.domains,
            "intents": {name: {"description": text} for name, text in _ACT_DESCRIPTIONS.items()},
            "state": self.state,
            "dialogue_acts": acts,
        }


def _frame_acts(frame: Frame, utterance: str, ontology: _Ontology) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {"binary": [], "categorical": [], "non-categorical": []}
    domain = frame.service
    slots = ontology.domains[domain]["slots"]
    for order, action in enumerate(frame.actions):
        intent, slot, values = action.act.lower(), action.slot, action.values
        if action.act in NO_DOMAIN:  # ConvLab gives these no domain; the frame's is kept
            out["binary"].append({"intent": intent, "domain": "", "slot": "", FRAME: domain})
        elif action.act in DOMAIN_ONLY:
            out["binary"].append({"intent": intent, "domain": domain, "slot": ""})
        elif action.act in INTENT_VALUED:
            for value in values:
                out["binary"].append({"intent": intent, "domain": domain, "slot": value})
        elif not values:  # REQUEST, SELECT without values
            out["binary"].append({"intent": intent, "domain": domain, "slot": slot})
        else:
            categorical = slots.get(slot, {}).get("is_categorical", False)
            canonical = list(action.canonical_values)
            for index, value in enumerate(values):
                entry: dict[str, Any] = {
                    "intent": intent,
                    "domain": domain,
                    "slot": slot,
                    "value": value,
                }
                if not categorical:
                    for span in frame.slots:
                        text = utterance[span.start : span.exclusive_end]
                        if span.slot == slot and text.lower() == value.lower():
                            entry |= {"start": span.start, "end": span.exclusive_end}
                            break
                if index < len(canonical) and canonical[index] != value:
                    entry["canonical_value"] = canonical[index]
                out["categorical" if categorical else "non-categorical"].append(entry)
        for entries in out.values():  # the action's place in the frame, for reading back
            for entry in entries:
                entry.setdefault(ORDER, order)
    return out


def export_dialogue(
    dialogue: Dialogue, name: str, split: str, index: int, ontology: _Ontology
) -> dict[str, Any]:
    """One SGD dialogue in the unified format (``split`` already ConvLab's name)."""
    turns = []
    state = {d: dict(ontology.state[d]) for d in dialogue.services}
    for utt_idx, turn in enumerate(dialogue.turns):
        speaker = turn.speaker.lower()
        acts: dict[str, list[Any]] = {"binary": [], "categorical": [], "non-categorical": []}
        for frame in turn.frames:
            for kind, entries in _frame_acts(frame, turn.utterance, ontology).items():
                acts[kind] += entries
                for entry in entries:
                    ontology.note(kind, entry, speaker)
        out: dict[str, Any] = {
            "speaker": speaker,
            "utterance": turn.utterance,
            "utt_idx": utt_idx,
            "dialogue_acts": acts,
        }
        if turn.speaker == "USER":
            state = {d: dict(values) for d, values in state.items()}
            active, requested = {}, {}
            piped: dict[str, dict[str, list[str]]] = {}
            for frame in turn.frames:
                if frame.state is None:
                    continue
                active[frame.service] = frame.state.active_intent
                requested[frame.service] = list(frame.state.requested_slots)
                for slot in state[frame.service]:
                    values = frame.state.slot_values.get(slot, [])
                    state[frame.service][slot] = "|".join(values)
                    if any("|" in v for v in values):
                        piped.setdefault(frame.service, {})[slot] = list(values)
            out |= {"state": state, "active_intent": active, "requested_slots": requested}
            if piped:  # a value holding "|" itself: the joined form cannot be split back
                out[STATE_VARIANTS] = piped
        else:
            calls, results = {}, {}
            for frame in turn.frames:
                if frame.service_call is None:
                    continue
                calls[frame.service] = frame.service_call.model_dump(mode="json")
                results[frame.service] = list(frame.service_results or [])
            out |= {"service_call": calls, "db_results": results}
        turns.append(out)
    return {
        "dataset": name,
        "data_split": split,
        "dialogue_id": f"{name}-{split}-{index}",
        "original_id": dialogue.dialogue_id,
        "domains": list(dialogue.services),
        "goal": {"description": "", "inform": {}, "request": {}},
        "turns": turns,
    }


def export(
    splits: Sequence[SGDSplit], *, name: str = "sgd", limit: int | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(ontology, dialogues) of ``splits`` (the first ``limit`` dialogues of each)."""
    ontology = _Ontology()
    dialogues: list[dict[str, Any]] = []
    for split in splits:
        for schema in split.schemas().values():
            ontology.add_schema(schema)
    for split in splits:
        tasks = split.slices(limit)
        count = 0
        with progress(f"export {split.name}", len(tasks)) as bar:
            for file, size in tasks:
                for dialogue in split.read_file(file)[:size]:
                    dialogues.append(
                        export_dialogue(dialogue, name, unified_split(split.name), count, ontology)
                    )
                    count += 1
                bar.advance()
    return ontology.to_json(), dialogues


def _zip(members: Iterable[tuple[str, Any]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, data in members:
            archive.writestr(member, json.dumps(data, indent=2, ensure_ascii=False))
    return buffer.getvalue()


def export_unified(
    splits: Sequence[SGDSplit],
    out: str | Path,
    *,
    name: str = "sgd",
    limit: int | None = None,
    force: bool = False,
) -> Path:
    """Write ``out/data.zip`` and ``out/dummy_data.json``; returns the zip's path."""
    folder = Path(out)
    target = folder / "data.zip"
    inputs = [s.root for s in splits]
    folder.mkdir(parents=True, exist_ok=True)
    check_output(target, force=force, inputs=inputs, what="data.zip")
    check_output(folder / "dummy_data.json", force=force, inputs=inputs, what="dummy_data.json")
    ontology, dialogues = export(splits, name=name, limit=limit)
    atomic_write(
        target, _zip([("data/ontology.json", ontology), ("data/dialogues.json", dialogues)])
    )
    write_json(folder / "dummy_data.json", dialogues[:DUMMY])
    return target
