"""Where test data lives: the shared example bundles are copied into tests/cases so a fresh clone is enough."""

from pathlib import Path

CASES = Path(__file__).resolve().parent / "cases"
