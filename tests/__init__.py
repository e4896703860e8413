"""Kept empty: the package marker for the tests tree."""
