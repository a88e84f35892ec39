"""Symbolic (SymPy) re-derivations of every claim of the GCUL paper."""
