"""PEM private keys: whole blocks, a block whose END was cut off, and a body whose BEGIN line was cut off (also
when a log writer puts a timestamp or a tag before every line of it).

Format: RFC 7468 armour (`-----BEGIN <label> PRIVATE KEY-----`, base64 lines, `-----END ...-----`), as in the
gitleaks `private-key` rule and detect-secrets' PrivateKeyDetector. A log tail (500 lines, 1 MiB) can start
in the middle of a key: what is left is a run of base64 lines and the END line, and that run is the secret.
The same holds inside a JSON string (a GCP service-account `private_key`), where lines end in a literal `\\n`.
"""

from __future__ import annotations

import re

PEM_REDACTED = "<redacted: PEM private key>"

_LABEL = r"(?:[A-Z0-9]{1,20} ){0,4}PRIVATE KEY(?: BLOCK)?"
_PEM_BEGIN = re.compile(rf"-----BEGIN {_LABEL}-----")
_PEM_END = re.compile(rf"-----END {_LABEL}-----")
# How far back from an END line a headless body is looked for: a 4096-bit RSA key is about 3.3 KB.
_HEADLESS_REACH = 16_384
# Line ends inside a PEM body: real ones, and the two characters `\n` of a JSON-encoded string.
_LINE_END = re.compile(r"\\r\\n|\\n|\r\n|\n|\r")
_BODY_LINE = re.compile(r"[A-Za-z0-9+/=]+")
_HEADER_LINE = re.compile(r"(?:Proc-Type|DEK-Info|Comment):[^\n]*")  # RFC 1421 headers of an encrypted key
_BODY_TAIL = re.compile(r"[A-Za-z0-9+/=]{16,}$")  # the base64 end of a line that starts with other text


# What a log writer may put before every line of a key, END line included: a timestamp (`kubectl logs
# --timestamps`, most loggers), or a fixed tag such as torchrun's `[rank0]: ` or compose's `worker-1  | `.
_TIMESTAMP = re.compile(r"[ \t\[]*\d{4}-\d\d-\d\d[T ][0-9:.,]+(?:Z|[+-]\d\d:?\d\d)?\]?[ \t]+")
_MAX_PREFIX = 80


def _line_prefix(lead: str) -> re.Pattern[str] | None:
    """The prefix every body line carries when the END line carries `lead` before it (None: no prefix)."""
    if not lead.strip(" \t\"'") or len(lead) > _MAX_PREFIX:
        return None
    stamp = _TIMESTAMP.match(lead)
    if stamp is not None and stamp.end() == len(lead):
        return _TIMESTAMP  # the same shape on every line, a different time on each
    return re.compile(re.escape(lead))


def _headless_start(text: str, floor: int, end: int) -> int:
    """Where the base64 body that runs up to the END line at `end` begins (never before `floor`)."""
    low = max(floor, end - _HEADLESS_REACH)
    window = text[low:end]
    spans: list[tuple[int, int]] = []
    line_start = 0
    for line_end in _LINE_END.finditer(window):
        spans.append((line_start, line_end.start()))
        line_start = line_end.end()
    lead = window[line_start:]  # what stands before END on its own line (usually nothing)
    prefix = _line_prefix(lead)
    if prefix is None:
        spans.append((line_start, len(window)))
    begin = len(window)
    for first, last in reversed(spans):
        skip = 0
        if prefix is not None:
            # The first line of the key may carry more before the writer's prefix (another logger's own).
            tagged = prefix.match(window, first, last) or prefix.search(window, first, last)
            if tagged is None:
                break  # a line without the writer's prefix is not part of the key it wrote
            skip = tagged.end() - first
        raw = window[first + skip : last].rstrip(" \t\"'")
        line = raw.lstrip(" \t\"'")
        if not line and last == len(window):
            continue
        # A body line is a full 64-character line in practice; a shorter one only as the last line of the
        # body, or as the first line of the text (the tail cut it), so a word such as `Traceback` is not
        # swallowed.
        short_ok = begin == len(window) or (first == 0 and low == floor)
        if (_BODY_LINE.fullmatch(line) and (len(line) >= 16 or short_ok)) or _HEADER_LINE.fullmatch(line):
            begin = first + skip
            continue
        tail = _BODY_TAIL.search(raw)  # `"private_key": "MIIE...`: the body starts inside this line
        if tail is not None:
            begin = first + skip + tail.start()
        break
    return low + begin


def redact_pem(text: str) -> str:
    """Replace each private-key block; a block without END hides the rest, a body without BEGIN is found back.

    A key cut short (a truncated log, a clipped field) is still a secret, so losing the rest of the text is
    the lesser harm. Each search starts where the last one ended, so this stays linear in the text.
    """
    if "PRIVATE KEY" not in text:
        return text
    out: list[str] = []
    pos = 0
    begin = _PEM_BEGIN.search(text)
    end = _PEM_END.search(text)
    while begin is not None or end is not None:
        if end is not None and (begin is None or end.start() < begin.start()):
            # An END with no BEGIN before it: the head of the key was cut off.
            start = _headless_start(text, pos, end.start())
            out.append(text[pos:start])
            out.append(PEM_REDACTED)
        else:
            assert begin is not None
            out.append(text[pos : begin.start()])
            out.append(PEM_REDACTED)
            end = _PEM_END.search(text, begin.end())
            if end is None:
                return "".join(out)
        pos = end.end()
        if begin is not None and begin.start() < pos:
            begin = _PEM_BEGIN.search(text, pos)
        end = _PEM_END.search(text, pos)
    out.append(text[pos:])
    return "".join(out)
