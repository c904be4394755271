"""tod's DSTC8 fuzzy match is fuzzywuzzy 0.18's token_sort_ratio (on difflib), pair for pair."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tod_runtime.cli import main
from tod_runtime.data import open_split
from tod_runtime.dialogue.models import Dialogue
from tod_runtime.metrics.fuzzy import fuzzy_match, sort_tokens, token_sort_ratio

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # "Using slow pure-python SequenceMatcher": as DSTC8 ran it
    from fuzzywuzzy import fuzz

CASES = [
    ("", ""),
    ("a", ""),
    ("", "a"),
    ("  ", "!!"),
    ("7:30 pm", "19:30"),
    ("San Francisco", "san francisco"),
    ("SFO International", "International SFO"),
    ("Café Rouge", "Cafe Rouge"),  # é (U+00E9) is deleted, not reduced to e
    ("Łódź Kaliska", "Lodz Kaliska"),  # letters above U+00FF stay
    ("snake_case name", "snake case name"),  # "_" is a word character
    ("  padded\tvalue\n", "padded value"),
    ("Ginza | Japanese Sushi Restaurant", "Ginza Japanese"),
    ("a b c d e f", "f e d c b a"),
    ("$1,200", "1200 dollars"),
    ("abcd", "bcda"),  # difflib's greedy blocks: the order of the arguments matters
    ("bcda", "abcd"),
    ("The Hunger Games: Mockingjay – Part 2", "hunger games mockingjay part 2"),
]


@pytest.mark.parametrize(("gold", "predicted"), CASES)
def test_known_cases(gold: str, predicted: str) -> None:
    assert token_sort_ratio(gold, predicted) == fuzz.token_sort_ratio(gold, predicted)


def test_processing_steps() -> None:
    assert sort_tokens("  Zeta,alpha!  Beta_2 ") == "alpha beta_2 zeta"
    assert sort_tokens("Café") == "caf"
    assert token_sort_ratio("", "") == 100  # equal after processing: 100 before the empty check
    assert token_sort_ratio("x", "...") == 0


def test_best_of_the_gold_variants() -> None:
    assert fuzzy_match(["19:30", "7:30 pm"], "7:30 pm") == 1.0
    assert fuzzy_match([], "anything") == 0.0
    assert fuzzy_match(["abc"], "abd") == fuzz.token_sort_ratio("abc", "abd") / 100


TEXT = st.text(
    alphabet=st.sampled_from(list("abcAB 01:,.-_'|éÉñ\u00a0Łż\t")), min_size=0, max_size=20
)


@settings(max_examples=400, deadline=None)
@given(TEXT, TEXT)
def test_any_pair(gold: str, predicted: str) -> None:
    assert token_sort_ratio(gold, predicted) == fuzz.token_sort_ratio(gold, predicted)


def _noncategorical_pairs(
    split: object, predicted: dict[str, Dialogue], schemas: object
) -> set[tuple[str, str]]:
    pairs = set()
    for dialogue in split.dialogues():  # type: ignore[attr-defined]
        if dialogue.dialogue_id not in predicted:
            continue
        turns = predicted[dialogue.dialogue_id].turns
        for turn, pturn in zip(dialogue.turns, turns, strict=True):
            for frame in turn.frames:
                pframe = pturn.frame(frame.service)
                if frame.state is None or pframe is None or pframe.state is None:
                    continue
                for slot, values in frame.state.slot_values.items():
                    spec = schemas[frame.service].slot(slot)  # type: ignore[index]
                    got = pframe.state.slot_values.get(slot)
                    if not spec.is_categorical and got:
                        pairs |= {(value, got[0]) for value in values}
                for action in frame.actions:  # what was said against the state's value
                    spec = schemas[frame.service].slot(action.slot)  # type: ignore[index]
                    if spec is not None and not spec.is_categorical:
                        for value in action.values:
                            pairs |= {
                                (v, value) for v in frame.state.slot_values.get(action.slot, [])
                            }
    return pairs


def test_every_noncategorical_pair_of_dev_predictions(sgd_zip: Path, tmp_path: Path) -> None:
    """The rules pipeline's predictions on a third of dev (wrong values included) and the
    spoken values; benchmarks/dstc8_fuzzy.py compares the whole split."""
    predictions = tmp_path / "pred"
    args = ["replay", str(sgd_zip), "--split", "dev", "--nlu", "rules", "--limit", "700"]
    assert main([*args, "--predictions", str(predictions)]) == 0
    split = open_split(sgd_zip, "dev")
    predicted = {
        d.dialogue_id: d
        for file in sorted(predictions.glob("dialogues_*.json"))
        for d in map(Dialogue.model_validate, json.loads(file.read_text()))
    }
    pairs = _noncategorical_pairs(split, predicted, split.schemas())
    assert len(pairs) > 1000
    differing = [
        (g, p) for g, p in sorted(pairs) if token_sort_ratio(g, p) != fuzz.token_sort_ratio(g, p)
    ]
    assert differing == []
