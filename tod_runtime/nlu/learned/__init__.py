"""A learned, schema-conditioned NLU: hashed pairwise features over (utterance, schema element),
logistic regression in numpy, trained on SGD train (see docs/learned.md)."""
