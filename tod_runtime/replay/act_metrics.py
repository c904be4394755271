"""Moved to ``tod_runtime.metrics.acts``: this name is kept for one stop, for branches
that still import it. New code imports ``tod_runtime.metrics.acts``."""

from tod_runtime.metrics.acts import (
    act_f1,
    act_items,
    corpus_bleu,
    items_f1,
    service_call_match,
    slot_errors,
)

__all__ = ["act_f1", "act_items", "corpus_bleu", "items_f1", "service_call_match", "slot_errors"]
