"""The learned policy's decision settings: one typed object, listed once in training and saved
with the model."""

from __future__ import annotations

import numpy as np
import pytest
from pydantic import ValidationError

from tod_runtime.policy.learned.model import Decisions, PolicyModel, load_model
from tod_runtime.training.policy import DECISIONS, fit_rows


def test_the_shipped_model_carries_the_settings_training_lists() -> None:
    assert load_model().decisions == DECISIONS


def test_a_model_fitted_now_saves_the_settings_in_its_config() -> None:
    model = fit_rows({("S", (1, 2)): [3, 1]}, set(), 0.0)
    assert model.decisions == DECISIONS
    assert {k: model.config[k] for k in Decisions.model_fields} == DECISIONS.model_dump()


def test_a_file_without_the_settings_has_them_off() -> None:
    model = PolicyModel(np.zeros(4), {"bits": 2, "offer_floor": 0.25})
    assert model.decisions == Decisions(offer_floor=0.25)
    assert not any((model.decisions.expected_f1, model.decisions.confirm_call))


def test_the_settings_are_typed() -> None:
    with pytest.raises(ValidationError):
        Decisions(offer_floor=-1)
    with pytest.raises(ValidationError):
        Decisions.model_validate({"offer_flor": 0.5})
