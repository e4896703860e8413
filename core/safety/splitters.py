"""Characters that can split a credential so no rule sees it, taken out for redaction and put back after.

A colour code inside `ghp_...`, a zero-width space inside `API_KEY`, a BEL after `Bearer`: any character
sanitize() escapes can sit inside a token, and once escaped both halves are printed. So redaction looks at
the text without them (`split_out`), and afterwards `restore` puts each one back where the text was kept,
so tampering next to a secret still shows (`\\x1b[2J`) while one inside a secret goes with the secret.

`restore` aligns the text before and after redaction. Redaction only replaces stretches by a marker
(`<redacted...>`, `<empty>`, `<dropped...>`) or trims the blanks around a `=`, so after each replaced stretch
the next few unchanged characters are found again in the source. Restoring only ever inserts the removed
characters, never source text, so a misalignment could misplace an escape but cannot reveal a secret.
"""

from __future__ import annotations

import re

from core.safety.redact.base import MARKER
from core.safety.sanitize import unsafe_class

# Control sequences (7-bit CSI and the one-byte C1 CSI) with bounded parameters, then any single character
# sanitize() would escape, except tab and newline (those separate words anyway).
# A repeated group would keep one backtracking frame per repetition (a megabyte of NUL bytes took 146 MiB), so
# each match is one sequence or one run of single characters, and split_out joins adjacent matches.
SPLITTERS = re.compile(
    r"\x1b\[[0-?]{0,32}[ -/]{0,8}[@-~]|\x9b[0-?]{0,32}[ -/]{0,8}[@-~]|[\x1b\x9b]|"
    + unsafe_class(exclude="\t\n\x1b\x9b")  # the run stops before an ESC, which may open a sequence
    + "+"
)
_ANCHOR_LEN = 16
# The longest stretch one replacement stands for is a private key (a few KB); looking further for where the
# source resumes would only let a pathological text make restoring slow.
_REPLACED_REACH = 65_536

Runs = list[tuple[int, str]]  # (position in the text without them, the characters removed there)


def split_out(text: str) -> tuple[str, Runs]:
    """`text` without splitting characters, and where each run of them stood (adjacent matches are one run)."""
    runs: Runs = []
    pieces: list[str] = []
    run: list[str] = []  # the run being gathered, joined once it ends
    run_at = 0
    pos = 0
    removed = 0
    for match in SPLITTERS.finditer(text):
        if run and match.start() != pos:
            runs.append((run_at, "".join(run)))
            run = []
        if not run:
            pieces.append(text[pos : match.start()])
            run_at = match.start() - removed
        run.append(match[0])
        removed += len(match[0])
        pos = match.end()
    if run:
        runs.append((run_at, "".join(run)))
    if not runs:
        return text, runs
    pieces.append(text[pos:])
    return "".join(pieces), runs


def _same_run(a: str, i: int, b: str, j: int) -> int:
    """How many characters a[i:] and b[j:] share at the start (slice compares run in C)."""
    limit = min(len(a) - i, len(b) - j)
    step = 64
    low = 0
    while low < limit:  # gallop to a stretch that differs, then halve it down to the first difference
        high = min(limit, low + step)
        if a[i + low : i + high] == b[j + low : j + high]:
            low = high
            step *= 2
            continue
        while high - low > 1:
            mid = (low + high) // 2
            if a[i + low : i + mid] == b[j + low : j + mid]:
                low = mid
            else:
                high = mid
        return low if a[i + low] != b[j + low] else high
    return limit


def restore(source: str, result: str, runs: Runs) -> str:
    """`result` (the redacted `source`) with each run put back where `source` was kept unchanged."""
    if not runs:
        return result
    out: list[str] = []
    i = j = 0  # positions in source and result
    r = 0  # next run to place
    while True:
        stretch_end = i + _same_run(source, i, result, j)
        while r < len(runs) and runs[r][0] <= stretch_end:
            at, chars = runs[r]
            r += 1
            if at < i:
                continue  # it stood inside a replaced stretch: it goes with the secret
            out.append(result[j : j + at - i])
            j += at - i
            i = at
            out.append(chars)
        out.append(result[j : j + stretch_end - i])
        j += stretch_end - i
        i = stretch_end
        if j >= len(result):
            return "".join(out)
        # A replaced stretch: skip the marker (if any), then find where the source picks up again.
        marker = MARKER.match(result, j)
        if marker is None and source[i] in " \t":
            i += 1  # a blank the redactor dropped (a trailing one, or one before `Bearer <redacted>`)
            continue
        after = marker.end() if marker else j
        resume = _resume(source, i + (0 if marker else 1), result, after)
        if resume == -1:
            out.append(result[j:])  # cannot align: leave the rest without its escapes (never unsafe)
            return "".join(out)
        out.append(result[j:after])
        j, i = after, resume


def _resume(source: str, start: int, result: str, after: int) -> int:
    """Where in `source` (from `start`) the result's text after a replacement (`result[after:]`) continues."""
    following = MARKER.search(result, after)
    anchor = result[after : min(following.start() if following else len(result), after + _ANCHOR_LEN)]
    if not anchor:
        return len(source)
    while anchor:  # shorter and shorter, in case the redactor reworded the first characters
        found = source.find(anchor, start, start + _REPLACED_REACH)
        if found != -1:
            return found
        anchor = anchor[: len(anchor) // 2]
    return -1
