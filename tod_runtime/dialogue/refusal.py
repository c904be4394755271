"""Why a service refused a call: the ``Refusal`` a backend returns with a call's rows, read by
the policies and said by the NLG.

A backend that can name its reason implements ``backends.base.ExplainsRefusals``
(``call_outcome`` returns a ``CallOutcome``: the rows and, when there are none, the refusal);
any other backend keeps working, its empty results being a refusal without a reason.

In the system's acts a refusal is one act, ``NOTIFY_FAILURE(slot=limit)``: the input slot that
broke the limit, the limit's value (none for ``missing``, ``not_offered`` and ``not_found``)
and the reason as its canonical value (``refusal_act``, ``refusal_of``). SGD's own
``NOTIFY_FAILURE`` has no slot, and an M2M ``NOTIFY_FAILURE(slot=value)`` carries no reason:
neither reads as a refusal with a reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from tod_runtime.dialogue.models import Action

Reason = Literal[
    "at_most",
    "at_least",
    "none_left",
    "closed",
    "opens",
    "not_offered",
    "not_found",
    "missing",
    "unreadable",
]
"""* ``at_most``: the value is over the limit (a party of 6 where at most 4 are seated);
* ``at_least``: the value is under the limit;
* ``none_left``: nothing of it is left (0 rooms, 0 seats): the limit is 0;
* ``closed``: a time at or after the limit (the closing time);
* ``opens``: a time before the limit (the opening time);
* ``not_offered``: the value is not one the service takes (not among the possible values);
* ``not_found``: nothing the service knows has that value (no bus at that time);
* ``missing``: a required input was not given;
* ``unreadable``: a date or a time not in the service's form (the user's words the runtime
  could not read)."""
REASONS: frozenset[str] = frozenset(get_args(Reason))


class Refusal(BaseModel):
    """Which input slot broke which limit. ``limit`` is the limit's value as the service holds
    it (``4``, ``0``, ``22:00``), or "" when the reason has none."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    slot: str
    reason: Reason
    limit: str = ""


class Provider(BaseModel):
    """The sister service whose own records hold every row a search found, and its slot for
    each of the service's: where the user's task is done (``backends.sisters``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    service: str
    slots: dict[str, str]  # the service's slot -> the provider's


class CallOutcome(BaseModel):
    """A call's result rows; when the service refused it, why (``None``: it did not say); and
    for a search whose every row a sister recorded, that sister (``provider``)."""

    model_config = ConfigDict(extra="forbid")
    rows: list[dict[str, str]] = Field(default_factory=list)
    refusal: Refusal | None = None
    provider: Provider | None = None


def refusal_act(refusal: Refusal) -> Action:
    """The act saying a refusal: ``NOTIFY_FAILURE(slot=limit)``, the reason its canonical
    value."""
    values = [refusal.limit] if refusal.limit else []
    reason: list[str] = [refusal.reason]
    return Action(act="NOTIFY_FAILURE", slot=refusal.slot, values=values, canonical_values=reason)


def refusal_of(action: Action) -> Refusal | None:
    """The refusal an act says (``refusal_act``'s inverse), else None."""
    if action.act != "NOTIFY_FAILURE" or not action.slot:
        return None
    reason = action.canonical_values[:1]
    if not reason or reason[0] not in REASONS:
        return None
    limit = action.values[0] if action.values else ""
    return Refusal.model_validate({"slot": action.slot, "reason": reason[0], "limit": limit})


def refusals(actions: Sequence[Action]) -> list[Refusal]:
    """The refusals among a turn's acts."""
    return [r for a in actions if (r := refusal_of(a)) is not None]
