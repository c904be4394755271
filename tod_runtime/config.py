"""Configuration: one TOML file read into a pydantic model; CLI flags override it; defaults
work with no file at all."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tod_runtime.errors import ConfigError, from_validation_error


def embedded_services_dir() -> Path:
    """The services shipped with tod-runtime (inside the wheel, or the repo's services/)."""
    here = Path(__file__).resolve().parent
    packaged = here / "_embedded_services"
    return packaged if packaged.is_dir() else here.parent / "services"


class Config(BaseModel):
    model_config = ConfigDict(extra="forbid")

    services: str = Field(
        default_factory=lambda: str(embedded_services_dir()),
        description="a services folder, or SGD_DIR:split to serve an SGD split's services",
    )
    backend: str = "auto"
    nlu: str = "learned"
    tracker: str = "rules"
    policy: str = "rules"
    generator: str = "template"
    store: str = "memory://"
    plugins_dir: str | None = None
    max_message_chars: int = Field(default=2000, ge=1)
    max_turns_per_session: int = Field(
        default=0, ge=0, description="user turns a session may hold (0: no limit)"
    )
    session_ttl: float = Field(
        default=0,
        ge=0,
        description="seconds after its last turn an idle session is deleted by `tod serve` "
        "(0: never)",
    )
    turn_timeout: float = Field(
        default=30.0,
        ge=0,
        description="seconds a turn may take before it is dropped (0: no limit); a component "
        "that blocks the event loop without awaiting cannot be interrupted",
    )
    patterns_off: list[str] = Field(
        default_factory=list,
        description="conversation patterns switched off, by name (docs/patterns.md)",
    )
    options: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="options for the chosen component of a stage: nlu, tracker, policy, generator",
    )

    def with_overrides(self, **overrides: Any) -> Config:
        """A copy with every non-None override applied (CLI flags)."""
        data = self.model_dump()
        data.update({k: v for k, v in overrides.items() if v is not None})
        try:
            return Config.model_validate(data)
        except ValidationError as exc:
            raise from_validation_error(exc, ConfigError, file=None, where="options") from None


def load_config(path: str | Path | None = None, **overrides: Any) -> Config:
    """Read a TOML config (or defaults when ``path`` is None) and apply overrides."""
    data: dict[str, Any] = {}
    if path is not None:
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError("config file not found", file=str(path)) from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"invalid TOML: {exc}", file=str(path)) from None
    try:
        config = Config.model_validate(data)
    except ValidationError as exc:
        raise from_validation_error(exc, ConfigError, file=str(path), where=None) from None
    return config.with_overrides(**overrides)
