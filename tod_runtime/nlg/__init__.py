"""nlg stage."""
