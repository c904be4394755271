"""The one home of training: the trainers of the learned components (``nlu``, ``dst``,
``policy``, ``nlg``), what they share (``common``: the linear trainer, folds over services,
SGD-X rewordings, worker processes) and ``tod train`` (``command``). Training imports the
stages; no stage imports training (tests/test_architecture.py)."""
