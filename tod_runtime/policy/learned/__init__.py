"""The learned policy: imitation of SGD train's system turns over schema-agnostic features."""
