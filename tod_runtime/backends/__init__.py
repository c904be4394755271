"""backends stage."""
