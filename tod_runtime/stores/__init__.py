"""Session stores: the SessionStore protocol (base.py), memory and SQLite."""
