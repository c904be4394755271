"""The ``rules`` policy's options (``[options.policy]``), apart from the policy so that the
registry and the policy both read them."""

from __future__ import annotations

from pydantic import Field

from tod_runtime.components import ComponentOptions


class RulesPolicyOptions(ComponentOptions):
    """``[options.policy]`` of the ``rules`` policy."""

    say_booked: bool = Field(
        default=True,
        description="a booking's success says what was booked: NOTIFY_SUCCESS(slot=value) for "
        "each input its result holds (M2M's form; SGD's system never says them, so `tod "
        "replay` turns this off unless the config sets it)",
    )
