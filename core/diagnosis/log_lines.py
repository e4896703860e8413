"""One log line made ready for recognising what it says: its timestamp, launcher and logger prefixes taken off,
its level kept, and marked when it is a stack frame or a shutdown notice (never the line that explains a
failure).

Prefixes taken off, in this order (each at most once): an RFC 3339 or `2026-11-30 11:24:50,123` timestamp
(`kubectl logs --timestamps`, Python logging); the CRI stream tag (`stdout F `); a launcher's rank tag
(`[rank3]:`, torchrun's `[default0]:`, mpirun's `[1,13]<stdout>:`); then a logger's own prefix: vLLM's
`ERROR 02-07 11:28:26 engine.py:389] `, glog's `E1130 11:47:36.402000 140234 file.cc:123] ` (also bracketed, as
PyTorch writes it), Python logging's `WARNING:torch.distributed...:`, `- name - ERROR - `, hydra's
`[name][ERROR] - ` or a bare level word. Lines are untrusted: they are matched, never interpreted, and the
original text is what gets cited. Escape sequences (ANSI colours) are stripped for matching only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from core.diagnosis.signals import ESCAPE_SEQUENCE_RE

# A single log line longer than this is matched on its head only; a hostile megabyte line stays cheap.
MAX_LINE_MATCH_CHARS = 8192

_STAMP_RE = re.compile(
    r"^\[?(?P<date>\d{4}-\d{2}-\d{2})[T ](?P<time>\d{2}:\d{2}:\d{2})(?:[.,](?P<frac>\d{1,9}))?"
    r"(?:\s?(?P<tz>Z|[+-]\d{2}:?\d{2}))?\]?\s?"
)
_CRI_RE = re.compile(r"^(?:stdout|stderr) [FP] ")
_LAUNCHER_RE = re.compile(
    r"^(?:\[(?:rank|default)\d{1,5}\]:\s?|\[\d{1,5},\d{1,5}\]<(?:stdout|stderr)>:\s?"
    # Ray's driver repeats a worker's lines under `(TrainWorker pid=4121, ip=10.233.64.17) `
    r"|\((?:[\w.:-]{1,80} )?pid=\d{1,10}(?:, ip=[0-9A-Fa-f.:]{2,45})?\)\s?)"
)
_LEVELS = {
    "D": "debug", "I": "info", "W": "warning", "E": "error", "F": "fatal", "C": "critical",
    "DEBUG": "debug", "INFO": "info", "WARN": "warning", "WARNING": "warning", "ERROR": "error",
    "FATAL": "fatal", "CRITICAL": "critical",
}  # fmt: skip
_LOGGER_RES = (
    # vLLM and friends: `ERROR 02-07 11:28:26 engine.py:389] `, and its V1 engine's `[core.py:515] `
    re.compile(
        r"^(?P<level>DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL) \d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{1,6})? "
        r"\[?[\w./-]{1,160}:\d{1,6}\] "
    ),
    # glog, as C++ code and PyTorch write it: `E1130 11:47:36.402000 140234 file.cc:123] `, `[E1130 ... ] `
    re.compile(
        r"^\[?(?P<level>[DIWEF])\d{4} \d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?: +\d{1,10})? [\w./<>-]{1,160}:\d{1,6}\]\s?"
    ),
    # tornado and Jupyter: `[C 2026-11-30 11:57:28.871 ServerApp] `, `[E 241130 11:57:28 web:2243] `,
    # `[I 11:57:28.871 NotebookApp] ` (the level's initial; C is critical)
    re.compile(
        r"^\[(?P<level>[DIWEC]) (?:\d{4}-\d{2}-\d{2} |\d{6} )?\d{2}:\d{2}:\d{2}(?:\.\d{1,6})? [\w.:-]{1,80}\]\s?"
    ),
    # gunicorn, after its `[2026-11-30 11:32:01 +0000] ` stamp: `[7] [ERROR] `
    re.compile(r"^\[\d{1,10}\] \[(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL)\] "),
    # Ray, after its stamp: `ERROR worker.py:409 -- `
    re.compile(r"^(?P<level>DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL) [\w./-]{1,160}:\d{1,6} -- "),
    # Python logging's default format: `WARNING:torch.distributed.elastic.multiprocessing.api:`
    re.compile(r"^(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL):[\w.<>-]{1,200}:"),
    # `- name - ERROR - ` (after a timestamp) and hydra's `[name][ERROR] - `
    re.compile(r"^-?\s?[\w.<>-]{1,120} - (?P<level>DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL) - "),
    re.compile(r"^\[[\w.<>-]{1,120}\]\[(?P<level>DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\] - "),
    # A bare level word, as many simple loggers write it after a timestamp: `ERROR checkpoint shard 3 ...`, and
    # uvicorn's padded `ERROR:    ` (not wget's `ERROR 404: Not Found.`, which is a status, not a level)
    re.compile(r"^\[?(?P<level>DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\]?(?::\s*|\s-\s|\s)(?!\d{3}:)"),
)

# Stack frames and dumps: they follow the line that says what went wrong, never explain it themselves.
FRAME_RE = re.compile(
    r"^frame #\d{1,4}: |^Exception raised from \S.{0,400}\(most recent call first\)"
    r"|^\s*#\d{1,4}\s+0x[0-9a-fA-F]{4,16} in |^\s+at [\w$.<>/@:\[\]-]{1,300}[ (]|^\s+at \S{1,300}$"
    r"|^\s*\.\.\. \d{1,6} more$|^goroutine \d{1,10} \[|^\t\S{1,300}\.go:\d{1,6}|^created by \S"
)
# A launcher or a process tearing down, or an exception that only wraps another one: said after the cause.
SHUTDOWN_RE = re.compile(
    r"closing signal SIG[A-Z]{2,6}|Sending process \d{1,10} closing signal|\bdied, exit code: -?\d{1,4}"
    r"|Received SIG(?:TERM|INT|KILL)|received signal SIG(?:TERM|INT)|Signal \d{1,3} \(SIG[A-Z]{2,6}\) received"
    r"|got signal: \d{1,3}|Killing local vLLM worker processes|terminate called after throwing an instance of"
    r"|failed \(exitcode: -?\d{1,4}\) local_rank|^Terminated$",
    re.IGNORECASE,
)
# A line that only says something gave up, or points elsewhere for the reason: a server's or an engine's last
# word ("Application startup failed. Exiting.", "Reason: Worker failed to boot.", "error: creating server:
# Internal - failed to load all models", "Engine process failed to start. See stack trace for the root cause.").
# The root error is above it; such a line explains a failure only when nothing else does.
POINTER_RE = re.compile(
    r"\bsee (?:the )?(?:above|(?:full |complete )?(?:stack ?trace|traceback|logs?|output)|previous|earlier"
    r"|root cause)|\bfor (?:the )?(?:root cause|(?:more )?details)\b|\bcheck the (?:logs?|stack ?trace|output)\b",
    re.IGNORECASE,
)
SUMMARY_RE = re.compile(
    r"\b(?:application|server|engine|worker|process|service|trial|task|actor|replica)s?\b[^\n]{0,40}?"
    r"\b(?:startup failed|failed to (?:start|boot|launch|initiali[sz]e)|did not complete|exited with code)"
    r"|\bfailed to load all\b|^(?:Shutting down|Exiting)\b",
    re.IGNORECASE,
)
WRAPPER_EXCEPTIONS = re.compile(
    r"^(?:[\w.]{0,200}\.)?(?:ChildFailedError|SignalException|ProcessExitedException|ProcessRaisedException"
    r"|KeyboardInterrupt|SystemExit|CalledProcessError)\b"
)


@dataclass(frozen=True, slots=True)
class LogLine:
    """A line as the scanners see it; ``text`` is the original, ``body`` what is matched."""

    text: str
    body: str
    level: str | None  # "error", "warning", ... from a logger prefix
    at: datetime | None  # its own timestamp, or the last one before it
    frame: bool
    shutdown: bool
    summary: bool = False  # it only says something gave up, or points elsewhere for the reason


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


def _strip_logger(body: str) -> tuple[str | None, str]:
    for pattern in _LOGGER_RES:
        match = pattern.match(body)
        if match is not None:
            return _LEVELS.get(match["level"].upper()), body[match.end() :]
    return None, body


def as_line(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return value if isinstance(value, str) else str(value)


def read_line(line: str) -> tuple[datetime | None, str | None, str]:
    """(timestamp, level, body) of one line."""
    text = ESCAPE_SEQUENCE_RE.sub("", line[:MAX_LINE_MATCH_CHARS]).rstrip("\r\n")
    stamp, text = _stamp(text)
    text = _CRI_RE.sub("", text, count=1)
    if stamp is None:  # some launchers put their prefix before the timestamp
        stamp, text = _stamp(text)
    text = _LAUNCHER_RE.sub("", text, count=1)
    if stamp is None:
        stamp, text = _stamp(text)
    level, text = _strip_logger(text)
    # A rank tag may follow the logger's prefix, and a logger's prefix the rank tag.
    text = _LAUNCHER_RE.sub("", text, count=1)
    if level is None:
        level, text = _strip_logger(text)
    return stamp, level, text


def prepare_lines(lines: Sequence[object], before: datetime | None = None) -> list[LogLine | None]:
    """Every line read; None for a line logged after ``before`` (it cannot explain an end that came first).
    A line without a timestamp inherits the previous line's; a stamp without a zone is UTC."""
    if before is not None and before.tzinfo is None:
        before = before.replace(tzinfo=UTC)
    out: list[LogLine | None] = []
    current: datetime | None = None
    for raw in lines:
        original = as_line(raw)
        stamp, level, body = read_line(original)
        if stamp is not None:
            current = stamp
        if before is not None and current is not None and current > before:
            out.append(None)
            continue
        frame = bool(FRAME_RE.search(body))
        shutdown = not frame and bool(SHUTDOWN_RE.search(body))
        summary = not frame and bool(POINTER_RE.search(body) or SUMMARY_RE.search(body))
        out.append(LogLine(original, body, level, current, frame, shutdown, summary))
    return out
