"""Template NLG: built-in wording from descriptions and per-service overrides."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from stage_helpers import SERVICE, a, schemas

from tod_runtime.errors import ConfigError
from tod_runtime.nlg.template import TemplateGenerator
from tod_runtime.plugins import ComponentContext


def generator(folder: Path | None = None) -> TemplateGenerator:
    dirs = {SERVICE: folder} if folder else {}
    return TemplateGenerator(ComponentContext(schemas=schemas(), backend=None, service_dirs=dirs))


async def test_builtin_templates_use_descriptions() -> None:
    nlg = generator()
    assert await nlg.generate(SERVICE, [a("REQUEST", "city"), a("REQUEST", "time")]) == (
        "Could you tell me the city where the cafe is and time of the reservation?"
    )
    text = await nlg.generate(
        SERVICE, [a("OFFER", "cafe_name", "Grind"), a("OFFER", "city", "Oslo")]
    )
    assert text == "How about Grind? The city where the cafe is is Oslo."
    assert (
        await nlg.generate(SERVICE, [a("OFFER_INTENT", "intent", "ReserveCafe")])
        == "Would you like to reserve a table at a cafe?"
    )
    for act in ("CONFIRM", "INFORM"):
        assert "555" in await nlg.generate(SERVICE, [a(act, "phone", "555")])
    for act in ("NOTIFY_SUCCESS", "NOTIFY_FAILURE", "REQ_MORE", "GOODBYE"):
        assert await nlg.generate(SERVICE, [a(act)])


async def test_a_templates_file_overrides_per_act_and_slot(tmp_path: Path) -> None:
    (tmp_path / "templates.json").write_text(
        json.dumps({"REQUEST(city)": "Which town?", "OFFER": "Try {cafe_name}!"})
    )
    nlg = generator(tmp_path)
    assert await nlg.generate(SERVICE, [a("REQUEST", "city"), a("REQUEST", "time")]) == (
        "Which town? Could you tell me the time of the reservation?"
    )
    assert await nlg.generate(SERVICE, [a("OFFER", "cafe_name", "Grind")]) == "Try Grind!"
    # The act-level template needs its placeholder; without it the built-in one is used.
    assert (await nlg.generate(SERVICE, [a("OFFER", "city", "Oslo")])).startswith("How about")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "invalid JSON"),
        ('{"SHOUT": "x"}', "not a system act"),
        ('{"REQUEST(colour)": "x"}', "unknown slot"),
        ('{"OFFER": "{colour}"}', "unknown placeholder"),
        ('{"OFFER": 3}', "must be a string"),
    ],
)
def test_a_bad_templates_file_names_file_and_key(
    tmp_path: Path, content: str, message: str
) -> None:
    (tmp_path / "templates.json").write_text(content)
    with pytest.raises(ConfigError, match=message) as info:
        generator(tmp_path)
    assert "templates.json" in str(info.value)
