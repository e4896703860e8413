"""The one entry point for text that came from a cluster: clean() for fields, clean_log() for logs.

Order, and why:
1. Make it a string (None -> "", bytes decoded as UTF-8 with U+FFFD for invalid bytes).
2. Redact with invisible format characters (zero-width, bidi, BOM, soft hyphen; category Cf) and U+2028/9
   removed: one of them inside `ghp_...` or `API_KEY` would otherwise split the token so no rule sees it.
   The text is redacted both with and without them, so neither spelling can slip through.
3. Sanitise last, so the redactor's own replacement text is covered too and every control character that is
   left is made visible. Redacting after sanitising would be wrong: an escape such as `\\x1b` turned into
   text can join onto a token and change where it ends.

Invisible characters are only removed when something was redacted. Otherwise the original text is sanitised
as it is, so a bidi override or zero-width space shows up as `\\u202e` / `\\u200b` and tampering stays visible.
"""

from __future__ import annotations

import re

from core.safety.redact import redact
from core.safety.sanitize import (
    FORMAT_CHAR_RANGES,
    decode_bytes,
    sanitize,
    sanitize_log_lines,
    strip_sgr,
)

__all__ = ["clean", "clean_log"]

_INVISIBLE = re.compile(
    "[" + "".join(f"\\U{first:08x}-\\U{last:08x}" for first, last in FORMAT_CHAR_RANGES) + "\u2028\u2029]"
)
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


def _redact_through_invisibles(text: str) -> str:
    redacted = redact(text)
    if _INVISIBLE.search(redacted) is None:
        return redacted
    joined = _INVISIBLE.sub("", redacted)
    redacted_joined = redact(joined)
    if redacted == text and redacted_joined == joined:
        return text  # nothing secret either way: keep the characters so sanitize() shows them
    return redacted_joined


def clean(text: object, *, max_len: int | None = 4096, one_line: bool = False) -> str:
    """Make any untrusted value safe to display: redacted, every control character visible, bounded.

    `one_line=True` is for names and other single-line fields: newlines become the visible `\\n`.
    `max_len` bounds the result, a cut ending in `… [+N chars]`; None means no bound.
    """
    value = _as_text(text)
    omitted = 0
    if max_len is not None and len(value) > max_len + _PRE_CUT_MARGIN:
        omitted = len(value) - (max_len + _PRE_CUT_MARGIN)
        value = value[: max_len + _PRE_CUT_MARGIN]
    value = _redact_through_invisibles(value)
    return sanitize(value, max_len=max_len, keep_newlines=not one_line, omitted_tail=omitted)


def clean_log(data: bytes | bytearray | str, *, max_line: int = 2000) -> list[str]:
    """Logs as safe display lines: decoded, colour codes dropped, redacted, sanitised, each line bounded.

    Colour codes go before redaction because one inside a token would split it just like a zero-width space.
    Redaction sees the whole text, so a private key spread over many lines is still recognised.
    """
    text = data if isinstance(data, str) else decode_bytes(data)
    return sanitize_log_lines(_redact_through_invisibles(strip_sgr(text)), max_line=max_line)
