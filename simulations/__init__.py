"""Simulations: a minimal NumPy GCUL, the synthetic protocol, the parallel sweep, tables, figures and the CLI."""

__version__ = "0.1.0"  # keep equal to [project] version in pyproject.toml (a test checks)
