"""The built-in simulator component, ``schema``: goals from any schema and its backend
(``goals``), played by the agenda user (``agenda``).

Options (``[options.simulator]`` in the config): ``fail_rate``, ``multi_rate``,
``change_rate``, ``carry_rate``, ``max_optional``, ``max_requests`` (``goals.GoalOptions``,
validated when the simulator is built).
"""

from __future__ import annotations

import random
from functools import lru_cache

from tod_runtime.backends.base import Backend, reference_date
from tod_runtime.components import ComponentContext
from tod_runtime.dialogue.models import DONTCARE
from tod_runtime.schema.loader import Schemas
from tod_runtime.simulate.agenda import AgendaUser
from tod_runtime.simulate.goals import GoalOptions, GoalSampler
from tod_runtime.values.normalise import normalise_value, slot_kind


class ValueMatcher:
    """``same(service, slot, a, b)``: two values of a slot are the same in the backend's form
    (``6pm`` and ``18:00``; ``next Friday`` and the ISO date, read against the backend's
    today)."""

    def __init__(self, schemas: Schemas, backend: Backend) -> None:
        self.schemas = schemas
        self.backend = backend
        self._form = lru_cache(maxsize=65536)(self._backend_form)

    def _backend_form(self, service: str, slot: str, value: str) -> str:
        schema = self.schemas.get(service)
        if schema is None:
            return value.strip().lower()
        today = reference_date(self.backend, service)
        return normalise_value(value, slot_kind(schema, slot), today).strip().lower()

    def __call__(self, service: str, slot: str, a: str, b: str) -> bool:
        if a.strip().lower() == b.strip().lower():
            return True
        if DONTCARE in (a.strip().lower(), b.strip().lower()):
            return False
        return bool(self._form(service, slot, a) == self._form(service, slot, b))


class SchemaSimulator:
    """Samples a goal per dialogue and hands back the agenda user that plays it."""

    def __init__(self, schemas: Schemas, backend: Backend, options: GoalOptions | None = None):
        self.schemas = schemas
        self.sampler = GoalSampler(schemas, backend, options or GoalOptions())
        self.same = ValueMatcher(schemas, backend)

    @classmethod
    def from_context(cls, ctx: ComponentContext) -> SchemaSimulator:
        return cls(ctx.schemas, ctx.backend, ctx.settings(GoalOptions))

    async def new_user(self, rng: random.Random) -> AgendaUser:
        goal = await self.sampler.sample(rng)
        return AgendaUser(goal, self.schemas, rng, self.same)
