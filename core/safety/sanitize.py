"""Make untrusted cluster text safe to print: every control or invisible character becomes visible.

Terminal attacks need the terminal to *see* an escape byte (ESC, or a C1 introducer such as 0x9b). Rich and
Textual pass most of those through, so here each such character is rewritten as a short printable escape
(`\\x1b`, `\\u202e`). A whole sequence such as ``ESC [ 2 J`` therefore comes out as the seven characters
``\\x1b[2J``: the introducer is defused and the parameters stay readable, so tampering shows instead of acting.

Escaping character by character (rather than parsing sequences) is deliberate: it is one ``str.translate``
pass with no backtracking, so no input, however malformed (an unterminated OSC, 100k ``ESC [`` with no final
byte), can make it slower than linear.

Markup is not handled here; widgets must receive Text/Content objects built from the returned strings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = [
    "FORMAT_CHAR_RANGES",
    "decode_bytes",
    "is_clean",
    "sanitize",
    "sanitize_log_lines",
    "strip_sgr",
    "terminal_line",
    "unsafe_class",
    "visible_escape",
]

# Unicode category Cf (bidi overrides and isolates, zero-width characters, BOM, soft hyphen, tag characters,
# invisible operators, ...). Fixed here rather than computed from unicodedata at import so start-up stays
# fast; a unit test checks the table still covers every Cf code point of the running Python's Unicode data.
FORMAT_CHAR_RANGES: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),
    (0x0600, 0x0605),
    (0x061C, 0x061C),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x180E, 0x180E),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x2064),
    (0x2066, 0x206F),
    (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
)

_NAMED_ESCAPES = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}

# Colour/attribute sequences (SGR, `ESC [ params m`). Only the 7-bit form: it is what log libraries emit.
_SGR = re.compile(r"\x1b\[[0-9;:]*m")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def visible_escape(char: str) -> str:
    """The printable stand-in for one unsafe character: `\\n`, `\\x1b`, `\\u202e` or `\\U000e0041`."""
    code = ord(char)
    if code in _NAMED_ESCAPES:
        return _NAMED_ESCAPES[code]
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _unsafe_code_points() -> Iterable[int]:
    yield from (c for c in range(0x20) if c not in (0x09, 0x0A))  # C0 except tab and newline; CR included
    yield from range(0x7F, 0xA0)  # DEL and C1 (0x9b is the one-byte CSI)
    yield from (0x2028, 0x2029)  # line/paragraph separators: some terminals and widgets break lines on them
    yield from range(0xD800, 0xE000)  # lone surrogates cannot be encoded for output at all
    for first, last in FORMAT_CHAR_RANGES:
        yield from range(first, last + 1)


_TABLE: dict[int, str] = {code: visible_escape(chr(code)) for code in _unsafe_code_points()}
_TABLE_ONE_LINE: dict[int, str] = {**_TABLE, 0x0A: "\\n"}
# Characters that must never reach the terminal raw; used by is_clean() and by tests.


def _char_class(codes: Iterable[int]) -> str:
    """A regex character class written as ranges; thousands of single members would make matching slow."""
    ranges: list[list[int]] = []
    for code in sorted(codes):
        if ranges and code == ranges[-1][1] + 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    return "[" + "".join(f"\\U{first:08x}-\\U{last:08x}" for first, last in ranges) + "]"


_UNSAFE = re.compile(_char_class(_TABLE))


def unsafe_class(exclude: str = "") -> str:
    """A regex character class of every character sanitize() escapes, less those in `exclude`."""
    return _char_class(code for code in _TABLE if chr(code) not in exclude)


def _marker(omitted: int) -> str:
    return f"… [+{omitted} chars]"


def _cut(text: str, table: dict[int, str], max_len: int, omitted_tail: int = 0) -> str:
    """Render `text` into at most `max_len` characters, ending with a marker counting what was left out.

    An escape such as `\\x1b` is never split: a half escape would read as different text.
    """
    rendered_full = text.translate(table) if len(text) <= max_len else None
    if rendered_full is not None and len(rendered_full) <= max_len and omitted_tail == 0:
        return rendered_full
    # Reserve room for the largest marker this call could need, so the result never exceeds max_len.
    budget = max_len - len(_marker(len(text) + omitted_tail))
    if budget <= 0:
        return _marker(len(text) + omitted_tail)
    pieces: list[str] = []
    used = 0
    taken = 0
    for char in text[:budget]:  # each input character renders to at least one output character
        piece = table.get(ord(char), char)
        if used + len(piece) > budget:
            break
        pieces.append(piece)
        used += len(piece)
        taken += 1
    return "".join(pieces) + _marker(len(text) - taken + omitted_tail)


def sanitize(text: str, *, max_len: int | None = None, keep_newlines: bool = True, omitted_tail: int = 0) -> str:
    """Return `text` with every control, C1, DEL, Cf, separator and surrogate character made visible.

    `\\r\\n` becomes `\\n`; a lone `\\r` (which could overwrite what was printed before it) becomes the visible
    `\\r`. With `keep_newlines=False` (for one-line fields such as names) newlines become the visible `\\n`.
    With `max_len`, the result is at most `max_len` characters, ending with `… [+N chars]` where N counts
    the input characters not shown. `omitted_tail` is for callers that already dropped N characters from
    the end: they are added to the marker, which then always appears.
    """
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    table = _TABLE if keep_newlines else _TABLE_ONE_LINE
    if max_len is None:
        return text.translate(table)
    return _cut(text, table, max_len, omitted_tail)


def decode_bytes(data: bytes | bytearray | memoryview) -> str:
    """Decode log bytes as UTF-8; invalid sequences become U+FFFD instead of failing or being dropped."""
    return bytes(data).decode("utf-8", errors="replace")


def strip_sgr(text: str) -> str:
    """Remove colour/attribute sequences (`ESC [ ... m`); every other sequence is left for sanitize()."""
    return _SGR.sub("", text) if "\x1b" in text else text


def sanitize_log_lines(text: str, *, max_line: int = 2000) -> list[str]:
    """Split log text into sanitised lines, each at most `max_line` characters (with a cut marker).

    Colour codes are removed silently: in logs they are decoration, not tampering. Any other sequence is
    made visible. `\\r\\n`, `\\n` and a lone `\\r` all end a line: progress bars (tqdm and friends) redraw with
    `\\r`, and a line per redraw is both readable and shows any text a `\\r` would have hidden. A final line
    break does not produce an extra empty line.
    """
    text = _LINE_BREAK.sub("\n", strip_sgr(text))
    if text.endswith("\n"):
        text = text[:-1]
    if not text:
        return []
    # Translating the whole text in one pass is much faster than per line; the table never maps a
    # character to a raw newline, so the rendered lines correspond one-to-one with the source lines.
    originals = text.split("\n")
    rendered = text.translate(_TABLE).split("\n")
    return [
        line if len(line) <= max_line else _cut(original, _TABLE, max_line)
        for line, original in zip(rendered, originals, strict=True)
    ]


def terminal_line(parts: Iterable[str]) -> str:
    """One line written as parts with a carriage return between them, as a terminal leaves it on screen: each
    part overwrites the start of the line, and the tail of a longer part before it stays visible (a progress
    meter redrawn, then an error written after its last redraw)."""
    shown: list[str] = []  # written over in place: linear in what is written, however many redraws
    for part in parts:
        if len(part) >= len(shown):
            shown = list(part)
        elif part:
            shown[: len(part)] = part
    return "".join(shown)


def is_clean(text: str, *, allow_newlines: bool = True) -> bool:
    """True when `text` holds no character that sanitize() would escape (tab and, optionally, newline allowed)."""
    if not allow_newlines and "\n" in text:
        return False
    return _UNSAFE.search(text) is None
