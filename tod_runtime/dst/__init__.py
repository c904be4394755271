"""Dialogue-state tracking: the Tracker protocol (base.py) and the rules tracker."""
