"""Small builders shared by the stage tests."""

from __future__ import annotations

from pathlib import Path

from tod_runtime.dialogue.models import Action, Frame, ServiceCall, Turn
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


def system(
    *actions: Action,
    service: str = SERVICE,
    call: ServiceCall | None = None,
    results: list[dict[str, str]] | None = None,
) -> Turn:
    """A system turn of ``actions`` in ``service``; with ``call``, a search and its results."""
    frame = Frame(
        service=service, actions=list(actions), service_call=call, service_results=results
    )
    return Turn(speaker="SYSTEM", utterance="...", frames=[frame])


def user(*actions: Action, service: str = SERVICE) -> Turn:
    return Turn(
        speaker="USER", utterance="...", frames=[Frame(service=service, actions=list(actions))]
    )


def fragile_nlu(folder: Path, word: str) -> Path:
    """A plugins folder holding NLU ``fragile``: the rules NLU, failing (ValueError('cannot
    cope')) on every turn that says ``word``."""
    folder.mkdir(exist_ok=True)
    (folder / "fragile.py").write_text(
        "from tod_runtime import hookimpl\n"
        "from tod_runtime.nlu.rules import RulesNLU\n"
        "class Fragile(RulesNLU):\n"
        "    async def parse(self, text, context):\n"
        f"        if {word!r} in text:\n"
        "            raise ValueError('cannot cope')\n"
        "        return await super().parse(text, context)\n"
        "@hookimpl\n"
        "def register_nlu(register):\n"
        "    register('fragile', Fragile)\n"
    )
    return folder
