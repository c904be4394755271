"""Pydantic models of SGD ``schema.json`` with SGD's own field names."""

from __future__ import annotations

from functools import cached_property

from pydantic import BaseModel, ConfigDict, model_validator


class _SGDModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SlotSchema(_SGDModel):
    name: str
    description: str
    is_categorical: bool
    possible_values: list[str]


class IntentSchema(_SGDModel):
    name: str
    description: str
    is_transactional: bool
    required_slots: list[str]
    optional_slots: dict[str, str]
    result_slots: list[str]


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

    def intent(self, name: str) -> IntentSchema | None:
        return self.intent_map.get(name)

    def to_json(self) -> dict[str, object]:
        return self.model_dump(mode="json")
