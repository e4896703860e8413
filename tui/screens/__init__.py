"""Screens of the terminal app."""
