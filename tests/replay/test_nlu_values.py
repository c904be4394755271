"""`tod replay --nlu-values`: where the NLU's known values come from, and the report's config."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tod_runtime.cli import main
from tod_runtime.errors import ConfigError
from tod_runtime.replay.known_values import default_nlu_values, train_values

MINI = Path(__file__).parents[1] / "fixtures" / "sgd_mini"

LISTENING = """
import json
from tod_runtime import hookimpl
from tod_runtime.nlu.rules import RulesNLU
class Listening(RulesNLU):
    async def parse(self, text, context):
        values = await self.backend.entity_values("Cafes_1")
        with open({out!r}, "w") as out:
            json.dump(sorted(values.get("cafe_name", [])), out)
        return await super().parse(text, context)
@hookimpl
def register_nlu(register):
    register("listening", Listening)
"""


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """The mini split as dev, and as train with another cafe's name in its results."""
    root = tmp_path / "sgd"
    shutil.copytree(MINI, root)
    shutil.copytree(root / "dev", root / "train")
    path = root / "train" / "dialogues_001.json"
    path.write_text(path.read_text().replace("Bean There", "Grind House"))
    return root


def _heard(data: Path, tmp_path: Path, *flags: str) -> tuple[list[str], dict[str, object]]:
    plugins = tmp_path / "plugins"
    plugins.mkdir(exist_ok=True)
    heard = tmp_path / "heard.json"
    (plugins / "listening.py").write_text(LISTENING.format(out=str(heard)))
    report = tmp_path / "r.json"
    args = ["replay", str(data), "--split", "dev", "--nlu", "listening"]
    args += ["--plugins-dir", str(plugins), "--report", str(report), "--force", *flags]
    assert main(args) == 0
    config: dict[str, object] = json.loads(report.read_text())["config"]
    return json.loads(heard.read_text()), config


def test_the_nlu_knows_trains_values_by_default_on_dev(data: Path, tmp_path: Path) -> None:
    names, config = _heard(data, tmp_path)
    assert "Grind House" in names and "Bean There" not in names
    assert config["nlu_values"] == "train"


def test_backend_gives_the_replayed_splits_own_values(data: Path, tmp_path: Path) -> None:
    names, config = _heard(data, tmp_path, "--nlu-values", "backend")
    assert "Bean There" in names and "Grind House" not in names
    assert config["nlu_values"] == "backend"


def test_none_gives_no_values_and_held_services_get_none(data: Path, tmp_path: Path) -> None:
    assert _heard(data, tmp_path, "--nlu-values", "none")[0] == []
    names, config = _heard(data, tmp_path, "--nlu-values", "train", "--hold-values", "Cafes_1")
    assert names == [] and config["hold_values"] == ["Cafes_1"]


def test_all_services_and_lower_case_are_recorded(data: Path, tmp_path: Path) -> None:
    config = _heard(data, tmp_path, "--all-services", "--lower-case")[1]
    assert config["all_services"] is True and config["lower_case"] is True


def test_the_default_is_the_backend_without_train_or_with_given_services(data: Path) -> None:
    assert default_nlu_values(str(data), "dev", None) == "train"
    assert default_nlu_values(str(data), "train", None) == "backend"
    assert default_nlu_values(str(data), "dev", str(data / "dev")) == "backend"
    assert default_nlu_values(str(MINI), "dev", None) == "backend"


def test_train_values_without_a_train_split_is_a_config_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(MINI, tmp_path / "sgd")
    with pytest.raises(ConfigError, match="train split"):
        train_values(str(tmp_path / "sgd"))
    args = ["replay", str(tmp_path / "sgd"), "--nlu", "rules", "--nlu-values", "train"]
    assert main(args) == 2
    assert "needs the train split" in capsys.readouterr().err


def test_train_values_without_train_is_a_usage_error_before_any_worker(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Asked for with no train split beside the data (an SGD-X variant folder written by `tod
    data sgdx`): one line and exit 2, not a worker's crash (exit 70)."""
    root = tmp_path / "sgd"
    shutil.copytree(MINI / "dev", root / "dev")
    shutil.copy(root / "dev" / "dialogues_001.json", root / "dev" / "dialogues_002.json")
    args = ["replay", str(root), "--split", "dev", "--nlu-values", "train", "--workers", "2"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "needs the train split" in err and "Traceback" not in err


def test_a_workers_start_up_error_reaches_the_user_as_that_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A model file that cannot be read, found as each worker builds its pipeline: a data
    error (exit 3) naming the file, not a broken pool (exit 70)."""
    root = tmp_path / "sgd"
    shutil.copytree(MINI / "dev", root / "dev")
    shutil.copy(root / "dev" / "dialogues_001.json", root / "dev" / "dialogues_002.json")
    bad = tmp_path / "nlu.npz"
    bad.write_bytes(b"not a model")
    config = tmp_path / "config.toml"
    config.write_text(f'[options.nlu]\nmodel = "{bad}"\n')
    args = ["replay", str(root), "--split", "dev", "--workers", "2", "--config", str(config)]
    assert main(args) == 3
    err = capsys.readouterr().err
    assert "cannot load the NLU model" in err and "internal error" not in err
