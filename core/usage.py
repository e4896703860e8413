"""The one error for a request that cannot be run as given (options that clash, a window not understood, an id
that is not one): the engine, the commands and the app raise and catch this class alone, and its message says
what to supply. Kept apart from the engine so the app can use it before the engine loads."""

from __future__ import annotations


class UsageError(ValueError):
    """The request cannot be run as given; the message says what to supply (an argparse-style error, exit 2)."""
