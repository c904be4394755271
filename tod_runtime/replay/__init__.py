"""Replay of SGD dialogues: engine, DSTC8 metrics, reports, JUnit, pytest plugin."""
