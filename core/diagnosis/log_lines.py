"""One log line made ready for recognising what it says: its timestamp, launcher and logger prefixes taken off,
its level kept, and marked when it is a stack frame or a shutdown notice (never the line that explains a
failure).

Prefixes taken off, in this order (each at most once): an RFC 3339 or `2026-11-30 11:24:50,123` timestamp
(`kubectl logs --timestamps`, Python logging); the CRI stream tag (`stdout F `); a launcher's rank tag
(`[rank3]:`, torchrun's `[default0]:`, mpirun's `[1,13]<stdout>:`); then a logger's own prefix: vLLM's
`ERROR 02-07 11:28:26 engine.py:389] `, glog's `E1130 11:47:36.402000 140234 file.cc:123] ` (also bracketed, as
PyTorch writes it), Python logging's `WARNING:torch.distributed...:`, `- name - ERROR - `, hydra's
`[name][ERROR] - ` or a bare level word. vLLM's and glog's stamps have no year: a line without a full stamp of
its own has theirs read as a time only when its container's run dates them (log_yearless.py). Tornado's and
Jupyter's carry a date (`241130`, yymmdd, or `2024-11-30`) and no zone: read as Python logging's zone-less ones.
Lines are untrusted: they are matched, never interpreted, and the original text is what gets cited. Escape
sequences (ANSI colours) are stripped for matching only.

A line is read as a terminal shows it: carriage returns inside it (a progress meter redrawn) leave what is
visible (core.safety.sanitize's terminal_line), and a tool's own error prefix (`curl: (6)`, `wget:`, `error:`,
`fatal:`) written straight after a meter on the same line is read from there. Which lines are left out for
being stamped after the container's end is log_clock.py's decision.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from core.diagnosis.log_clock import Clock, Stamp, judge
from core.diagnosis.log_yearless import Unread, Window, Yearless, place, yearless
from core.diagnosis.signals import ESCAPE_SEQUENCE_RE
from core.safety.sanitize import terminal_line

# A single log line longer than this is matched on its head only; a hostile megabyte line stays cheap.
MAX_LINE_MATCH_CHARS = 8192

_STAMP_RE = re.compile(
    r"^\[?(?P<date>\d{4}-\d{2}-\d{2})[T ](?P<time>\d{2}:\d{2}:\d{2})(?:[.,](?P<frac>\d{1,9}))?"
    r"(?:\s?(?P<tz>Z|[+-]\d{2}:?\d{2}))?\]?\s?"
)
_CRI_RE = re.compile(r"^(?:stdout|stderr) [FP] ")
# A tool's own error prefix, and what may stand before it on the same line: a progress meter (numbers, units,
# bars, an optional label such as git's `Receiving objects:`). curl's `curl: (N) ` is its own, wherever it is.
_TOOL_PREFIX_RE = re.compile(r"curl: \(\d{1,3}\) |(?:wget|error|fatal): ")
# A meter's label: words ending in a colon (git's `Receiving objects:`, tqdm's description) or the one word of a
# file name (busybox wget's `shard-0003.tar        41% |***   |`).
_METER_LABEL_RE = re.compile(r"^\s*(?:[^\W\d][\w .'/-]{0,80}?:\s|[^\s:]{1,120}\s+(?=\d))")
_METER_MARK_RE = re.compile(r"[\d%|#\u2580-\u259f]")
_METER_UNIT_RE = re.compile(r"(?<![A-Za-z])(?:[kKMGTP]i?B|[kKMGTP]|B|ETA|eta|it|s)(?:/s|/it)?(?![A-Za-z])")
_LETTER_RE = re.compile(r"[A-Za-z]")
_LAUNCHER_RE = re.compile(
    r"^(?:\[(?:rank|default)\d{1,5}\]:\s?|\[\d{1,5},\d{1,5}\]<(?:stdout|stderr)>:\s?"
    # Ray's driver repeats a worker's lines under `(TrainWorker pid=4121, ip=10.233.64.17) `
    r"|\((?:[\w.:-]{1,80} )?pid=\d{1,10}(?:, ip=[0-9A-Fa-f.:]{2,45})?\)\s?)"
)
_LEVELS = {
    "D": "debug", "I": "info", "W": "warning", "E": "error", "F": "fatal", "C": "critical",
    "DEBUG": "debug", "INFO": "info", "WARN": "warning", "WARNING": "warning", "ERROR": "error",
    "FATAL": "fatal", "CRITICAL": "critical",
}
_LOGGER_RES = (
    # vLLM and friends: `ERROR 02-07 11:28:26 engine.py:389] `, and its V1 engine's `[core.py:515] `
    re.compile(
        r"^(?P<level>DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL) (?P<month>\d{2})-(?P<day>\d{2}) "
        r"(?P<clock>\d{2}:\d{2}:\d{2})(?:\.(?P<frac>\d{1,6}))? \[?[\w./-]{1,160}:\d{1,6}\] "
    ),
    # glog, as C++ code and PyTorch write it: `E1130 11:47:36.402000 140234 file.cc:123] `, `[E1130 ... ] `; the
    # thread id is a kernel's tid, or (glog 0.7, std::thread::id) a pthread_t of up to 20 digits
    re.compile(
        r"^\[?(?P<level>[DIWEF])(?P<month>\d{2})(?P<day>\d{2}) (?P<clock>\d{2}:\d{2}:\d{2})(?:\.(?P<frac>\d{1,9}))?"
        r"(?: +\d{1,20})? [\w./<>-]{1,160}:\d{1,6}\]\s?"
    ),
    # tornado and Jupyter: `[C 2026-11-30 11:57:28.871 ServerApp] `, `[E 241130 11:57:28 web:2243] ` (yymmdd),
    # `[I 11:57:28.871 NotebookApp] ` (the level's initial; C is critical). A date makes the stamp a zone-less time.
    re.compile(
        r"^\[(?P<level>[DIWEC]) (?:(?P<date>\d{4}-\d{2}-\d{2}) |(?P<yymmdd>\d{6}) )?"
        r"(?P<clock>\d{2}:\d{2}:\d{2})(?:\.(?P<frac>\d{1,6}))? [\w.:-]{1,80}\]\s?"
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
    r"|^\s*\.\.\. \d{1,6} (?:more|common frames omitted)$"
    r"|^goroutine \d{1,10} \[|^\t\S{1,300}\.go:\d{1,6}|^created by \S"
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
    after_meter: bool = False  # a progress meter stood before the tool's error the body starts with


def _stamp(body: str) -> tuple[Stamp | None, str]:
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
    zoneless = parsed.tzinfo is None
    if zoneless:
        parsed = parsed.replace(tzinfo=UTC)
    return Stamp(parsed, zoneless), body[match.end() :]


def _as_shown(text: str) -> str:
    """A line with carriage returns in it, as a terminal leaves it (its leading stamp kept: a redraw of what
    follows the stamp does not take the stamp away for matching)."""
    match = _STAMP_RE.match(text)
    head = match.group() if match is not None else ""
    return head + terminal_line(text[len(head) :].split("\r"))


def _after_meter(body: str) -> str:
    """The body from a tool's error prefix on, when only a progress meter stands before it."""
    found = _TOOL_PREFIX_RE.search(body, 1)
    if found is None:
        return body
    head = body[: found.start()]
    if found.group().startswith("curl") or not head.strip():
        return body[found.start() :]
    head = _METER_LABEL_RE.sub("", head, count=1)
    if _METER_MARK_RE.search(head) and not _LETTER_RE.search(_METER_UNIT_RE.sub("", head)):
        return body[found.start() :]
    return body


