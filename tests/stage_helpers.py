"""Small builders shared by the stage tests."""

from __future__ import annotations

from pathlib import Path

from tod_runtime.dialogue.models import Action, Frame, Turn
from tod_runtime.schema import Schemas, load_schema_file

MINI_SCHEMA = Path(__file__).parent / "fixtures" / "sgd_mini" / "dev" / "schema.json"
SERVICE = "Cafes_1"


def schemas() -> Schemas:
    return Schemas(load_schema_file(MINI_SCHEMA))


def a(act: str, slot: str = "", *values: str, canonical: tuple[str, ...] | None = None) -> Action:
    return Action(
        act=act,  # type: ignore[arg-type]
        slot=slot,
        values=list(values),
        canonical_values=list(canonical if canonical is not None else values),
    )


def system(*actions: Action, service: str = SERVICE) -> Turn:
    return Turn(
        speaker="SYSTEM", utterance="...", frames=[Frame(service=service, actions=list(actions))]
    )


def user(*actions: Action, service: str = SERVICE) -> Turn:
    return Turn(
        speaker="USER", utterance="...", frames=[Frame(service=service, actions=list(actions))]
    )
