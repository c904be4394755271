"""Read ConvLab-3's unified format back into SGD dialogues and schemas.

``load_unified(path)`` reads ``data.zip`` (or a folder holding it) as ConvLab-3's
``load_dataset`` does: ``data/ontology.json`` and ``data/dialogues.json``, the dialogues grouped
by ``data_split``. ``to_sgd`` rebuilds a split's SGD schemas (the ontology's domains, their
``active_intents`` and slots, less the ``count`` slot ConvLab adds) and dialogues: user frames
from ``active_intent`` / ``requested_slots`` / ``state`` (``|`` separates variants), system
frames from the acts' domains and ``service_call`` / ``db_results``; acts regrouped into SGD
actions (the values of one act, domain and slot together), non-categorical spans from
``start`` / ``end``. An act without a domain (AFFIRM, THANK_YOU...) goes to the frame its
``frame`` attribute names, else to the turn's first frame. ``write_sgd`` writes split
folders, which is how ``tod replay`` reads a unified dataset.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tod_runtime.data.unified import (
    COUNT_DESCRIPTION,
    COUNT_SLOT,
    DOMAIN_ONLY,
    FRAME,
    INTENT_VALUED,
    NO_DOMAIN,
    ORDER,
    SPLIT_NAMES,
    STATE_VARIANTS,
)
from tod_runtime.data.zips import read_member
from tod_runtime.dialogue.models import Action, Dialogue, Frame, ServiceCall, SlotSpan, State, Turn
from tod_runtime.errors import DataError, from_validation_error
from tod_runtime.files import check_output_dir, write_json
from tod_runtime.schema.models import IntentSchema, ServiceSchema, SlotSchema

MEMBERS = ("data/ontology.json", "data/dialogues.json")
_SGD_NAMES = {v: k for k, v in SPLIT_NAMES.items()}  # validation -> dev


def unified_zip(path: str | Path) -> Path | None:
    """The data.zip a path names (the zip itself or a folder holding it), or None when the
    path is not a unified dataset."""
    path = Path(path)
    candidate = path / "data.zip" if path.is_dir() else path
    if not candidate.is_file() or not zipfile.is_zipfile(candidate):
        return None
    with zipfile.ZipFile(candidate) as archive:
        names = set(archive.namelist())
    return candidate if all(m in names for m in MEMBERS) else None


def load_unified(path: str | Path) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]]]:
    """(ontology, {split: dialogues}) of a unified dataset."""
    archive_path = unified_zip(path)
    if archive_path is None:
        raise DataError(
            "not a ConvLab-3 unified dataset (data.zip with data/*.json)", file=str(path)
        )
    try:
        with zipfile.ZipFile(archive_path) as archive:
            label = str(archive_path)
            ontology = json.loads(read_member(archive, MEMBERS[0], label))
            dialogues = json.loads(read_member(archive, MEMBERS[1], label))
    except (OSError, zipfile.BadZipFile, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot read the unified dataset: {exc}", file=str(archive_path)) from None
    dataset: dict[str, list[dict[str, Any]]] = {}
    for dialogue in dialogues:
        dataset.setdefault(dialogue["data_split"], []).append(dialogue)
    return ontology, dataset


def sgd_split_name(name: str) -> str:
    return _SGD_NAMES.get(name, name)


def schemas_of(ontology: dict[str, Any], domains: Iterable[str]) -> list[ServiceSchema]:
    out = []
    for name in domains:
        domain = ontology["domains"][name]
        intents = [IntentSchema.model_validate(i) for i in domain.get("active_intents", [])]
        used = {s for i in intents for s in (*i.required_slots, *i.optional_slots, *i.result_slots)}
        slots = [
            SlotSchema(name=slot, **spec)
            for slot, spec in domain["slots"].items()
            if not (
                slot == COUNT_SLOT
                and spec.get("description") == COUNT_DESCRIPTION
                and slot not in used
            )
        ]
        out.append(
            ServiceSchema(
                service_name=name, description=domain["description"], slots=slots, intents=intents
            )
        )
    return out


def _actions(acts: dict[str, list[dict[str, Any]]], domain: str, first: bool) -> list[Action]:
    """The SGD actions of one frame, in their ``order`` where the acts carry it; ``first``:
    the frame also takes the acts without a domain."""
    out: list[tuple[int, Action]] = []
    grouped: dict[tuple[str, str], Action] = {}
    late = 1 << 30  # acts without an order keep the unified lists' order, after the others
    for entry in acts.get("binary", []):
        name = entry["intent"].upper()
        order = entry.get(ORDER, late)
        if name in NO_DOMAIN:
            if entry.get(FRAME, "") == domain or (first and not entry.get(FRAME)):
                out.append((order, Action(act=name)))
        elif entry["domain"] != domain:
            continue
        elif name in INTENT_VALUED:
            value = [entry["slot"]]
            action = Action(act=name, slot="intent", values=value, canonical_values=value)
            out.append((order, action))
        elif name in DOMAIN_ONLY:
            out.append((order, Action(act=name)))
        else:
            out.append((order, Action(act=name, slot=entry["slot"])))
    for kind in ("categorical", "non-categorical"):
        for entry in acts.get(kind, []):
            if entry["domain"] != domain:
                continue
            key = (entry["intent"], entry["slot"])
            if key not in grouped:
                grouped[key] = Action(act=entry["intent"].upper(), slot=entry["slot"])
                out.append((entry.get(ORDER, late), grouped[key]))
            grouped[key].values.append(entry["value"])
            grouped[key].canonical_values.append(entry.get("canonical_value", entry["value"]))
    return [action for _, action in sorted(out, key=lambda pair: pair[0])]


def _spans(acts: dict[str, list[dict[str, Any]]], domain: str) -> list[SlotSpan]:
    spans: dict[tuple[str, int, int], SlotSpan] = {}
    for entry in acts.get("non-categorical", []):
        if entry["domain"] == domain and "start" in entry and "end" in entry:
            key = (entry["slot"], entry["start"], entry["end"])
            spans.setdefault(key, SlotSpan(slot=key[0], start=key[1], exclusive_end=key[2]))
    return list(spans.values())


def to_dialogue(raw: dict[str, Any]) -> Dialogue:
    turns: list[Turn] = []
    last_domain = raw["domains"][0] if raw["domains"] else ""
    for turn in raw["turns"]:
        acts = turn.get("dialogue_acts", {})
        if turn["speaker"] == "user":
            domains = list(turn.get("active_intent", {}))
        else:
            domains = []
            for kind in ("binary", "categorical", "non-categorical"):
                for entry in acts.get(kind, []):
                    if entry["domain"] and entry["domain"] not in domains:
                        domains.append(entry["domain"])
            domains += [d for d in turn.get("service_call", {}) if d not in domains]
            domains = domains or [last_domain]
        frames = []
        for index, domain in enumerate(domains):
            frame = Frame(
                service=domain,
                slots=_spans(acts, domain),
                actions=_actions(acts, domain, index == 0),
            )
            if turn["speaker"] == "user":
                values = turn.get("state", {}).get(domain, {})
                whole = turn.get(STATE_VARIANTS, {}).get(domain, {})
                frame.state = State(
                    active_intent=turn["active_intent"][domain],
                    requested_slots=list(turn.get("requested_slots", {}).get(domain, [])),
                    slot_values={s: whole.get(s) or v.split("|") for s, v in values.items() if v},
                )
            elif domain in turn.get("service_call", {}):
                frame.service_call = ServiceCall.model_validate(turn["service_call"][domain])
                frame.service_results = list(turn.get("db_results", {}).get(domain, []))
            frames.append(frame)
        if turn["speaker"] == "user" and domains:
            last_domain = domains[0]
        turns.append(
            Turn(speaker=turn["speaker"].upper(), utterance=turn["utterance"], frames=frames)
        )
    return Dialogue(
        dialogue_id=raw.get("original_id", raw["dialogue_id"]),
        services=list(raw["domains"]),
        turns=turns,
    )


def to_sgd(
    ontology: dict[str, Any], dialogues: list[dict[str, Any]]
) -> tuple[list[ServiceSchema], list[Dialogue]]:
    """A split's schemas (the services its dialogues use, in ontology order) and dialogues."""
    used = {d for dialogue in dialogues for d in dialogue["domains"]}
    schemas = schemas_of(ontology, [d for d in ontology["domains"] if d in used])
    out = []
    for raw in dialogues:
        try:
            out.append(to_dialogue(raw))
        except ValidationError as exc:
            raise from_validation_error(
                exc, DataError, file=None, where=f"dialogue {raw.get('dialogue_id')}"
            ) from None
        except (KeyError, TypeError, IndexError, AttributeError) as exc:
            raise DataError(
                f"dialogue {raw.get('dialogue_id')}: a missing or malformed field ({exc!r})"
            ) from None
    return schemas, out


def write_sgd(
    path: str | Path, out: str | Path, *, splits: Iterable[str] | None = None, force: bool = False
) -> list[Path]:
    """Write the unified dataset's splits (SGD names: validation -> dev) as SGD folders
    ``out/<split>/``; returns them."""
    ontology, dataset = load_unified(path)
    wanted = None if splits is None else set(splits)
    folders = []
    for name, dialogues in dataset.items():
        split = sgd_split_name(name)
        if wanted is not None and split not in wanted:
            continue
        schemas, converted = to_sgd(ontology, dialogues)
        folder = check_output_dir(
            Path(out) / split, force=force, inputs=[path], owned="*.json", what="split folder"
        )
        write_json(folder / "schema.json", [s.to_json() for s in schemas])
        for index in range(0, len(converted), 128):
            chunk = converted[index : index + 128]
            write_json(
                folder / f"dialogues_{index // 128 + 1:03d}.json", [d.to_json() for d in chunk]
            )
        folders.append(folder)
    if wanted is not None and not folders:
        raise DataError(
            f"no split {sorted(wanted)} in the unified dataset",
            file=str(path),
            hint=f"splits present: {', '.join(sgd_split_name(s) for s in dataset)}",
        )
    return folders
