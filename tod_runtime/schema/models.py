"""Pydantic models of SGD ``schema.json`` with SGD's own field names."""

from __future__ import annotations

from collections.abc import Callable, Collection
from functools import cached_property
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, model_validator


class _SGDModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SlotSchema(_SGDModel):
    name: str
    description: str
    is_categorical: bool
    possible_values: list[str]

    def allows(self, value: str) -> bool:
        """Whether ``value`` is one the slot takes: any value of a free-text slot (or of a
        categorical one listing none), else one of its possible values, in any case."""
        listed = {v.lower() for v in self.possible_values} if self.is_categorical else set()
        return not listed or value.strip().lower() in listed


class IntentSchema(_SGDModel):
    name: str
    description: str
    is_transactional: bool
    required_slots: list[str]
    optional_slots: dict[str, str]
    result_slots: list[str]

    @property
    def inputs(self) -> frozenset[str]:
        """The slots the intent takes: required and optional."""
        return frozenset((*self.required_slots, *self.optional_slots))

    @property
    def found(self) -> list[str]:
        """The result slots that are no inputs, in order: what a search finds (the
        restaurant's name, the date an artist plays), not what it was given."""
        inputs = self.inputs
        return [s for s in self.result_slots if s not in inputs]


T = TypeVar("T")
_DERIVED = "_derived"  # where ServiceSchema.derived keeps its values, in the object's __dict__


class ServiceSchema(_SGDModel):
    model_config = ConfigDict(extra="forbid", ignored_types=(cached_property,))

    service_name: str
    description: str
    slots: list[SlotSchema]
    intents: list[IntentSchema]

    @model_validator(mode="after")
    def _check_slot_references(self) -> ServiceSchema:
        names = {s.name for s in self.slots}
        for i, intent in enumerate(self.intents):
            for field in ("required_slots", "optional_slots", "result_slots"):
                for slot in getattr(intent, field):
                    if slot not in names:
                        raise ValueError(
                            f"intents[{i}] ({intent.name}).{field}: slot {slot!r} is not one of "
                            f"the service's slots"
                        )
        return self

    @cached_property
    def slot_map(self) -> dict[str, SlotSchema]:
        return {s.name: s for s in self.slots}

    @cached_property
    def intent_map(self) -> dict[str, IntentSchema]:
        return {i.name: i for i in self.intents}

    def slot(self, name: str) -> SlotSchema | None:
        return self.slot_map.get(name)

    def derived(self, key: str, compute: Callable[[], T]) -> T:
        """A value derived from this schema object, computed on first use and kept with it:
        its slot roles (``schema.roles``), a stage's view of its slots. It goes with the
        object (no module-level table keyed by ``id()``), never counts in equality, and a
        copy or a pickled schema computes its own. ``key``: "<module>.<what>"."""
        memo: dict[str, Any] = self.__dict__.setdefault(_DERIVED, {})
        if key not in memo:
            memo[key] = compute()
        value: T = memo[key]
        return value

    def set_derived(self, key: str, value: object) -> None:
        """Put a derived value computed from more than the schema (the slot roles a backend's
        values decide: ``schema.roles.bind_values``)."""
        self.__dict__.setdefault(_DERIVED, {})[key] = value

    def __copy__(self) -> ServiceSchema:
        copied = super().__copy__()
        copied.__dict__.pop(_DERIVED, None)
        return copied

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> ServiceSchema:
        copied = super().__deepcopy__(memo)
        copied.__dict__.pop(_DERIVED, None)
        return copied

    def __getstate__(self) -> dict[Any, Any]:
        state = super().__getstate__()
        state["__dict__"] = {k: v for k, v in state["__dict__"].items() if k != _DERIVED}
        return state

    def intent(self, name: str) -> IntentSchema | None:
        return self.intent_map.get(name)

    def transaction_after(self, searched: Collection[str]) -> IntentSchema:
        """The transaction a search made with the slots ``searched`` leads to: the one
        taking most of them, then requiring fewest others (a one-way search leads to the
        one-way booking, not the round trip's, which also needs a return date), then the
        first (the first intent when none is a transaction)."""
        transactions = [i for i in self.intents if i.is_transactional] or list(self.intents)
        return max(transactions, key=lambda i: self.follows(i, searched))

    def follows(self, intent: IntentSchema, searched: Collection[str]) -> tuple[int, int]:
        """How well ``intent`` follows a search made with ``searched``: the slots it takes
        of them, and (negated) those it requires besides."""
        took = set(searched)
        return len(took & intent.inputs), -len(set(intent.required_slots) - took)

    def to_json(self) -> dict[str, object]:
        return self.model_dump(mode="json")
