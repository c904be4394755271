"""Built-in policies, registered like any plugin's."""

from __future__ import annotations

from typing import Any

from tod_runtime.hookspecs import hookimpl
from tod_runtime.plugins import ComponentContext, StageRegister


def _rules(ctx: ComponentContext) -> Any:
    from tod_runtime.policy.rules import RulesPolicy

    return RulesPolicy(ctx)


@hookimpl
def register_policies(register: StageRegister) -> None:
    register("rules", _rules)
