"""Read ``schema.json`` files (a JSON list of services) into validated models."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tod_runtime.errors import SchemaError, from_validation_error
from tod_runtime.schema.models import ServiceSchema


class Schemas(Mapping[str, ServiceSchema]):
    """The services a runtime or a dataset split knows, by name (read-only mapping)."""

    def __init__(self, services: Iterable[ServiceSchema] = ()) -> None:
        self._services: dict[str, ServiceSchema] = {}
        for service in services:
            if service.service_name in self._services:
                raise SchemaError(
                    f"service {service.service_name!r} is defined twice",
                    hint="service names must be unique across all schema files",
                )
            self._services[service.service_name] = service

    def __getitem__(self, name: str) -> ServiceSchema:
        return self._services[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._services)

    def __len__(self) -> int:
        return len(self._services)

    def __repr__(self) -> str:
        return f"Schemas({list(self._services)})"

    def merged(self, other: Iterable[ServiceSchema]) -> Schemas:
        return Schemas([*self._services.values(), *other])


def parse_schema_list(data: Any, *, file: str = "<schema>") -> list[ServiceSchema]:
    """Validate the decoded content of a schema.json; errors name file, service and field."""
    if not isinstance(data, list):
        raise SchemaError(
            "expected a JSON list of services", file=file, hint="SGD schema.json is a list"
        )
    if not data:
        raise SchemaError(
            "the list of services is empty",
            file=file,
            hint="a schema.json lists one service or more",
        )
    services: list[ServiceSchema] = []
    first: dict[str, int] = {}
    for index, item in enumerate(data):
        name = item.get("service_name") if isinstance(item, dict) else None
        where = f"service {name}" if name else f"service #{index}"
        try:
            service = ServiceSchema.model_validate(item)
        except ValidationError as exc:
            raise from_validation_error(exc, SchemaError, file=file, where=where) from None
        if service.service_name in first:
            raise SchemaError(
                f"service {service.service_name!r} is defined twice (#{first[service.service_name]}"
                f" and #{index})",
                file=file,
                where=where,
                hint="service names must be unique: remove or rename one",
            )
        first[service.service_name] = index
        services.append(service)
    return services


def load_schema_file(path: str | Path) -> list[ServiceSchema]:
    """Load one schema.json from disk."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SchemaError("file not found", file=str(path)) from None
    except OSError as exc:
        raise SchemaError(f"cannot read file: {exc.strerror}", file=str(path)) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SchemaError(
            f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}", file=str(path)
        ) from None
    return parse_schema_list(data, file=str(path))
