"""ConvLab-3 unified format: the export loads as ConvLab-3 loads it and reads back unchanged.

The `convlab` distribution pulls torch, transformers and sentence-transformers, so it is not a
test dependency: ``convlab_load_dataset`` and ``convlab_load_unified_data`` below follow what
ConvLab-3's published ``convlab/util/unified_datasets_util.py`` does (``load_dataset``: read
``data/dialogues.json`` from data.zip, group by ``data_split``; ``load_unified_data``: one sample
per turn carrying the requested turn fields), and ``check_format`` the checks of its
``data/unified_datasets/check.py`` that concern the format.
"""

from __future__ import annotations

import ast
import json
import zipfile
from pathlib import Path
from typing import Any

from tod_runtime.cli import main
from tod_runtime.data.sgd import open_split
from tod_runtime.data.unified import export_unified
from tod_runtime.data.unified_read import load_unified, to_sgd

MINI = Path(__file__).parents[1] / "fixtures" / "sgd_mini"


def convlab_load_dataset(data_zip: Path) -> dict[str, list[dict[str, Any]]]:
    with zipfile.ZipFile(data_zip) as archive, archive.open("data/dialogues.json") as f:
        dialogues = json.loads(f.read())
    dataset: dict[str, list[dict[str, Any]]] = {}
    for dialogue in dialogues:
        dataset.setdefault(dialogue["data_split"], []).append(dialogue)
    return dataset


def convlab_load_unified_data(
    dataset: dict[str, list[dict[str, Any]]], speaker: str = "all", **fields: bool
) -> dict[str, list[dict[str, Any]]]:
    wanted = [name for name, on in fields.items() if on] + ["utt_idx"]
    out: dict[str, list[dict[str, Any]]] = {}
    for split, dialogues in dataset.items():
        out[split] = []
        for dialogue in dialogues:
            for turn in dialogue["turns"]:
                sample = {"speaker": turn["speaker"]}
                sample |= {name: turn[name] for name in wanted if name in turn}
                if speaker in (turn["speaker"], "all"):
                    sample["dialogue_id"] = dialogue["original_id"]
                    out[split].append(sample)
    return out


def check_format(ontology: dict[str, Any], dialogues: list[dict[str, Any]], name: str) -> None:
    for domain, slots in ontology["state"].items():
        assert domain in ontology["domains"]
        for slot, value in slots.items():
            assert slot in ontology["domains"][domain]["slots"] and value == ""
    for kind in ("categorical", "non-categorical", "binary"):
        for text in ontology["dialogue_acts"][kind]:
            act = ast.literal_eval(text)
            assert set(act) == {"user", "system", "intent", "domain", "slot"}
    seen_ids = set()
    for dialogue in dialogues:
        prefix, split, number = dialogue["dialogue_id"].split("-")
        assert (prefix, split) == (name, dialogue["data_split"]) and number.isdigit()
        assert dialogue["dialogue_id"] not in seen_ids
        seen_ids.add(dialogue["dialogue_id"])
        for index, turn in enumerate(dialogue["turns"]):
            assert turn["utt_idx"] == index and turn["speaker"] in ("user", "system")
            for act in turn["dialogue_acts"]["categorical"]:
                slot = ontology["domains"][act["domain"]]["slots"][act["slot"]]
                assert slot["is_categorical"]
            for act in turn["dialogue_acts"]["non-categorical"]:
                if "start" in act:
                    assert turn["utterance"][act["start"] : act["end"]] == act["value"]
            for act in turn["dialogue_acts"]["binary"]:
                assert act["intent"] in ontology["intents"]
            if turn["speaker"] == "user":
                assert set(turn["state"]) == set(dialogue["domains"])
            else:
                assert "db_results" in turn


def test_export_loads_as_convlab_does(tmp_path: Path) -> None:
    split = open_split(MINI, "dev")
    data_zip = export_unified([split], tmp_path)
    dataset = convlab_load_dataset(data_zip)
    assert list(dataset) == ["validation"]
    with zipfile.ZipFile(data_zip) as archive:
        ontology = json.loads(archive.read("data/ontology.json"))
    check_format(ontology, dataset["validation"], "sgd")
    samples = convlab_load_unified_data(
        dataset, speaker="user", utterance=True, dialogue_acts=True, state=True
    )["validation"]
    originals = [t for d in split.dialogues() for t in d.turns if t.speaker == "USER"]
    assert [s["utterance"] for s in samples] == [t.utterance for t in originals]
    first = samples[0]
    assert first["dialogue_id"] == next(split.dialogues()).dialogue_id
    assert first["state"]["Cafes_1"]  # every slot of the service, filled or ""
    dummy = json.loads((tmp_path / "dummy_data.json").read_text())
    assert dummy == dataset["validation"][:10]


def test_round_trip_of_the_fixture(tmp_path: Path) -> None:
    split = open_split(MINI, "dev")
    ontology, dataset = load_unified(export_unified([split], tmp_path))
    schemas, dialogues = to_sgd(ontology, dataset["validation"])
    assert schemas == list(split.schemas().values())
    assert dialogues == list(split.dialogues())


def test_replay_reads_a_unified_dataset(tmp_path: Path) -> None:
    out = tmp_path / "unified"
    assert main(["data", "export", "unified", str(MINI), "--splits", "dev", "--out", str(out)]) == 0
    assert main(["data", "export", "unified", str(MINI), "--splits", "dev", "--out", str(out)]) != 0
    reports = []
    for source in (out / "data.zip", MINI):
        report = tmp_path / f"{len(reports)}.json"
        args = ["replay", str(source), "--split", "dev", "--nlu", "gold", "--report", str(report)]
        assert main(args) == 0
        reports.append(json.loads(report.read_text()))
    assert reports[0]["metrics"] == reports[1]["metrics"]
    assert reports[0]["dialogues"] == reports[1]["dialogues"] == 2


def test_round_trip_of_sgd_dev(sgd_zip: Path, tmp_path: Path) -> None:
    """Every utterance, act, span, state, call and result of SGD dev comes back equal."""
    split = open_split(sgd_zip, "dev")
    ontology, dataset = load_unified(export_unified([split], tmp_path))
    schemas, dialogues = to_sgd(ontology, dataset["validation"])
    assert schemas == list(split.schemas().values())
    originals = list(split.dialogues())
    assert len(dialogues) == len(originals) > 2000
    differing = [a.dialogue_id for a, b in zip(originals, dialogues, strict=True) if a != b]
    assert differing == []
