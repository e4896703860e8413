"""The one entry point for text that came from a cluster: clean() for fields, clean_log() for logs.

Order, and why:
1. Make it a string (None -> "", bytes decoded as UTF-8 with U+FFFD for invalid bytes).
2. Redact with everything that can split a token taken out: control sequences (a colour code inside
   `ghp_...`), other control characters, invisible format characters (zero-width, bidi, BOM, soft hyphen;
   category Cf) and U+2028/9. Any of them inside a token or a name such as `API_KEY` would otherwise hide it
   from every rule, and sanitising afterwards would print both halves. This holds for every field, not only
   logs.
3. Sanitise last, so the redactor's own replacement text is covered too and every control character that is
   left is made visible. Redacting after sanitising would be wrong: an escape such as `\\x1b` turned into
   text can join onto a token and change where it ends.

The removed characters are put back wherever the text was not redacted (core.safety.splitters), so a bidi
override, a zero-width space or an escape shows up as `\\u202e` / `\\u200b` / `\\x1b[2J` and tampering
stays visible; one that stood inside a secret goes with it. The text is also redacted as written, and the
result that shows the least is kept: removing a character can lengthen a token past a fixed-length pattern.
"""

from __future__ import annotations

import re

from core.safety.redact import redact
from core.safety.redact.base import MARKER
from core.safety.sanitize import decode_bytes, sanitize, sanitize_log_lines, strip_sgr, terminal_line
from core.safety.splitters import SPLITTERS, restore, split_out

__all__ = ["clean", "clean_log", "redacted"]

_LINE_BREAK = re.compile(r"\r\n|\r")
# A field longer than max_len plus this margin is cut before redaction: nothing past the margin can be shown,
# and redacting a hostile multi-megabyte annotation in full would only cost time. The margin covers values
# that redaction shrinks (a long key or token collapsing into `<redacted>`), so what is shown is the same.
_PRE_CUT_MARGIN = 65_536


def _as_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes | bytearray | memoryview):
        return decode_bytes(value)
    try:
        return str(value)
    except Exception:  # a hostile or broken __str__ must not take the caller down
        return f"<unprintable {type(value).__name__}>"


def _shown(text: str) -> int:
    """How many characters of the source a redacted text still shows."""
    return len(SPLITTERS.sub("", MARKER.sub("", text)))


def _redact_through_splitters(text: str) -> str:
    redacted = redact(text)
    joined, runs = split_out(text)
    if not runs:
        return redacted
    redacted_joined = redact(joined)
    if redacted == text and redacted_joined == joined:
        return text  # nothing secret either way
    # Two readings: without the splitters (finds a split token), and as written first (a splitter removed
    # can also lengthen a token past a fixed-length pattern). Keep the one that shows the least.
    first = restore(joined, redacted_joined, runs)
    rest, rest_runs = split_out(redacted)
    second = restore(rest, redact(rest), rest_runs)
    return min((first, second), key=_shown)


def redacted(text: str) -> str:
    """`text` with every credential hidden (seeing through characters that split a token), not yet sanitised.

    For a caller that must shorten raw cluster text before it reaches clean(): cut only what this returns.
    A cut made first can take away what identifies a credential (the END line of a private key, the
    length a token pattern needs) and leave the rest of it to be shown.
    """
    return _redact_through_splitters(text)


def _cut_before(value: str, limit: int) -> int:
    """Where to cut `value` near `limit`: at the last blank before it, so no token is sliced in two."""
    blank = max(value.rfind(" ", limit - 4096, limit), value.rfind("\n", limit - 4096, limit))
    return blank + 1 if blank > 0 else limit


def clean(text: object, *, max_len: int | None = 4096, one_line: bool = False) -> str:
    """Make any untrusted value safe to display: redacted, every control character visible, bounded.

    `one_line=True` is for names and other single-line fields: newlines become the visible `\\n`.
    `max_len` bounds the result, a cut ending in `… [+N chars]`; None means no bound.
    """
    value = _as_text(text)
    omitted = 0
    if max_len is not None and len(value) > max_len + _PRE_CUT_MARGIN:
        cut = _cut_before(value, max_len + _PRE_CUT_MARGIN)
        omitted = len(value) - cut
        value = value[:cut]
    value = _redact_through_splitters(value)
    return sanitize(value, max_len=max_len, keep_newlines=not one_line, omitted_tail=omitted)


def clean_log(data: bytes | bytearray | str, *, max_line: int = 2000) -> list[str]:
    """Logs as safe display lines: decoded, colour codes dropped, redacted, sanitised, each line bounded.

    Colour codes always go (in a log they are decoration, not tampering). A line is what ends in `\\n` (or
    `\\r\\n`), as `kubectl logs` and the API's `tailLines` count them; a lone `\\r` inside it (a progress
    meter's redraw) is rendered as a terminal shows it: what is left visible (core.safety.sanitize's
    terminal_line). The parts between carriage returns are redacted and sanitised first, each as a line of its
    own, so a redraw can never join the halves of two secrets; should redaction merge lines (a private key
    spread over many), each part stays a line of its own. Redaction sees the whole text, so such a key is still
    recognised.
    """
    text = data if isinstance(data, str) else decode_bytes(data)
    text = strip_sgr(text)
    if "\r" not in text:
        return sanitize_log_lines(_redact_through_splitters(text), max_line=max_line)
    text = text.replace("\r\n", "\n")
    if text.endswith("\n"):
        text = text[:-1]
    if not text:
        return []
    parts = [row.count("\r") + 1 for row in text.split("\n")]
    # The trailing break keeps a last empty part (a row that ends in `\\r`) as a line of its own.
    pieces = sanitize_log_lines(_redact_through_splitters(_LINE_BREAK.sub("\n", text)) + "\n", max_line=max_line)
    if len(pieces) != sum(parts):
        return pieces
    rows: list[str] = []
    start = 0
    for count in parts:
        rows.append(pieces[start] if count == 1 else terminal_line(pieces[start : start + count]))
        start += count
    return rows
