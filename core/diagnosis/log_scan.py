"""Find the one log line that best explains why a container ended.

Order of preference (the first kind present wins; within a kind the last occurrence wins, being closest to
the end):
1. the exception line of the last Python traceback (with chained exceptions, the final one);
2. GPU out of memory (CUDA/cuBLAS/torch OutOfMemoryError);
3. argparse ``prog: error: ...`` (exit 2), then a ``usage:`` line;
4. ``exec format error``, ``permission denied``, ``command not found``, ``No such file or directory``;
5. NCCL failures (``NCCL WARN``, ``NCCL error``, the watchdog collective timeout);
6. ``Segmentation fault``, then a shell's ``Killed``;
7. otherwise the last line that looks like an error (ERROR, FATAL, CRITICAL, Exception, ``error:``).

Lines are untrusted text: they are matched, never interpreted, and returned unchanged. Escape sequences (ANSI
colours) are stripped only for matching. When lines start with a timestamp (RFC 3339 from ``kubectl logs
--timestamps`` or a ``2026-11-30 11:24:50`` logging prefix), ``before`` drops lines stamped after it, and
lines without a stamp inherit the previous line's. A stamp without a zone is read as UTC, the usual container
clock.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

from core.diagnosis.signals import ESCAPE_SEQUENCE_RE, GPU_OOM_RE

# A single log line longer than this is matched on its head only; a hostile megabyte line stays cheap.
MAX_LINE_MATCH_CHARS = 8192


class LogKind(StrEnum):
    PYTHON_EXCEPTION = "python_exception"
    GPU_OOM = "gpu_oom"
    USAGE_ERROR = "usage_error"
    EXEC_FORMAT = "exec_format_error"
    PERMISSION_DENIED = "permission_denied"
    COMMAND_NOT_FOUND = "command_not_found"
    NO_SUCH_FILE = "no_such_file"
    NCCL = "nccl"
    SEGFAULT = "segfault"
    KILLED = "killed"
    ERROR_LINE = "error_line"


@dataclass(frozen=True)
class LogFinding:
    """The explaining line: 1-based ``line_no`` into the given lines, and the original text of that line."""

    line_no: int
    text: str
    kind: str
    # True when this line, or any scanned line of the log, reports a GPU out-of-memory: a wrapper exception
    # (torchrun's ChildFailedError) is often the last word while the real cause is a CUDA OOM above it.
    gpu_oom: bool


_STAMP_RE = re.compile(
    r"^\[?(?P<date>\d{4}-\d{2}-\d{2})[T ](?P<time>\d{2}:\d{2}:\d{2})(?:[.,](?P<frac>\d{1,9}))?"
    r"(?P<tz>Z|[+-]\d{2}:?\d{2})?\]?\s?"
)
# Per-process prefixes that launchers add: torchrun "[default0]:", PyTorch "[rank3]:", CRI "stdout F ".
_PREFIX_RE = re.compile(r"^(?:(?:stdout|stderr) [FP] )?(?:\[(?:rank|default)\d{1,5}\]:\s?)?")

_TRACEBACK_RE = re.compile(r"^Traceback \(most recent call last\):")
# An exception line: a (dotted) class name with a message, or a bare name that reads like an exception class.
# All-capital words are log levels ("ERROR: ..."), and a shell's "Killed" is not an exception.
_EXCEPTION_LINE_RE = re.compile(
    r"^(?:[A-Za-z_]\w{0,100}\.){0,20}(?![A-Z_]+:)[A-Z]\w{0,100}:(?:\s.*)?$"
    r"|^(?:[A-Za-z_]\w{0,100}\.){0,20}\w{0,100}(?:Error|Exception|Interrupt|Exit|Iteration|Warning|Failure)$"
)
_CHAIN_RE = re.compile(r"^(?:During handling of the above exception|The above exception was the direct cause)")

_PATTERNS: tuple[tuple[LogKind, tuple[re.Pattern[str], ...]], ...] = (
    (LogKind.GPU_OOM, (GPU_OOM_RE,)),
    (LogKind.USAGE_ERROR, (re.compile(r"^\S{1,256}: error: "), re.compile(r"^usage: "))),
    (LogKind.EXEC_FORMAT, (re.compile(r"exec format error", re.I),)),
    (LogKind.PERMISSION_DENIED, (re.compile(r"permission denied", re.I),)),
    (LogKind.COMMAND_NOT_FOUND, (re.compile(r"command not found|executable file not found", re.I),)),
    (LogKind.NO_SUCH_FILE, (re.compile(r"no such file or directory", re.I),)),
    (
        LogKind.NCCL,
        (
            re.compile(
                r"NCCL WARN|NCCL error|Watchdog caught collective operation timeout"
                r"|nccl(?:Internal|System|UnhandledCuda|InvalidUsage|Remote)Error"
            ),
        ),
    ),
    (LogKind.SEGFAULT, (re.compile(r"Segmentation fault|SIGSEGV"),)),
    (LogKind.KILLED, (re.compile(r"(?:^|\s)Killed(?:\s|$)"),)),
    (
        LogKind.ERROR_LINE,
        (
            re.compile(
                r"\b(?:ERROR|FATAL|CRITICAL)\b|\b[A-Z]\w{0,100}(?:Error|Exception)\b|\bException\b"
                r"|\b[Ee]rror:|\blevel=(?:error|fatal)\b"
            ),
        ),
    ),
)


def _stamp(body: str) -> tuple[datetime | None, str]:
    match = _STAMP_RE.match(body)
    if match is None:
        return None, body
    frac = (match["frac"] or "")[:6].ljust(6, "0") if match["frac"] else ""
    text = f"{match['date']}T{match['time']}" + (f".{frac}" if frac else "")
    tz = match["tz"]
    if tz and tz != "Z":
        text += tz if ":" in tz else f"{tz[:3]}:{tz[3:]}"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None, body
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed, body[match.end() :]


def _body(line: str) -> tuple[datetime | None, str]:
    """The text to match (escapes, timestamp and launcher prefix removed) and the line's timestamp."""
    text = ESCAPE_SEQUENCE_RE.sub("", line[:MAX_LINE_MATCH_CHARS]).rstrip("\r\n")
    stamp, text = _stamp(text)
    text = _PREFIX_RE.sub("", text, count=1)
    if stamp is None:
        # Some launchers put their prefix before the timestamp.
        stamp, text = _stamp(text)
    return stamp, text


