"""Language generation: the Generator protocol (base.py) and the template generator."""
