"""Built-in policies, registered like any plugin's."""

from __future__ import annotations

from pydantic import Field

from tod_runtime.components import ComponentContext, ComponentOptions
from tod_runtime.hookspecs import StageRegister, hookimpl
from tod_runtime.policy.base import Policy


class RulesPolicyOptions(ComponentOptions):
    """``[options.policy]`` of the ``rules`` policy."""

    say_booked: bool = Field(
        default=True,
        description="a booking's success says what was booked: NOTIFY_SUCCESS(slot=value) for "
        "each input its result holds (M2M's form; SGD's system never says them, so `tod "
        "replay` turns this off unless the config sets it)",
    )


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
