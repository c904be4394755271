"""stores stage."""
