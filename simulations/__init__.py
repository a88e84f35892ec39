"""Simulations: a minimal NumPy GCUL, the synthetic protocol, the parallel sweep, tables, figures and the CLI."""
