"""The schema-guided user simulator and task-success evaluation (``tod simulate``).

``base``: the ``Simulator``/``SimulatedUser``/``UserRealiser`` Protocols and the goal model;
``goals``: goals sampled from a schema and its backend; ``agenda``: the built-in rule user
(``schema``); ``realise``: user acts as text; ``judge``: did the dialogue reach the goal;
``runner``: dialogues through the runtime, in a pool of workers; ``report`` and ``realism``:
the JSON report. Nothing here is imported by the pipeline.
"""
