"""SGD-X: variant dialogues renamed by schema position, and `tod replay --sgdx`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from sgdx_helpers import sgdx_dataset

from tod_runtime.cli import main
from tod_runtime.data.rename import Renaming
from tod_runtime.data.sgd import open_split
from tod_runtime.data.sgdx import (
    VARIANTS,
    parse_variants,
    positional_renaming,
    write_variants,
)
from tod_runtime.dialogue.models import act
from tod_runtime.errors import DataError
from tod_runtime.replay.sgdx import schema_sensitivity
from tod_runtime.training.common import reworded_variants

MINI = Path(__file__).parents[1] / "fixtures" / "sgd_mini"


def test_variant_dialogues_follow_the_variant_schema(tmp_path: Path) -> None:
    root = sgdx_dataset(tmp_path)
    split = open_split(root, "dev")
    folders = write_variants(split, tmp_path / "out", ["v1"])
    assert folders == [tmp_path / "out" / "v1" / "dev"]
    variant = open_split(folders[0], "dev")
    schemas = variant.schemas()
    assert list(schemas) == ["Cafes_1v1"]
    assert schemas["Cafes_1v1"].slots[0].description.endswith("!")  # the variant's own text
    names = {s.name for s in split.schemas()["Cafes_1"].slots}
    before = split.read_file("dialogues_001.json")
    after = variant.read_file("dialogues_001.json", schemas=schemas)  # names all resolve
    for a, b in zip(before, after, strict=True):
        assert [t.utterance for t in a.turns] == [t.utterance for t in b.turns]
        for ta, tb in zip(a.turns, b.turns, strict=True):
            for fa, fb in zip(ta.frames, tb.frames, strict=True):
                assert [(s.start, s.exclusive_end) for s in fa.slots] == [
                    (s.start, s.exclusive_end) for s in fb.slots
                ]
                for x, y in zip(fa.actions, fb.actions, strict=True):
                    if x.act in ("INFORM_INTENT", "OFFER_INTENT"):
                        assert y.values == [v + "V1" for v in x.values]
                    else:
                        assert y.values == x.values
                        renamed = x.slot in names  # "count" (INFORM_COUNT) is no schema slot
                        assert y.slot == (f"{x.slot}_v1" if renamed else x.slot)
                if fa.state is not None:
                    assert fb.state is not None
                    assert fb.state.active_intent in {"NONE", fa.state.active_intent + "V1"}
                    assert sorted(fb.state.slot_values.values()) == sorted(
                        fa.state.slot_values.values()
                    )


def test_a_slot_named_intent_is_renamed_as_a_slot() -> None:
    """SGD's Homes service has a slot called "intent": only INFORM_INTENT / OFFER_INTENT
    carry intent names (as the dataset's own generate_sgdx_dialogues.py has it)."""
    renaming = Renaming(
        services={"Homes_1": "Homes_11"},
        intents={"Homes_1": {"FindHomes": "SearchHouses"}},
        slots={"Homes_1": {"intent": "rent_or_buy"}},
    )
    slot = renaming._slot_map("Homes_1")
    intents = renaming.intents["Homes_1"]
    informed = renaming._action(act("INFORM", "intent", ["rent"]), slot, intents)
    assert (informed.slot, informed.values) == ("rent_or_buy", ["rent"])
    wanted = renaming._action(act("INFORM_INTENT", "intent", ["FindHomes"]), slot, intents)
    assert (wanted.slot, wanted.values) == ("intent", ["SearchHouses"])


def test_positional_renaming_needs_matching_shapes() -> None:
    schemas = list(open_split(MINI, "dev").schemas().values())
    short = [schemas[0].model_copy(update={"slots": schemas[0].slots[:-1], "intents": []})]
    with pytest.raises(DataError, match="counts differ"):
        positional_renaming(schemas, short)
    with pytest.raises(DataError, match="services"):
        positional_renaming(schemas, [])


def test_parse_variants() -> None:
    assert parse_variants(None) == ["v1", "v2", "v3", "v4", "v5"]
    assert parse_variants("v3, v1,v3") == ["v3", "v1"]
    with pytest.raises(DataError, match="v9"):
        parse_variants("v1,v9")


def test_schema_sensitivity_by_hand() -> None:
    a, b, c = ("f", "d", 0), ("f", "d", 1), ("f", "d", 2)
    runs = [{a: 1.0, b: 1.0, c: 0.0}] * 4 + [{a: 0.0, b: 1.0, c: 0.0}]
    # a: mean 0.8, sample sd sqrt(0.2) -> CV 0.559017; b: CV 0; c: mean 0, left out
    assert schema_sensitivity(runs) == (pytest.approx(0.279508, abs=1e-6), 2)
    assert schema_sensitivity(runs[:1]) == (None, 0)


def test_tod_data_sgdx_and_a_missing_variant(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    root = sgdx_dataset(tmp_path)
    out = tmp_path / "out"
    assert main(["data", "sgdx", str(root), "--variants", "v1,v2", "--out", str(out)]) == 0
    assert capsys.readouterr().out.split() == [str(out / "v1" / "dev"), str(out / "v2" / "dev")]
    assert (
        main(["data", "sgdx", str(root), "--variants", "v1", "--out", str(out)]) != 0
    )  # no --force
    assert main(["data", "sgdx", str(root), "--variants", "v3", "--out", str(tmp_path / "x")]) != 0
    assert "no SGD-X schema for variant 'v3'" in capsys.readouterr().err
    assert not (tmp_path / "x" / "v3").exists()


def test_replay_sgdx_report(tmp_path: Path) -> None:
    root = sgdx_dataset(tmp_path)
    report_path = tmp_path / "report.json"
    args = ["replay", str(root), "--split", "dev", "--nlu", "gold", "--sgdx", "v1,v2"]
    assert main([*args, "--report", str(report_path)]) == 0
    report = json.loads(report_path.read_text())
    sgdx = report["sgdx"]
    assert set(sgdx["variants"]) == {"v1", "v2"}
    scores = [m["joint_goal_accuracy"] for m in sgdx["variants"].values()]
    assert sgdx["joint_goal_accuracy_mean"] == pytest.approx(sum(scores) / 2, abs=1e-6)
    drop = report["metrics"]["joint_goal_accuracy"] - sgdx["joint_goal_accuracy_mean"]
    assert sgdx["joint_goal_accuracy_drop"] == pytest.approx(drop, abs=1e-6)
    assert sgdx["turns_scored"] > 0
    assert sgdx["schema_sensitivity"] is not None and sgdx["schema_sensitivity"] >= 0
    # per service, by the original's names, each variant's joint goal
    services = sgdx["services"]
    assert set(services) == set(report["groups"]["services"])
    for name, by_variant in services.items():
        assert set(by_variant) == {"v1", "v2"}, name
        assert all(0.0 <= jga <= 1.0 for jga in by_variant.values())


def test_the_real_variants(sgd_zip: Path, tmp_path: Path) -> None:
    split = open_split(sgd_zip, "dev")
    folders = write_variants(split, tmp_path, limit=30)
    original = split.schemas()
    for folder in folders:
        variant = open_split(folder, "dev")
        schemas = variant.schemas()
        assert len(schemas) == len(original)
        assert not set(schemas) & set(original)  # every service renamed
        dialogues = [
            d for f in variant.dialogue_files() for d in variant.read_file(f, schemas=schemas)
        ]
        assert len(dialogues) == 30


def test_reworded_keeps_the_names_and_takes_the_variants_descriptions(tmp_path: Path) -> None:
    """What `tod train nlu` learns from besides SGD's own wording."""
    root = sgdx_dataset(tmp_path, VARIANTS)
    split = open_split(root, "dev")
    original = split.schemas()["Cafes_1"]
    reworded = reworded_variants(split)
    assert len(reworded) == 5
    for variant, schemas in zip(VARIANTS, reworded, strict=True):
        schema = schemas["Cafes_1"]  # the original name
        assert schema.description == f"{original.description} ({variant})"
        assert [s.name for s in schema.slots] == [s.name for s in original.slots]
        assert [s.description for s in schema.slots] == [
            s.description + "!" for s in original.slots
        ]
        assert [i.name for i in schema.intents] == [i.name for i in original.intents]
        assert [s.possible_values for s in schema.slots] == [
            s.possible_values for s in original.slots
        ]
    # no SGD-X schemas, nothing to reword; one variant missing, none at all
    assert reworded_variants(open_split(MINI, "dev")) == []
    shutil.rmtree(root / "sgd_x" / "data" / "v5")
    assert reworded_variants(open_split(root, "dev")) == []
