"""Scores shared by replay, training and the benchmarks: dialogue acts, service calls, BLEU and
the slot error rate (``acts``), the DSTC8 state metrics (``state``) with their fuzzy match
(``fuzzy``), and the tracker's errors by kind (``state_errors``). A leaf: it imports only the
data model and ``values``, never a stage, the runtime or replay."""
