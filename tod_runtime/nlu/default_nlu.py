"""Built-in NLU components, registered like any plugin's."""

from __future__ import annotations

from pydantic import Field

from tod_runtime.components import ComponentContext, ComponentOptions
from tod_runtime.hookspecs import StageRegister, hookimpl
from tod_runtime.nlu.base import NLU


class RulesNLUOptions(ComponentOptions):
    """``[options.nlu]`` of the ``rules`` NLU."""

    english_only: bool = Field(
        default=True, description="another language gets a notice (NotUnderstood)"
    )


class LearnedNLUOptions(RulesNLUOptions):
    """``[options.nlu]`` of the ``learned`` NLU."""

    model: str | None = Field(
        default=None, description="a model written by `tod train nlu` (DIR/nlu.npz)"
    )
    repairs: list[str] | None = Field(
        default=None,
        description="the repairs to run (docs/learned.md#repairs; default: all but the "
        "optional value_alias)",
    )
    without: list[str] = Field(default_factory=list, description="repairs left out")


def _english_only(nlu: NLU, ctx: ComponentContext) -> NLU:
    """The built-in NLUs read English only: other languages get a notice, unless the option
    ``english_only = false`` is set."""
    from tod_runtime.nlu.language import EnglishOnly

    return EnglishOnly(nlu) if ctx.options.get("english_only", True) else nlu


def _rules(ctx: ComponentContext) -> NLU:
    from tod_runtime.nlu.rules import RulesNLU

    return _english_only(RulesNLU(ctx), ctx)


def _learned(ctx: ComponentContext) -> NLU:
    """Frame and requested slots learned, values and acts by rules.
    ``[options.nlu] model = "DIR/nlu.npz"`` loads a retrained model."""
    from tod_runtime.nlu.learned.nlu import LearnedNLU

    return _english_only(LearnedNLU(ctx), ctx)


@hookimpl
def register_nlu(register: StageRegister) -> None:
    register("rules", _rules, options=RulesNLUOptions)
    register("learned", _learned, options=LearnedNLUOptions)
