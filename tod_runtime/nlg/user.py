"""User-side text for the user simulator: ``realise_user(acts, schema, rng)``.

The user templates are mined from SGD train's user turns by the same miner as the system's
(``tod train nlg`` writes ``user/``), keyed by user-act signature per service and
generically; a service without its own borrows from the closest mined service, and what no
template covers is composed from the schema's descriptions (``compose.compose_user``).
``rng`` chooses among equivalent templates, so a seeded simulator is reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache

from tod_runtime.dialogue.models import Action
from tod_runtime.nlg.compose import compose_user
from tod_runtime.nlg.realise import Realiser
from tod_runtime.nlg.store import TemplateSet
from tod_runtime.nlg.template import CHOICES, packaged
from tod_runtime.schema.models import ServiceSchema


@cache
def _default() -> Realiser:
    return user_realiser(packaged("user"))


def user_realiser(templates: TemplateSet, choices: int = CHOICES) -> Realiser:
    """A realiser of user acts over ``templates`` (e.g. ``store.read_side(DIR, "user")``)."""
    return Realiser(templates, compose_user, choices=choices, empty="Hello.")


def realise_user(
    acts: Sequence[Action],
    schema: ServiceSchema,
    rng: random.Random,
    realiser: Realiser | None = None,
) -> str:
    """What a user would say for ``acts`` to ``schema``'s service."""
    chosen = realiser or _default()
    return chosen.realise(schema.service_name, schema, acts, seed=rng.getrandbits(32))
