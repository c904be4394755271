"""Moved to ``tod_runtime.metrics.state``: this name is kept for one stop, for branches
that still import it. New code imports ``tod_runtime.metrics.state``."""

from tod_runtime.metrics.state import (
    STATE_METRICS,
    frame_state_metrics,
    requested_slots_f1,
    seen_services,
    slot_scores,
)

__all__ = [
    "STATE_METRICS",
    "frame_state_metrics",
    "requested_slots_f1",
    "seen_services",
    "slot_scores",
]
