"""Goals sampled from a service's schema and its backend, never from a service's name.

A task is planned from the schema's structure: a search intent alone, a transactional intent
after the search whose results name what it books (a result slot of the search that the
transaction requires), or a transaction alone. Constraint values are drawn from the backend's
own rows (a search with no parameters lists them), so a search can succeed; on purpose, with
``fail_rate``, a value no row holds makes it fail, or a transaction's values make the backend
refuse it for every entity found. The backend is asked with the goal's values before the
dialogue starts, so ``Task.achievable`` says what the system should end up saying.

A second task in another service is chosen where a value of the first task (its entity or its
constraints) is a known value of a required slot of the second (the restaurant's city, a
hotel's city), so carry-over between services is exercised: the user may leave that value
unsaid (``Task.carried``).

Which optional constraints a user says and which result slots they ask about follow how often
SGD's users do, per slot role (``simulate.rates``); a boolean is wanted True or left unsaid.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import timedelta

from pydantic import Field

from tod_runtime.backends.base import Backend, reference_date
from tod_runtime.components import ComponentOptions
from tod_runtime.dialogue.models import DONTCARE, ServiceCall
from tod_runtime.schema.loader import Schemas
from tod_runtime.schema.models import IntentSchema, ServiceSchema
from tod_runtime.simulate.base import Goal, Task
from tod_runtime.simulate.rates import request_rate, say_rate
from tod_runtime.values.normalise import slot_kind

Row = dict[str, str]
MAX_PROBES = 5  # entities of a search the transaction is tried on, to tell its outcome


class GoalOptions(ComponentOptions):
    """``[options.simulator]`` of the ``schema`` simulator: how its goals are drawn."""

    fail_rate: float = Field(
        default=0.1, ge=0, le=1, description="goals that cannot be met, on purpose"
    )
    multi_rate: float = Field(
        default=0.3, ge=0, le=1, description="goals with a second task in another service"
    )
    change_rate: float = Field(
        default=0.1, ge=0, le=1, description="a value said first and corrected at confirmation"
    )
    carry_rate: float = Field(
        default=0.5, ge=0, le=1, description="a shared value left for carry-over to fill"
    )
    max_optional: int = Field(default=2, ge=0, description="optional constraints a task may take")
    max_requests: int = Field(default=2, ge=0, description="result slots a task may ask about")


@dataclass(frozen=True)
class Plan:
    """A search, a transaction, or a search then the transaction booking what it found."""

    search: IntentSchema | None
    transaction: IntentSchema | None

    @property
    def intent(self) -> IntentSchema:
        found = self.transaction or self.search
        assert found is not None
        return found


def plans(schema: ServiceSchema) -> list[Plan]:
    searches = [i for i in schema.intents if not i.is_transactional]
    out = [Plan(s, None) for s in searches]
    for txn in (i for i in schema.intents if i.is_transactional):
        linked = [s for s in searches if _names_entity(s, txn)]
        out.append(Plan(linked[0] if linked else None, txn))
    return out


def _names_entity(search: IntentSchema, txn: IntentSchema) -> bool:
    """The search returns a slot the transaction requires that the search does not take."""
    return any(
        s in search.result_slots and s not in search.required_slots for s in txn.required_slots
    )


def said_by_users(schema: ServiceSchema, slot: str, value: str) -> bool:
    """Whether SGD's users say this value of the slot: every one of SGD train's 2,545 user
    INFORMs of a boolean slot is True (461 of them answers to the system's question), so a
    user wants what a boolean offers or leaves it unsaid, never asks for its absence."""
    return slot_kind(schema, slot) != "bool" or value.lower() == "true"


@dataclass
class GoalSampler:
    """Samples goals for the services of ``schemas`` served by ``backend``."""

    schemas: Schemas
    backend: Backend
    options: GoalOptions = field(default_factory=GoalOptions)
    _rows: dict[tuple[str, str], list[Row]] = field(default_factory=dict)
    _values: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    _calls: dict[tuple[str, str, str], list[Row]] = field(default_factory=dict)

    async def call(self, service: str, method: str, params: Row) -> list[Row]:
        key = (service, method, repr(sorted(params.items())))
        if key not in self._calls:
            self._calls[key] = await self.backend.call(
                service, ServiceCall(method=method, parameters=params)
            )
        return self._calls[key]

    async def rows(self, service: str, intent: IntentSchema) -> list[Row]:
        key = (service, intent.name)
        if key not in self._rows:
            self._rows[key] = [r for r in await self.call(service, intent.name, {}) if r]
        return self._rows[key]

    async def known_values(self, service: str) -> dict[str, list[str]]:
        if service not in self._values:
            self._values[service] = await self.backend.entity_values(service)
        return self._values[service]

    async def values_for(self, service: str, slot: str) -> list[str]:
        """Values a user could want for ``slot``: the backend's, the schema's possible values,
        else values of the slot's kind (times, dates after the backend's today, counts)."""
        schema = self.schemas[service]
        known = [v for v in (await self.known_values(service)).get(slot, []) if v]
        spec = schema.slot(slot)
        if known:
            return known
        if spec is not None and spec.possible_values:
            return [v for v in spec.possible_values if v.lower() != DONTCARE]
        kind = slot_kind(schema, slot)
        if kind == "time":
            return [f"{h:02d}:{m:02d}" for h in range(11, 21) for m in (0, 30)]
        if kind == "date":
            today = reference_date(self.backend, service)
            return [(today + timedelta(days=d)).isoformat() for d in range(1, 15)]
        if kind in ("count", "number"):
            return ["1", "2", "3", "4"]
        return []

    # ------------------------------------------------------------ goals

    async def sample(self, rng: random.Random) -> Goal:
        services = list(self.schemas)
        order = services[:]
        rng.shuffle(order)
        first: Task | None = None
        for service in order:
            first = await self.task(service, rng)
            if first is not None:
                break
        if first is None:
            raise ValueError("no service offers a task the simulator can sample from its data")
        tasks = [first]
        if len(services) > 1 and rng.random() < self.options.multi_rate:
            second = await self.follow_up(first, rng)
            if second is not None:
                tasks.append(second)
        return Goal(tasks=tasks)

    async def task(self, service: str, rng: random.Random, fixed: Row | None = None) -> Task | None:
        candidates = plans(self.schemas[service])
        rng.shuffle(candidates)
        for plan in candidates:
            task = await self.plan_task(service, plan, rng, fixed or {})
            if task is not None:
                return task
        return None

    async def plan_task(
        self, service: str, plan: Plan, rng: random.Random, fixed: Row
    ) -> Task | None:
        fail = rng.random() < self.options.fail_rate
        if plan.search is not None:
            found = await self.search_part(
                service, plan.search, rng, fixed, fail and not plan.transaction
            )
            if found is None:
                return None
            constraints, results = found
            if plan.transaction is None:
                requests = self.requests(service, plan.search, constraints, results, rng)
                return Task(
                    service=service,
                    intent=plan.search.name,
                    constraints=constraints,
                    requests=requests,
                    achievable=bool(results),
                )
            return await self.booking(service, plan, constraints, results, rng, fail)
        assert plan.transaction is not None
        return await self.transaction_alone(service, plan.transaction, rng, fixed, fail)

    async def search_part(
        self, service: str, search: IntentSchema, rng: random.Random, fixed: Row, fail: bool
    ) -> tuple[Row, list[Row]] | None:
        rows = await self.rows(service, search)
        if fixed:
            rows = [
                r
                for r in rows
                if all(r.get(k, "").lower() == v.lower() for k, v in fixed.items() if k in r)
            ]
        if not rows:
            return None
        row = rng.choice(rows)
        constraints: Row = {}
        for slot in search.required_slots:
            value = fixed.get(slot) or row.get(slot)
            if not value:
                options = await self.values_for(service, slot)
                if not options:
                    return None
                value = rng.choice(options)
            constraints[slot] = value
        schema = self.schemas[service]
        optional = [
            s
            for s in search.optional_slots
            if row.get(s) and s not in constraints and said_by_users(schema, s, row[s])
        ]
        wanted = [s for s in optional if rng.random() < say_rate(schema, s)]
        rng.shuffle(wanted)
        for slot in wanted[: self.options.max_optional]:  # as often as SGD's users say them
            constraints[slot] = row[slot]
        if fail:
            await self.spoil(service, search, constraints, rng, keep=set(fixed))
        results = await self.call(service, search.name, constraints)
        return constraints, results

    async def spoil(
        self,
        service: str,
        search: IntentSchema,
        constraints: Row,
        rng: random.Random,
        keep: set[str],
    ) -> None:
        """Change one constraint (not a date or time: backends stand in for those) so that no
        entity meets them all, when some value does that."""
        schema = self.schemas[service]
        slots = [  # nor a boolean: users never say one is False
            s
            for s in constraints
            if slot_kind(schema, s) not in ("date", "time", "bool") and s not in keep
        ]
        rng.shuffle(slots)
        for slot in slots:
            options = [v for v in await self.values_for(service, slot) if v != constraints[slot]]
            rng.shuffle(options)
            for value in options[:6]:
                trial = constraints | {slot: value}
                if not await self.call(service, search.name, trial):
                    constraints[slot] = value
                    return

    def requests(
        self,
        service: str,
        intent: IntentSchema,
        constraints: Row,
        results: list[Row],
        rng: random.Random,
    ) -> list[str]:
        """Result slots the user wants told: each as often as SGD's users ask about a slot of
        its role (``simulate.rates``), at most ``max_requests``."""
        if not results:
            return []
        askable = [s for s in intent.result_slots if s not in constraints and results[0].get(s)]
        schema = self.schemas[service]
        wanted = [s for s in askable if rng.random() < request_rate(schema, s)]
        rng.shuffle(wanted)
        return wanted[: self.options.max_requests]

    async def txn_values(
        self, service: str, txn: IntentSchema, given: set[str], rng: random.Random, base: Row
    ) -> Row | None:
        """Values for the transaction's slots not in ``given``: every required one, each
        optional one now and then (a boolean True only, as SGD's users say them)."""
        schema = self.schemas[service]
        values: Row = {}
        for slot in txn.required_slots:
            if slot in given:
                continue
            options = [base[slot]] if base.get(slot) else await self.values_for(service, slot)
            options = [o for o in options if said_by_users(schema, slot, o)] or [
                o for o in await self.values_for(service, slot) if said_by_users(schema, slot, o)
            ]
            if not options:
                return None
            values[slot] = rng.choice(options)
        for slot, default in txn.optional_slots.items():
            if slot in given or rng.random() > 0.3:
                continue
            options = [base[slot]] if base.get(slot) else await self.values_for(service, slot)
            options = [
                o
                for o in options
                if o.lower() != default.lower() and said_by_users(schema, slot, o)
            ]
            if options:
                values[slot] = rng.choice(options)
        return values

    async def booking(
        self,
        service: str,
        plan: Plan,
        constraints: Row,
        results: list[Row],
        rng: random.Random,
        fail: bool,
    ) -> Task | None:
        """A transaction on the entity the search finds: values sampled until every entity
        found gives the same outcome (refused for all when failing on purpose)."""
        txn, search = plan.transaction, plan.search
        assert txn is not None and search is not None
        if not results:
            return None
        entities = results[:MAX_PROBES]
        given = set(constraints) | {s for s in txn.required_slots if s in search.result_slots}
        chosen: tuple[Row, bool] | None = None
        for _ in range(6):
            values = await self.txn_values(service, txn, given, rng, {})
            if values is None:
                return None
            outcomes = [await self.book(service, txn, e, constraints, values) for e in entities]
            if all(outcomes) or not any(outcomes):
                chosen = (values, all(outcomes))
                if chosen[1] != fail:
                    break
        if chosen is None:
            return None
        values, achievable = chosen
        change = await self.change(service, txn, values, rng)
        return Task(
            service=service,
            intent=txn.name,
            transactional=True,
            search=search.name,
            constraints=values,
            search_constraints=constraints,
            requests=self.requests(service, search, constraints, results, rng),
            achievable=achievable,
            change=change,
        )

    async def book(
        self, service: str, txn: IntentSchema, entity: Row, constraints: Row, values: Row
    ) -> bool:
        defaults = {s: d for s, d in txn.optional_slots.items() if d.lower() != DONTCARE}
        params = {  # as a policy calls it: the entity's values for the required slots not
            # given, the schema's defaults for the optional ones (not the entity's: a bus
            # found with an "Economy extra" fare is booked "Economy" unless the user says)
            s: v
            for s in txn.required_slots
            if (v := values.get(s) or constraints.get(s) or entity.get(s) or defaults.get(s))
        }
        params |= {
            s: v
            for s in txn.optional_slots
            if (v := values.get(s) or constraints.get(s) or defaults.get(s))
        }
        return bool(await self.call(service, txn.name, params))

    async def transaction_alone(
        self, service: str, txn: IntentSchema, rng: random.Random, fixed: Row, fail: bool
    ) -> Task | None:
        recorded = [r for r in await self.rows(service, txn)]
        chosen: tuple[Row, bool] | None = None
        for _ in range(6):
            base = rng.choice(recorded) if recorded else {}
            values = await self.txn_values(service, txn, set(fixed), rng, base)
            if values is None:
                return None
            values = fixed | values
            ok = await self.book(service, txn, {}, {}, values)
            chosen = (values, ok)
            if ok != fail:
                break
        if chosen is None:
            return None
        values, achievable = chosen
        return Task(
            service=service,
            intent=txn.name,
            transactional=True,
            constraints=values,
            achievable=achievable,
            change=await self.change(service, txn, values, rng),
        )

    async def change(self, service: str, txn: IntentSchema, values: Row, rng: random.Random) -> Row:
        """With ``change_rate``: a wrong value the user says first for one slot and corrects
        when the system confirms."""
        if not values or rng.random() >= self.options.change_rate:
            return {}
        slot = rng.choice(sorted(values))
        schema = self.schemas[service]
        options = [
            v
            for v in await self.values_for(service, slot)
            if v != values[slot] and said_by_users(schema, slot, v)
        ]
        return {slot: rng.choice(options)} if options else {}

    def free_text_values(self, task: Task) -> set[str]:
        """The task's values of non-categorical text slots (names, places): what a later task
        could mean by a value it leaves unsaid."""
        schema = self.schemas[task.service]
        out = set()
        for slot, value in (task.search_constraints | task.constraints).items():
            spec = schema.slot(slot)
            if spec is not None and not spec.is_categorical and slot_kind(schema, slot) == "text":
                out.add(value.lower())
        return out

    async def follow_up(self, first: Task, rng: random.Random) -> Task | None:
        """A task in another service sharing a value with ``first`` through a required slot of
        its search (chosen by the data, not by names), the value possibly left unsaid; never
        a service with an intent of the same name as one of ``first``'s."""
        offered = first.search_constraints | first.constraints
        shared = {v.lower(): v for v in offered.values() if v}
        matches: list[tuple[str, str, str]] = []
        own = {i.name for i in self.schemas[first.service].intents}
        for service in self.schemas:
            if service == first.service or own & {i.name for i in self.schemas[service].intents}:
                # a service doing what the first does is never the second task's: none of
                # SGD train's 6,899 dialogues with two services pairs two hotel services,
                # and only 117 pair two with an intent of one name (FindMovies)
                continue
            for plan in plans(self.schemas[service]):
                if plan.search is None:
                    continue
                known = await self.known_values(service)
                for slot in plan.search.required_slots:
                    if slot_kind(self.schemas[service], slot) != "text":
                        continue  # a shared number or date is a coincidence, not a link
                    for value in known.get(slot, []):
                        if value.lower() in shared:
                            matches.append((service, slot, value))
        if not matches:
            return None
        service, slot, value = rng.choice(sorted(set(matches)))
        task = await self.task(service, rng, fixed={slot: value})
        if task is None:
            return None
        said = task.search_constraints | task.constraints
        unambiguous = len(self.free_text_values(first)) == 1  # else which carries is a guess
        if slot in said and unambiguous and rng.random() < self.options.carry_rate:
            task.carried = [slot]
        elif slot in said:  # said outright, or carry-over may fill it with another value
            task.linked = [slot]
        return task