def _as_line(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return value if isinstance(value, str) else str(value)


def _last_traceback_exception(bodies: list[str | None]) -> int | None:
    """Index of the exception line that ends the last traceback, or None when no traceback has one."""
    headers = [index for index, body in enumerate(bodies) if body is not None and _TRACEBACK_RE.match(body)]
    for header in reversed(headers):
        for index in range(header + 1, len(bodies)):
            body = bodies[index]
            if body is None or not body.strip() or body[0] in " \t":
                continue
            if _TRACEBACK_RE.match(body) or _CHAIN_RE.match(body):
                break
            if _EXCEPTION_LINE_RE.match(body):
                return index
            break
    return None


def explaining_line(lines: Sequence[str], *, before: datetime | None = None) -> LogFinding | None:
    """The line that best explains the container's end, or None when no line looks like a failure."""
    if before is not None and before.tzinfo is None:
        before = before.replace(tzinfo=UTC)
    originals = [_as_line(line) for line in lines]
    bodies: list[str | None] = []
    current: datetime | None = None
    for line in originals:
        stamp, body = _body(line)
        if stamp is not None:
            current = stamp
        # None marks a line logged after ``before``: it cannot explain an end that came first.
        bodies.append(None if before is not None and current is not None and current > before else body)

    any_gpu_oom = any(body is not None and GPU_OOM_RE.search(body) for body in bodies)

    index = _last_traceback_exception(bodies)
    if index is not None:
        return LogFinding(index + 1, originals[index], LogKind.PYTHON_EXCEPTION, any_gpu_oom)

    for kind, patterns in _PATTERNS:
        for pattern in patterns:
            for position in range(len(bodies) - 1, -1, -1):
                body = bodies[position]
                if body is not None and pattern.search(body):
                    return LogFinding(position + 1, originals[position], kind, any_gpu_oom)
    return None
