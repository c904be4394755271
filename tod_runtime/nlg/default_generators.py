"""Built-in generators, registered like any plugin's."""

from __future__ import annotations

from tod_runtime.components import ComponentContext
from tod_runtime.hookspecs import StageRegister, hookimpl
from tod_runtime.nlg.base import Generator


def _template(ctx: ComponentContext) -> Generator:
    from tod_runtime.nlg.template import TemplateGenerator

    return TemplateGenerator(ctx)


@hookimpl
def register_generators(register: StageRegister) -> None:
    register("template", _template)
