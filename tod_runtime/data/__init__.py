"""Dataset readers and writers: SGD folders and zips; fetching the public archive."""

from tod_runtime.data.sgd import SGDSplit, available_splits, open_split

__all__ = ["SGDSplit", "available_splits", "open_split"]
