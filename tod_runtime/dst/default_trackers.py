"""Built-in dialogue-state trackers, registered like any plugin's."""

from __future__ import annotations

from tod_runtime.components import ComponentContext
from tod_runtime.dst.base import Tracker
from tod_runtime.dst.rules import RulesTrackerOptions
from tod_runtime.hookspecs import StageRegister, hookimpl


def _rules(ctx: ComponentContext) -> Tracker:
    from tod_runtime.dst.rules import RulesTracker

    return RulesTracker(ctx)


@hookimpl
def register_trackers(register: StageRegister) -> None:
    register("rules", _rules, options=RulesTrackerOptions)
