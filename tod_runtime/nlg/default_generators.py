"""Built-in generators, registered like any plugin's."""

from __future__ import annotations

from typing import Any

from tod_runtime.hookspecs import hookimpl
from tod_runtime.plugins import ComponentContext, StageRegister


def _template(ctx: ComponentContext) -> Any:
    from tod_runtime.nlg.template import TemplateGenerator

    return TemplateGenerator(ctx)


@hookimpl
def register_generators(register: StageRegister) -> None:
    register("template", _template)
