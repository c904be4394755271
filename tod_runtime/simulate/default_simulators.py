"""The built-in simulator, registered through ``register_simulators`` like any plugin's:
``schema`` (goals from the schema and the backend's data, an agenda user)."""

from __future__ import annotations

from tod_runtime.hookspecs import StageRegister, hookimpl
from tod_runtime.simulate.goals import GoalOptions
from tod_runtime.simulate.simulator import SchemaSimulator


@hookimpl
def register_simulators(register: StageRegister) -> None:
    register("schema", SchemaSimulator.from_context, options=GoalOptions)