def _dated(date: str, clock: str, frac: str | None) -> Stamp | None:
    """A logger prefix's own date and time, zone-less (read as UTC, as `_stamp` reads one); None when garbled."""
    text = f"{date}T{clock}" + (f".{frac.ljust(6, '0')}" if frac else "")
    try:
        return Stamp(datetime.fromisoformat(text).replace(tzinfo=UTC), zoneless=True)
    except ValueError:
        return None


def _logger_stamp(groups: dict[str, str | None]) -> Stamp | Yearless | None:
    month, date, short, clock = groups.get("month"), groups.get("date"), groups.get("yymmdd"), groups.get("clock")
    if clock is None:
        return None
    if month is not None:
        return yearless(month, groups["day"] or "", clock, groups["frac"])
    if short is not None:  # tornado's yymmdd: a two-digit year of this century (tornado is younger than it)
        date = f"20{short[:2]}-{short[2:4]}-{short[4:]}"
    return _dated(date, clock, groups["frac"]) if date is not None else None


def _strip_logger(body: str) -> tuple[str | None, Stamp | Yearless | None, str]:
    """The level of a logger's prefix, its stamp when it has one (without a year: vLLM's, glog's), the rest."""
    for pattern in _LOGGER_RES:
        match = pattern.match(body)
        if match is not None:
            return _LEVELS.get(match["level"].upper()), _logger_stamp(match.groupdict()), body[match.end() :]
    return None, None, body


