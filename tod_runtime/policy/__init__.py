"""policy stage."""
