"""Moved to ``tod_runtime.metrics.fuzzy``: this name is kept for one stop, for branches
that still import it. New code imports ``tod_runtime.metrics.fuzzy``."""

from tod_runtime.metrics.fuzzy import fuzzy_match, sort_tokens, token_sort_ratio

__all__ = ["fuzzy_match", "sort_tokens", "token_sort_ratio"]