def as_line(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return value if isinstance(value, str) else str(value)


def _read(line: str) -> tuple[Stamp | Yearless | None, str | None, str, bool]:
    text = ESCAPE_SEQUENCE_RE.sub("", line[:MAX_LINE_MATCH_CHARS]).rstrip("\r\n")
    if "\r" in text:
        text = _as_shown(text)
    stamp, text = _stamp(text)
    text = _CRI_RE.sub("", text, count=1)
    if stamp is None:  # some launchers put their prefix before the timestamp
        stamp, text = _stamp(text)
    text = _LAUNCHER_RE.sub("", text, count=1)
    if stamp is None:
        stamp, text = _stamp(text)
    level, partial, text = _strip_logger(text)
    # A rank tag may follow the logger's prefix, and a logger's prefix the rank tag.
    text = _LAUNCHER_RE.sub("", text, count=1)
    if level is None:
        level, partial, text = _strip_logger(text)
    body = _after_meter(text)
    return stamp or partial, level, body, len(body) < len(text)


def read_line(line: str) -> tuple[datetime | None, str | None, str]:
    """(timestamp, level, body) of one line; a timestamp without a zone is read as UTC, one without a year is
    not read (only its container's run can date it: read_log)."""
    stamp, level, body, _ = _read(line)
    return (stamp.at if isinstance(stamp, Stamp) else None), level, body


def read_log(
    lines: Sequence[object],
    before: datetime | None = None,
    *,
    own: bool = False,
    read_at: datetime | None = None,
    window: Window | None = None,
) -> tuple[list[LogLine | None], Clock | None, Unread | None]:
    """Every line read, None for one left out as logged after ``before`` (log_clock.py decides: `own` says the
    log is of the instance that ended then, whose lines are never left out; `read_at` when the log was read),
    what the stamps showed when some read later than ``before``, and why stamps without a year were not read
    as times when they were not (`window`, the run of the instance the log is from, dates them:
    log_yearless.py). A line without a timestamp carries the previous line's."""
    read = [_read(as_line(raw)) for raw in lines]
    stamps, unread = place([stamp for stamp, _, _, _ in read], window)
    drop, clock = judge(stamps, before, own=own, read_at=read_at)
    out: list[LogLine | None] = []
    current: datetime | None = None
    for raw, (_, level, body, meter), stamp, dropped in zip(lines, read, stamps, drop, strict=True):
        if stamp is not None:
            current = stamp.at
        if dropped:
            out.append(None)
            continue
        frame = bool(FRAME_RE.search(body))
        shutdown = not frame and bool(SHUTDOWN_RE.search(body))
        summary = not frame and bool(POINTER_RE.search(body) or SUMMARY_RE.search(body))
        text = as_line(raw)
        shown = _as_shown(text[:MAX_LINE_MATCH_CHARS]) if "\r" in text.rstrip("\r\n") else text
        out.append(LogLine(shown, body, level, current, frame, shutdown, summary, meter))
    return out, clock, unread


def prepare_lines(
    lines: Sequence[object], before: datetime | None = None, *, own: bool = False
) -> list[LogLine | None]:
    """Every line read; None for a line left out as logged after ``before`` (see read_log)."""
    return read_log(lines, before, own=own)[0]
