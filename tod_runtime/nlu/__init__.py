"""nlu stage."""
