"""What a turn remembers for speed equals what it stands for, worked out anew: a schema's
phrases and words (kept with the schema), a turn's plain words, the NLU's repairs by step.
A remembered value that went stale or wrong fails here."""

from __future__ import annotations

from stage_helpers import schemas

from tod_runtime.config import embedded_services_dir
from tod_runtime.dialogue.context import TurnContext
from tod_runtime.dialogue.history import History
from tod_runtime.nlg.compose import _short_noun_phrase, short_noun_phrase
from tod_runtime.nlu.learned.features import (
    hashed,
    intent_context_strings,
    intent_pair_features,
    intent_role,
    schema_marks,
)
from tod_runtime.nlu.learned.model import grouped_scores, load_model
from tod_runtime.nlu.learned.nlu import LearnedNLU
from tod_runtime.nlu.learned.scorer import Intent, Scorer, TurnView, view
from tod_runtime.nlu.rules import plain_words
from tod_runtime.patterns import PatternTurn
from tod_runtime.patterns.asked import FUNCTION_WORDS, _slot_words, unknown_words
from tod_runtime.plugins import ComponentContext
from tod_runtime.schema import Schemas, load_schema_file
from tod_runtime.schema.models import ServiceSchema


def every_schema() -> list[ServiceSchema]:
    root = embedded_services_dir()
    embedded = [s for d in sorted(root.glob("*/schema.json")) for s in load_schema_file(d)]
    return [*schemas().values(), *embedded]


def test_short_noun_phrase_remembered_is_the_one_worked_out() -> None:
    for schema in every_schema():
        for slot in schema.slots:
            first = short_noun_phrase(schema, slot.name)
            assert first == _short_noun_phrase(schema, slot.name)
            assert short_noun_phrase(schema, slot.name) == first  # now from the schema's memo
        # a name that is no slot of the schema is worked out, not kept
        assert short_noun_phrase(schema, "no_such_slot") == "no such slot"
        assert "no_such_slot" not in schema.derived("nlg.compose.short_noun_phrase", dict)
    assert short_noun_phrase(None, "party_size") == "party size"


def _unknown_words_anew(words: str, schema: ServiceSchema) -> list[str]:
    """``unknown_words`` as it was before its vocabulary was kept with the schema."""
    from tod_runtime.patterns.asked import SAID_AS, _alike, _content

    vocabulary: set[str] = set()
    for slot in schema.slots:
        name = slot.name.lower().split("_")
        described = [w for w in plain_words(slot.description).split() if w not in FUNCTION_WORDS]
        vocabulary |= {*name, *described}
        vocabulary |= {w for v in slot.possible_values for w in plain_words(v).split()}
    return [
        w
        for w in _content(words.split())
        if not any(_alike(f, v) for f in (w, *SAID_AS.get(w, ())) for v in vocabulary)
    ]


def test_asked_slot_words_and_vocabulary_remembered_are_the_ones_worked_out() -> None:
    questions = [
        "what is the address of the restaurant",
        "how much does the ticket cost and is there wifi",
        "when does the movie start",
        "is it pet friendly with free parking near the airport",
    ]
    for schema in every_schema():
        for slot in schema.slots:
            name, described = _slot_words(slot)
            assert name == slot.name.lower().split("_")
            words = plain_words(slot.description).split()
            assert described == [w for w in words if w not in FUNCTION_WORDS]
            name.append("changed")  # the caller's list to change: the memo stays as it was
            assert _slot_words(slot)[0] == slot.name.lower().split("_")
        for question in questions:
            expected = _unknown_words_anew(question, schema)
            assert unknown_words(question, schema) == expected
            assert unknown_words(question, schema) == expected  # the kept vocabulary


def test_a_pattern_turn_s_words_follow_its_text() -> None:
    context = TurnContext(schemas(), History(), {})
    turn = PatternTurn("Don't book it, OK?", context, {}, {})
    assert turn.words == plain_words("Don't book it, OK?") == "dont book it ok"
    assert turn.words == "dont book it ok"  # remembered
    other = turn.amended(text="What's the PHONE number?")
    assert other.words == plain_words("What's the PHONE number?")
    assert turn.words == "dont book it ok"


def test_the_nlu_s_repairs_by_step_follow_its_repairs() -> None:
    root = embedded_services_dir()
    services = Schemas(load_schema_file(root / "Restaurants" / "schema.json"))
    nlu = LearnedNLU(ComponentContext(schemas=services, backend=None, options={}))  # type: ignore[arg-type]
    for step in ("route", "read", "acts"):
        assert nlu._of_step(step) == tuple(r for r in nlu.repairs if r.step == step)
        assert nlu._of_step(step)  # every step has repairs
    nlu.repairs = tuple(r for r in nlu.repairs if r.step != "read")
    assert nlu._of_step("read") == ()
    assert nlu._of_step("acts") == tuple(r for r in nlu.repairs if r.step == "acts")


def _ranked_anew(scorer: Scorer, turn: TurnView) -> list[tuple[float, Intent | None]]:
    """``Scorer.rank`` as it was before the context weights were remembered: every row's
    feature strings hashed, and the rows summed by ``grouped_scores``."""
    u = scorer._compounded(turn.utterance)
    bits = scorer.model.bits
    contexts, pairs, candidates = [], [], []
    for candidate, described in scorer.intents:
        role = intent_role(candidate, turn.current, turn.offered, turn.active)
        marks = schema_marks(u, described)
        contexts.append(
            hashed(intent_context_strings(u, turn.sys_acts, role, described.flag, marks), bits)
        )
        pairs.append(intent_pair_features(u, described, role, bits))
        candidates.append(candidate)
    context_part, pair_part = grouped_scores(scorer.model.intent, [contexts, pairs])
    scored = [(c + p, k) for c, p, k in zip(context_part, pair_part, candidates, strict=True)]
    scored.sort(key=lambda pair: -pair[0])
    return scored


def test_intent_ranking_with_remembered_weights_is_the_one_worked_out() -> None:
    """The ranking's context weights, remembered by their parts across turns, give the
    scores of the strings hashed anew to the last bit: on first sight, remembered, and after
    the memo forgot everything (a bound of a few weights, reached many times)."""
    every = Schemas(s for s in every_schema())
    scorer = Scorer(load_model(), every)
    restaurants = [("Restaurants_1", [("OFFER", "restaurant_name", ["Sushi Boat"])])]
    turns = [
        view(text, service, [(a, s, v) for a, s, v in acts], state)
        for text in (
            "I want to find a restaurant",
            "in Austin, italian food please",
            "yes please book it, where is it?",
            "no thanks, that's all",
            "can you find me a hotel and a flight to Paris tomorrow",
        )
        for service, acts, state in (
            (None, [], {}),
            (*restaurants[0], {"Restaurants_1": "FindRestaurants"}),
            ("Restaurants_1", [("OFFER_INTENT", "intent", ["ReserveRestaurant"])], {}),
        )
    ]
    for _ in range(2):
        for turn in turns:
            assert scorer.rank(turn) == _ranked_anew(scorer, turn)
    small = Scorer(load_model(), every)
    small._context.LIMIT = 7
    for turn in turns:
        assert small.rank(turn) == _ranked_anew(small, turn)
        assert small._context._count <= 7
