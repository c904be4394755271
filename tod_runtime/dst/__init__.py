"""dst stage."""
