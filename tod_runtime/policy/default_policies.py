"""Built-in policies, registered like any plugin's."""

from __future__ import annotations

from tod_runtime.components import ComponentContext
from tod_runtime.hookspecs import StageRegister, hookimpl
from tod_runtime.policy.base import Policy


def _rules(ctx: ComponentContext) -> Policy:
    from tod_runtime.policy.rules import RulesPolicy

    return RulesPolicy(ctx)


def _learned(ctx: ComponentContext) -> Policy:
    from tod_runtime.policy.learned.policy import LearnedPolicy

    return LearnedPolicy(ctx)


@hookimpl
def register_policies(register: StageRegister) -> None:
    register("rules", _rules)
    register("learned", _learned)
