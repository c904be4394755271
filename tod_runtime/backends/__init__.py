"""Service backends: the Backend protocol (base.py), mock, SGD-tables and recorded."""
