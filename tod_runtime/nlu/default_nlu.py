"""Built-in NLU components, registered like any plugin's."""

from __future__ import annotations

from tod_runtime.hookspecs import StageRegister, hookimpl
from tod_runtime.nlu.base import NLU
from tod_runtime.plugins import ComponentContext


def _rules(ctx: ComponentContext) -> NLU:
    """The rules NLU reads English only: other languages get a notice, unless the option
    ``english_only = false`` is set."""
    from tod_runtime.nlu.language import EnglishOnly
    from tod_runtime.nlu.rules import RulesNLU

    nlu = RulesNLU(ctx)
    return EnglishOnly(nlu) if ctx.options.get("english_only", True) else nlu


def _learned(ctx: ComponentContext) -> NLU:
    """The learned NLU (frame and requested slots learned, values and acts by rules); English
    only like the rules NLU. ``[options.nlu] model = "DIR/nlu.npz"`` loads a retrained model."""
    from tod_runtime.nlu.language import EnglishOnly
    from tod_runtime.nlu.learned.nlu import LearnedNLU

    nlu = LearnedNLU(ctx)
    return EnglishOnly(nlu) if ctx.options.get("english_only", True) else nlu


@hookimpl
def register_nlu(register: StageRegister) -> None:
    register("rules", _rules)
    register("learned", _learned)
