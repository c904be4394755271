"""What every component is built from: ``ComponentContext``, the one argument of a stage
factory (``register_nlu(register)`` -> ``register("mine", lambda ctx: MyNLU(ctx))``). A leaf:
it imports the schema, the backend's Protocol and nothing of a stage, so the stages import it
and ``plugins`` (which builds them) sits above them all."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from tod_runtime.backends.base import Backend, ServiceFolders
from tod_runtime.schema.loader import Schemas


@dataclass(frozen=True)
class ComponentContext:
    """What a stage factory gets: the services, the backend, and the component's options."""

    schemas: Schemas
    backend: Backend
    options: Mapping[str, Any] = field(default_factory=dict)
    service_dirs: Mapping[str, Path] = field(default_factory=dict)
    """Each service's folder (NLG templates and other per-service files live there), when
    the backend serves services from folders."""

    @classmethod
    def of(cls, schemas: Schemas, backend: Backend, options: Mapping[str, Any]) -> Self:
        folders = backend.service_dirs() if isinstance(backend, ServiceFolders) else {}
        return cls(schemas, backend, options, folders)
