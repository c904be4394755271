"""Built-in NLU components, registered like any plugin's."""

from __future__ import annotations

from tod_runtime.components import ComponentContext
from tod_runtime.hookspecs import StageRegister, hookimpl
from tod_runtime.nlu.base import NLU


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
    register("rules", _rules)
    register("learned", _learned)
