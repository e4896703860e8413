"""Textual stylesheets (.tcss), a package so they ship in the wheel."""
