"""The policy stage: state in, system acts (or a service call to make first) out."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from tod_runtime.dialogue.context import PolicyInput, SystemPlan


@runtime_checkable
class Policy(Protocol):
    """Chooses the system's next acts.

    The runtime calls ``decide`` once; when the plan carries a ``service_call`` the runtime
    runs it on the backend and calls ``decide`` again with ``service_call`` and
    ``service_results`` set in the input. The second plan's call is ignored.
    """

    async def decide(self, turn: PolicyInput) -> SystemPlan: ...
