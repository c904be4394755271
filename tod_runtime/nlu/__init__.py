"""Natural-language understanding: the NLU protocol (base.py) and the rules NLU."""
