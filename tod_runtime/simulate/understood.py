"""At the text level: what the NLU read beside what the simulated user meant, per turn, so a
failed dialogue can be traced to the understanding of its text (or not)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tod_runtime.dialogue.context import UserActs
from tod_runtime.dialogue.models import Action

Same = Callable[[str, str, str, str], bool]
CHECKED = (
    "INFORM_INTENT",
    "INFORM",
    "REQUEST",
    "AFFIRM",
    "NEGATE",
    "AFFIRM_INTENT",
    "NEGATE_INTENT",
)


def misreadings(meant: UserActs, read: UserActs, same: Same) -> list[str]:
    """What the NLU got wrong in one turn: ``wrong service``, ``missed intent``, ``missed
    value SLOT``, ``wrong value SLOT``, ``missed request SLOT``, ``missed ACT`` (for the acts
    in CHECKED); and what it read that was not meant: ``extra value SLOT`` (a value of a slot
    the user did not speak of: "Pets are not allowed at the hotel." read with a hotel called
    "the hotel"), ``extra GOODBYE`` (which ends the dialogue: "Yes, that's it." read as a
    goodbye). Empty when every meant act was read and nothing else."""
    errors: list[str] = []
    for service, acts in meant.items():
        got = read.get(service)
        if got is None:
            errors.append("wrong service" if read else "nothing read")
            continue
        errors += [e for a in acts if a.act in CHECKED for e in _missed(service, a, got, same)]
        spoken = {a.slot for a in acts if a.act == "INFORM"}
        for g in got:
            if g.act == "INFORM" and g.slot and g.values and g.slot not in spoken:
                errors.append(f"extra value {g.slot}")
        if any(g.act == "GOODBYE" for g in got) and not any(a.act == "GOODBYE" for a in acts):
            errors.append("extra GOODBYE")
    return errors


def _missed(service: str, a: Action, got: Sequence[Action], same: Same) -> list[str]:
    """How the acts read for ``service`` fall short of the one meant act ``a``."""
    if a.act == "INFORM_INTENT":
        if not any(g.act == "INFORM_INTENT" and g.values == a.values for g in got):
            return ["missed intent"]
    elif a.act == "INFORM" and a.values:
        values = [g for g in got if g.act == "INFORM" and g.slot == a.slot and g.values]
        if not values:
            return [f"missed value {a.slot}"]
        if not any(
            same(service, a.slot, (g.canonical_values or g.values)[0], a.values[0])
            or same(service, a.slot, g.values[0], a.values[0])
            for g in values
        ):
            return [f"wrong value {a.slot}"]
    elif a.act == "REQUEST":
        if not any(g.act == "REQUEST" and g.slot == a.slot for g in got):
            return [f"missed request {a.slot}"]
    elif not any(g.act == a.act for g in got):
        return [f"missed {a.act}"]
    return []
