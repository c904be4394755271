"""What every component is built from: ``ComponentContext``, the one argument of a stage
factory (``register_nlu(register)`` -> ``register("mine", lambda ctx: MyNLU(ctx))``), and
``ComponentOptions``, the base of a component's typed options (``register("mine", factory,
options=MyOptions)``: the ``[options.<stage>]`` table is validated against it when the component
is built, an unknown or ill-typed option a ``ConfigError`` naming the plugin). A leaf: it
imports the schema, the backend's Protocol and nothing of a stage, so the stages import it and
``plugins`` (which builds them) sits above them all."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self, TypeVar

from pydantic import BaseModel, ConfigDict

from tod_runtime.backends.base import Backend, ServiceFolders
from tod_runtime.schema.loader import Schemas
from tod_runtime.schema.roles import SlotRoles, slot_roles


class ComponentOptions(BaseModel):
    """A component's options, one field each with its default and a description: the base
    class forbids unknown names, so ``[options.nlu] modle = 1`` is an error, not ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True)


OptionsT = TypeVar("OptionsT", bound=ComponentOptions)


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

    @property
    def roles(self) -> Mapping[str, SlotRoles]:
        """Each service's slot roles (value types), as the runtime bound them at start with
        the backend's values (``schema.roles.bind_values``)."""
        return {name: slot_roles(schema) for name, schema in self.schemas.items()}

    def settings(self, model: type[OptionsT]) -> OptionsT:
        """``options`` read as ``model`` (defaults filled in). The registry has already
        validated them when the component was registered with ``options=model``."""
        return model.model_validate(dict(self.options))
