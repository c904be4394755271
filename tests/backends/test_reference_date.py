"""The backend's reference date: the day "today" means when a call is built for it."""

from __future__ import annotations

import json
import shutil
from datetime import date
from pathlib import Path

import pytest

from tod_runtime.backends.base import ReferenceDates, reference_date
from tod_runtime.backends.mock import MockBackend
from tod_runtime.backends.recorded import RecordedBackend
from tod_runtime.backends.sgd_tables import SGD_REFERENCE_DATE, SGDTablesBackend
from tod_runtime.config import embedded_services_dir
from tod_runtime.dialogue import ServiceCall
from tod_runtime.schema.loader import Schemas

MINI = Path(__file__).parents[1] / "fixtures" / "sgd_mini"


class PlainBackend:
    """A plugin backend written before reference dates existed."""

    def schemas(self) -> Schemas:
        return Schemas([])

    async def call(self, service: str, call: ServiceCall) -> list[dict[str, str]]:
        return []

    async def entity_values(self, service: str) -> dict[str, list[str]]:
        return {}

    async def close(self) -> None:
        return None


def test_sgd_data_is_dated_2019_03_01_for_every_service() -> None:
    backend = SGDTablesBackend.from_source(f"{MINI}:dev")
    assert date(2019, 3, 1) == SGD_REFERENCE_DATE
    assert isinstance(backend, ReferenceDates)
    assert reference_date(backend, "Cafes_1") == date(2019, 3, 1)
    recorded = RecordedBackend(backend.recordings, backend)
    assert reference_date(recorded, "Cafes_1") == date(2019, 3, 1)


def test_a_backend_without_the_capability_gets_the_real_today(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TOD_TODAY", raising=False)
    assert not isinstance(PlainBackend(), ReferenceDates)
    assert reference_date(PlainBackend(), "Anything") == date.today()  # type: ignore[arg-type]
    recorded = RecordedBackend({}, PlainBackend())  # type: ignore[arg-type]
    assert reference_date(recorded, "Anything") == date.today()
    monkeypatch.setenv("TOD_TODAY", "2024-05-15")
    assert reference_date(PlainBackend(), "Anything") == date(2024, 5, 15)  # type: ignore[arg-type]


def test_the_embedded_services_use_the_real_today(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOD_TODAY", raising=False)
    backend = MockBackend(embedded_services_dir())
    assert backend.reference_date("Hotels") is None
    assert reference_date(backend, "Hotels") == date.today()


def test_a_mock_service_may_date_its_data(tmp_path: Path) -> None:
    shutil.copytree(embedded_services_dir() / "Hotels", tmp_path / "Hotels")
    db = tmp_path / "Hotels" / "db.json"
    data = json.loads(db.read_text())
    db.write_text(json.dumps(data | {"reference_date": "2020-02-29"}))
    backend = MockBackend(tmp_path)
    assert reference_date(backend, "Hotels") == date(2020, 2, 29)
