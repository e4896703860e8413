"""The rest of a credential that a log wrapped onto the next line.

A terminal, a log shipper or a fixed-width formatter breaks a long line wherever the width runs out, often in
the middle of a token: `Authorization: Bearer eyJhbGci...` ends one line and the payload's tail and the whole
signature start the next. Two passes find the second part:

- before the rules (`join_wrapped`): a line that ends in a run of a token's characters, followed by a line
  that starts with one, where the two runs joined have a provider's token shape (a JWT, a `ghp_...`): both
  parts are hidden, whatever the rules would make of each half;
- after the rules (`hide_wrapped`): a line that ends right at a redacted token (`<redacted>`, or a value of
  16 characters or more), followed by a line that starts with a key-like run (no blank before it, no `:` or
  `=` after it, unlike a log line's timestamp, a header's name or the next variable): that run is hidden too,
  and so on down while each run reaches the end of its line. A short value (`password: <redacted: 9 chars>`)
  is not taken for a wrapped one.

Line breaks written as `\\n` inside a JSON string count as breaks too.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from core.safety.redact.base import REDACTED
from core.safety.redact.entropy import shannon

_TOKEN = r"[A-Za-z0-9+/_.~-]"
_BREAK_TEXT = r"\r?\n|\\r\\n|\\n"
_BREAK = re.compile(_BREAK_TEXT)
# What may follow the run on the next line: a blank, a quote or closing bracket, an escape, the end.
_FOLLOWER = r"(?=[\s\"'`,;)\]}]|\\[nrt\"]|$)"
_CONTINUATION = re.compile(rf"{_TOKEN}{{8,4096}}={{0,3}}{_FOLLOWER}")
_AT_LINE_END = re.compile(rf"<redacted(?:: (?P<chars>[0-9]{{1,9}}) chars)?>(?={_BREAK_TEXT})")
_LONG_VALUE = 16
# The next line's first run, at a break (the previous line's last run is read back from there).
_LINE_HEAD = re.compile(rf"(?P<brk>{_BREAK_TEXT})(?P<tail>{_TOKEN}{{4,4096}}={{0,3}}){_FOLLOWER}")
# The same at real line breaks only: five times faster, for the many texts without an escaped one.
_REAL_LINE_HEAD = re.compile(rf"(?P<brk>\n)(?P<tail>{_TOKEN}{{4,4096}}={{0,3}}){_FOLLOWER}")
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_.~-")
_MAX_HEAD = 2048
_DIGIT = re.compile(r"[0-9]")
_WORDY = re.compile(r"[A-Za-z][a-z]+(?:[-_.][a-z]+)*\.?")


def _key_like(run: str) -> bool:
    """A piece of a token, not a word, a number or a file name: mixed character classes and varied."""
    classes = (run != run.upper()) + (run != run.lower()) + (_DIGIT.search(run) is not None)
    if classes < 2 or _WORDY.fullmatch(run) is not None:
        return False
    return len(run) < 16 or shannon(run) >= 3.0


def _head(text: str, end: int, floor: int) -> str:
    """The run of token characters that ends at `end` (not reaching back past `floor` or `_MAX_HEAD`)."""
    start = end
    low = max(floor, end - _MAX_HEAD)
    while start > low and text[start - 1] in _TOKEN_CHARS:
        start -= 1
    return text[start:end]


def join_wrapped(text: str, shaped: Callable[[str], bool]) -> str:
    """`text` with each token a line break cut in two hidden, both halves (`shaped`: a provider's shape)."""
    escaped = "\\n" in text
    if "\n" not in text and not escaped:
        return text
    out: list[str] = []
    pos = 0
    for match in (_LINE_HEAD if escaped else _REAL_LINE_HEAD).finditer(text):
        tail = match["tail"]
        if not _key_like(tail):
            continue
        brk = match.start()
        if brk > pos and text[brk - 1] == "\r":
            brk -= 1
        head = _head(text, brk, pos)
        if not head or not shaped(head + tail):
            continue
        out.append(text[pos : brk - len(head)])
        out.append(f"{REDACTED}{text[brk : match.start('tail')]}{REDACTED}")
        pos = match.end()
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)


def hide_wrapped(text: str) -> str:
    """`text` with each wrapped continuation of a redacted credential hidden as well."""
    if "<redacted" not in text:
        return text
    out: list[str] = []
    pos = 0
    search_from = 0
    while (marker := _AT_LINE_END.search(text, search_from)) is not None:
        search_from = marker.end()
        if marker["chars"] is not None and int(marker["chars"]) < _LONG_VALUE:
            continue
        at = marker.end()
        while (brk := _BREAK.match(text, at)) is not None:
            run = _CONTINUATION.match(text, brk.end())
            if run is None or not _key_like(run[0]):
                break
            out.append(text[pos : run.start()])
            out.append(REDACTED)
            pos = at = run.end()
        search_from = max(search_from, pos)
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)
