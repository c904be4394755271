"""tod-runtime: an async runtime for schema-guided task-oriented dialogue."""

from tod_runtime.components import ComponentContext
from tod_runtime.config import Config, load_config
from tod_runtime.dialogue import Action, Dialogue, Frame, ServiceCall, State, Turn
from tod_runtime.dialogue.steps import TurnResult
from tod_runtime.errors import ConfigError, DataError, InputError, SchemaError, TodError
from tod_runtime.hookspecs import hookimpl
from tod_runtime.plugins import make_plugin_manager
from tod_runtime.runtime import Runtime
from tod_runtime.schema import Schemas, ServiceSchema

__version__ = "0.1.0"

__all__ = [
    "Action",
    "ComponentContext",
    "Config",
    "ConfigError",
    "DataError",
    "Dialogue",
    "Frame",
    "InputError",
    "Runtime",
    "SchemaError",
    "Schemas",
    "ServiceCall",
    "ServiceSchema",
    "State",
    "TodError",
    "Turn",
    "TurnResult",
    "hookimpl",
    "load_config",
    "make_plugin_manager",
]
