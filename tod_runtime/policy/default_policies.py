"""Built-in policies, registered like any plugin's."""

from __future__ import annotations

from pydantic import Field

from tod_runtime.components import ComponentContext, ComponentOptions
from tod_runtime.hookspecs import StageRegister, hookimpl
from tod_runtime.policy.base import Policy
from tod_runtime.policy.options import RulesPolicyOptions


class LearnedPolicyOptions(ComponentOptions):
    """``[options.policy]`` of the ``learned`` policy."""

    model: str | None = Field(
        default=None, description="a model written by `tod train policy` (DIR/policy.npz)"
    )


def _rules(ctx: ComponentContext) -> Policy:
    from tod_runtime.policy.rules import RulesPolicy

    return RulesPolicy(ctx)


def _learned(ctx: ComponentContext) -> Policy:
    from tod_runtime.policy.learned.policy import LearnedPolicy

    return LearnedPolicy(ctx)


@hookimpl
def register_policies(register: StageRegister) -> None:
    register("rules", _rules, options=RulesPolicyOptions)
    register("learned", _learned, options=LearnedPolicyOptions)
