"""Built-in generators, registered like any plugin's."""

from __future__ import annotations

from pydantic import Field

from tod_runtime.components import ComponentContext, ComponentOptions
from tod_runtime.hookspecs import StageRegister, hookimpl
from tod_runtime.nlg.base import Generator


class TemplateOptions(ComponentOptions):
    """``[options.generator]`` of the ``template`` generator."""

    templates: str | None = Field(
        default=None, description="a folder of templates written by `tod train nlg`"
    )
    choices: int | None = Field(
        default=None,
        ge=1,
        description="a frame's wording drawn from its first N templates (default: "
        "nlg.template.CHOICES)",
    )


def _template(ctx: ComponentContext) -> Generator:
    from tod_runtime.nlg.template import TemplateGenerator

    return TemplateGenerator(ctx)


@hookimpl
def register_generators(register: StageRegister) -> None:
    register("template", _template, options=TemplateOptions)
