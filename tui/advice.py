"""Advice in the app's own terms: where the engine's report tells a command-line user which flag to add or what
id to give, the app says what to press instead. Copies and exports keep the report's words: a ticket is read by
someone who will run the command, not press the key.

This rewrites known phrases of the engine's advice, so it is a bridge: the lasting fix is for the engine to say
what to do as structured data the app and the command line each put in their own words. Text that matches
nothing here is shown as it is.
"""

from __future__ import annotations

import re

_PICK = "choose that run in the picker (esc, then enter on its row)"

RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"or --lookback to widen the window", re.I), "or press b to widen the lookback"),
    (re.compile(r"widen --lookback", re.I), "widen the lookback (press b)"),
    (re.compile(r"--lookback\b", re.I), "the lookback (press b)"),
    (
        re.compile(r"use --active for a current crash loop or start failure", re.I),
        "for a current crash loop or start failure, choose its Running or Pending row in the picker "
        "(a lists the ones that need attention)",
    ),
    (re.compile(r"drop --active to diagnose the last terminal one", re.I), "choose its last failed run in the picker"),
    (re.compile(r"give (?:that run's|its|the) workload id(?: of the run you mean)?", re.I), _PICK),
)


def _keep_case(original: str, replacement: str) -> str:
    if original[:1].isupper() and replacement:
        return replacement[0].upper() + replacement[1:]
    return replacement


def for_the_app(text: str) -> str:
    """`text` with command-line advice turned into what to do in the app."""
    for pattern, words in RULES:
        text = pattern.sub(lambda match, words=words: _keep_case(match.group(0).strip(), words), text)
    return text
