"""Dialogue policy: the Policy protocol (base.py) and the rules policy."""
