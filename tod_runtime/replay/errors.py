"""Moved to ``tod_runtime.metrics.state_errors``: this name is kept for one stop, for branches
that still import it. New code imports ``tod_runtime.metrics.state_errors``."""

from tod_runtime.metrics.state_errors import StateError, error_report, frame_errors

__all__ = ["StateError", "error_report", "frame_errors"]
