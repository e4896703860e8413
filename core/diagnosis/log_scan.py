"""Find the one log line that best explains why a container ended, and the infrastructure faults a log shows.

The decisive line, not the last line with "Error" in it. Each line's timestamp, launcher and logger prefixes
are taken off first (log_lines.py); stack frames (`frame #3: c10::Error::Error(...)`, `at ...`, goroutine
dumps) and shutdown notices (SIGTERM, "Worker ... died, exit code: -15") are never chosen. Then, the first kind
present wins (within a kind the last occurrence, being closest to the end):
1. the exception of a Python traceback: the root one, not a wrapper that only reports it (torchrun's
   `ChildFailedError`, `SystemExit`, a subprocess's `CalledProcessError`); but when that exception is only the
   CUDA/NCCL consequence of a GPU hardware, driver or fabric line earlier in the log, that line;
2. a GPU hardware, GPU driver or network fabric line (signals/gpu_hardware.py, gpu_driver.py, fabric.py);
3. Spring Boot's failure analysis (`APPLICATION FAILED TO START`): the line under its `Description:`, which
   is the framework's own account of the failure;
4. the shapes of log_shapes.py: a GPU out-of-memory, a C++ `what():`, a Go panic, a Java exception chain's
   root (the last `Caused by:` of the last chain, else its head), a Node.js error, a shell's syntax error, a
   command line tool's error (aws, gsutil, curl, wget, git, pip), a usage error, exec format / permission /
   command-not-found / missing-file errors, NCCL, a segfault, a shell's `Killed`, a setting the program says
   it lacks (`DEPLOY_ENV is not set`, unless logged as a warning or below);
5. any other line that reads as an error (ERROR/FATAL level, `...Error:`), then a wrapper exception, then a line
   that only says the program gave up or points elsewhere ("Application startup failed", "See stack trace for
   the root cause": log_lines.py's POINTER_RE and SUMMARY_RE), which never wins over the root error above it.

Lines are untrusted text: matched, never interpreted, returned unchanged (a line with carriage returns as a
terminal shows it). With ``before`` (the container's end), lines stamped after it are skipped unless the log is
of the instance that ended then (`own`): log_clock.py; stamps without a year (vLLM's, glog's) count only when
``window``, the run of the instance the log is from, dates them: log_yearless.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from core.diagnosis.log_clock import Clock
from core.diagnosis.log_lines import MAX_LINE_MATCH_CHARS, WRAPPER_EXCEPTIONS, LogLine, read_log
from core.diagnosis.log_shapes import ERROR_LEVELS, ERROR_LINE_RE, JS_FRAME_RE, SHAPES, LogKind, program_named
from core.diagnosis.log_yearless import Unread, Window
from core.diagnosis.signals import GPU_OOM_RE, Signal, SignalKind, fabric, gpu_driver, gpu_hardware
from core.diagnosis.signals.text import Collector, plain_text

__all__ = [
    "MAX_LINE_MATCH_CHARS", "LogFinding", "LogKind", "ScannedLog", "explaining_line", "last_words", "log_signals",
    "scan_log", "scanned",
]


@dataclass(frozen=True)
class LogFinding:
    """The explaining line: 1-based ``line_no`` into the given lines, and the original text of that line."""

    line_no: int
    text: str
    kind: str
    # True when this line, or any scanned line of the log, reports a GPU out-of-memory: a wrapper exception
    # (torchrun's ChildFailedError) is often the last word while the real cause is a CUDA OOM above it.
    gpu_oom: bool
    # The program the line shows failing, when its shape says (curl's `curl: (6)`, a Python exception, a
    # shell's syntax error): its name in core/diagnosis/programs.py.
    program: str | None = None
    # The tool's error without the progress meter written before it on the line (None: the whole line).
    after_meter: str | None = None

    @property
    def said(self) -> str:
        """What to quote of the line in a sentence."""
        return self.after_meter if self.after_meter is not None else self.text


_TRACEBACK_RE = re.compile(r"^Traceback \(most recent call last\):")
# An exception line: a (dotted) class name with a message, or a bare name that reads like an exception class.
# All-capital words are log levels ("ERROR: ..."), and a shell's "Killed" is not an exception.
_EXCEPTION_LINE_RE = re.compile(
    r"^(?:[A-Za-z_]\w{0,100}\.){0,20}(?![A-Z_]+:)[A-Z]\w{0,100}(?:\([\w.]{1,200}\))?:(?:\s.*)?$"
    r"|^(?:[A-Za-z_]\w{0,100}\.){0,20}\w{0,100}(?:Error|Exception|Interrupt|Exit|Iteration|Warning|Failure)$"
)
# An exception that carries another names its type: Ray's `ray.exceptions.RayTaskError(ValueError): ...`.
_WRAPPED_RE = re.compile(
    r"^(?:[A-Za-z_]\w{0,100}\.){0,20}[A-Z]\w{0,100}"  # the carrier's (dotted) name
    r"\((?:\w{1,100}\.){0,20}(?P<inner>\w{1,100})\):"  # the carried exception's type
)
_CHAIN_RE = re.compile(r"^(?:During handling of the above exception|The above exception was the direct cause)")
# An exception that only reports a GPU or collective failure: a hardware, driver or fabric line explains it.
_CONSEQUENCE_RE = re.compile(
    r"CUDA error|NCCL|ProcessGroup|DistBackendError|remote process exited|watchdog",
    re.IGNORECASE,
)
# Cheap test before the infrastructure families read a line.
_INFRA_HINT_RE = re.compile(
    r"Xid|NVRM|ECC|DBE|fallen off|GPU is lost|NVLink|row.remap|device handle|NVML|nvidia-container-cli"
    r"|NVIDIA-SMI|NVIDIA driver|driver version is insufficient|driver not loaded|Insufficient ?Driver"
    r"|NET/|socketProgress|Call to (?:recv|send)|remote peer|ibv_|IBV_WC|transport retry",
    re.IGNORECASE,
)
# Java: the head of an exception chain (followed by its `at ...` frames), and the causes under it.
_JAVA_HEAD_RE = re.compile(
    r'^(?:Exception in thread "[^"\n]{0,200}" )?(?:[A-Za-z_$][\w$]{0,100}\.){1,30}[A-Z][\w$]{0,100}'
    r"(?:Exception|Error|Throwable)\b(?::|$)"
)
_JAVA_CAUSE_RE = re.compile(r"^Caused by: [\w.$]{1,200}(?:Exception|Error|Throwable)\b")
_JAVA_FRAME_RE = re.compile(r"^\s+at [\w$.<>/@:\[\]-]{1,300}\(")
# Spring Boot's failure analysis: a banner, then `Description:` and the framework's account of the failure.
_FAILED_TO_START_RE = re.compile(r"^\**\s*APPLICATION FAILED TO START\s*\**$")
_QUIET_LEVELS = frozenset({"debug", "info", "warning"})
_INFRA_FAMILIES: tuple[tuple[LogKind, SignalKind, Callable[..., None]], ...] = (
    (LogKind.GPU_HARDWARE, SignalKind.GPU_HARDWARE, gpu_hardware.match),
    (LogKind.GPU_DRIVER, SignalKind.GPU_DRIVER, gpu_driver.match),
    (LogKind.NETWORK_FABRIC, SignalKind.NETWORK_FABRIC, fabric.match),
)


def _tracebacks(lines: Sequence[LogLine | None]) -> list[int]:
    """Indexes of the exception lines that end the tracebacks, in order (for an exception that carries another,
    the carried one's own line when the log shows it)."""
    found: list[int] = []
    headers = [i for i, line in enumerate(lines) if line is not None and _TRACEBACK_RE.match(line.body)]
    for header in headers:
        for index in range(header + 1, len(lines)):
            line = lines[index]
            if line is None or not line.body.strip() or line.body[0] in " \t" or line.frame:
                continue
            if _TRACEBACK_RE.match(line.body) or _CHAIN_RE.match(line.body):
                break
            if _EXCEPTION_LINE_RE.match(line.body):
                found.append(_carried(lines, index))
            break
    return sorted(set(found))


def _carried(lines: Sequence[LogLine | None], index: int) -> int:
    """The line of the exception `lines[index]` carries (`Wrapper(Inner): ...` then its remote traceback, then
    `Inner: ...`), else `index` itself."""
    wrapped = _WRAPPED_RE.match(lines[index].body)  # type: ignore[union-attr]
    if wrapped is None:
        return index
    inner = re.compile(rf"^(?:[A-Za-z_]\w{{0,100}}\.){{0,20}}{re.escape(wrapped['inner'])}:(?:\s|$)")
    for later in range(index + 1, min(len(lines), index + 200)):
        line = lines[later]
        if line is None or line.frame or not line.body.strip() or line.body[0] in " \t":
            continue
        if _TRACEBACK_RE.match(line.body):
            break
        if inner.match(line.body):
            return later
    return index


def _infra_kind(line: LogLine) -> tuple[LogKind, Signal] | None:
    if not _INFRA_HINT_RE.search(line.body):
        return None
    text = plain_text(line.body)
    for log_kind, kind, matcher in _INFRA_FAMILIES:
        out = Collector(line.body, None, False)
        matcher(text, out)
        if kind in out.items:
            return log_kind, out.items[kind]
    return None


def _last(lines: Sequence[LogLine | None], accept: Callable[[int, LogLine], bool]) -> int | None:
    for index in range(len(lines) - 1, -1, -1):
        line = lines[index]
        if line is not None and not line.frame and accept(index, line):
            return index
    return None


def _js_error(lines: Sequence[LogLine | None], index: int) -> bool:
    nxt = lines[index + 1] if index + 1 < len(lines) else None
    return nxt is not None and bool(JS_FRAME_RE.match(nxt.body))


def _shape(lines: Sequence[LogLine | None]) -> tuple[int, LogKind] | None:
    """The first kind present, at its last line (whichever of the kind's patterns matched it)."""
    for kind, patterns in SHAPES:
        if kind is LogKind.JAVA_EXCEPTION:
            root = _java_root(lines)
            if root is not None:
                return root, kind
            continue

        def accept(
            index: int, line: LogLine, patterns: tuple[re.Pattern[str], ...] = patterns, kind: LogKind = kind
        ) -> bool:
            if line.shutdown or line.summary or not any(p.search(line.body) for p in patterns):
                return False
            if kind is LogKind.MISSING_SETTING:
                return line.level not in _QUIET_LEVELS
            return kind is not LogKind.NODE_ERROR or _js_error(lines, index)

        found = _last(lines, accept)
        if found is not None:
            return found, kind
    return None


def _java_root(lines: Sequence[LogLine | None]) -> int | None:
    """The root cause of the last Java exception chain: its last `Caused by:`, else its head."""
    head = cause = None
    for index, line in enumerate(lines):
        if line is None or line.frame:
            continue
        if _JAVA_CAUSE_RE.match(line.body):
            cause = index
        elif _JAVA_HEAD_RE.match(line.body) and (line.body.startswith("Exception in thread") or _framed(lines, index)):
            head, cause = index, None
    return cause if cause is not None else head


def _framed(lines: Sequence[LogLine | None], index: int) -> bool:
    """A Java frame (`\tat pkg.Class.method(File.java:12)`) follows within a few lines (a message may run on)."""
    return any(line is not None and _JAVA_FRAME_RE.match(line.body) for line in lines[index + 1 : index + 6])


def _failure_analysis(lines: Sequence[LogLine | None]) -> int | None:
    """The first line under the `Description:` of the last Spring Boot failure analysis."""
    banner = _last(lines, lambda _i, line: bool(_FAILED_TO_START_RE.match(line.body.strip())))
    if banner is None:
        return None
    described = False
    for index in range(banner + 1, min(len(lines), banner + 40)):
        line = lines[index]
        body = line.body.strip() if line is not None else ""
        if not described:
            described = body == "Description:"
        elif body == "Action:":
            return None
        elif body:
            return index
    return None


def _reads_as_error(line: LogLine) -> bool:
    return line.level in ERROR_LEVELS or bool(ERROR_LINE_RE.search(line.body))


def _error_line(line: LogLine) -> bool:
    if line.shutdown or line.summary or WRAPPER_EXCEPTIONS.match(line.body):
        return False
    return _reads_as_error(line)


def explaining_line(
    lines: Sequence[str], *, before: datetime | None = None, own: bool = False, window: Window | None = None
) -> LogFinding | None:
    """The line that best explains the container's end, or None when no line looks like a failure."""
    return scan_log(lines, before=before, own=own, window=window)[0]


def scan_log(
    lines: Sequence[str],
    *,
    before: datetime | None = None,
    own: bool = False,
    read_at: datetime | None = None,
    window: Window | None = None,
) -> tuple[LogFinding | None, Clock | None, Unread | None]:
    """The explaining line, what the log's stamps showed against ``before`` (log_clock.py) when some read
    later than it, and why its stamps without a year were not read as times when they were not (log_yearless.py);
    ``own``: the log is of the instance that ended at ``before``; ``read_at``: when it was read; ``window``: the
    run of the instance it is from."""
    prepared, clock, unread = read_log(lines, before, own=own, read_at=read_at, window=window)
    return _explaining(prepared), clock, unread


@dataclass(frozen=True, slots=True)
class ScannedLog:
    """What one reading of a log found: its explaining line, its infrastructure signals (log_signals), what its
    stamps showed against the end (log_clock.py) and why its stamps without a year were not read (if so)."""

    finding: LogFinding | None
    signals: list[tuple[int, Signal]]
    clock: Clock | None
    unread: Unread | None


def scanned(
    lines: Sequence[str],
    *,
    before: datetime | None = None,
    own: bool = False,
    read_at: datetime | None = None,
    window: Window | None = None,
) -> ScannedLog:
    """scan_log and log_signals of the same lines, the lines read once (a diagnosis wants both of each log)."""
    prepared, clock, unread = read_log(lines, before, own=own, read_at=read_at, window=window)
    return ScannedLog(_explaining(prepared), _signals(prepared), clock, unread)


def _explaining(prepared: Sequence[LogLine | None]) -> LogFinding | None:
    any_gpu_oom = any(line is not None and GPU_OOM_RE.search(line.body) for line in prepared)

    def found(index: int, kind: LogKind) -> LogFinding:
        line = prepared[index]
        assert line is not None
        meter = line.body if line.after_meter else None
        return LogFinding(index + 1, line.text, kind, any_gpu_oom, program_named(kind, line.body), meter)

    exceptions = _tracebacks(prepared)
    # Not a wrapper that only reports another exception, nor one that gave up and points to the stack trace.
    roots = [
        i
        for i in exceptions
        if not WRAPPER_EXCEPTIONS.match(prepared[i].body) and not prepared[i].summary  # type: ignore[union-attr]
    ]
    infra = _last(prepared, lambda _i, line: _infra_kind(line) is not None)
    if roots:
        root = roots[-1]
        if infra is not None and infra != root and _consequence(prepared, root):
            return found(infra, _infra_kind_of(prepared, infra) or LogKind.GPU_HARDWARE)
        return found(root, LogKind.PYTHON_EXCEPTION)
    if infra is not None:
        return found(infra, _infra_kind_of(prepared, infra) or LogKind.GPU_HARDWARE)
    analysis = _failure_analysis(prepared)
    if analysis is not None:
        return found(analysis, LogKind.FAILURE_ANALYSIS)
    shape = _shape(prepared)
    if shape is not None:
        return found(*shape)
    error = _last(prepared, lambda _i, line: _error_line(line))
    if error is not None:
        return found(error, LogKind.ERROR_LINE)
    if exceptions:
        return found(exceptions[-1], LogKind.PYTHON_EXCEPTION)
    # Nothing but a line that says the program gave up: better than no line at all.
    gave_up = _last(prepared, lambda _i, line: line.summary and not line.shutdown and _reads_as_error(line))
    return found(gave_up, LogKind.ERROR_LINE) if gave_up is not None else None


def last_words(lines: Sequence[str]) -> LogFinding | None:
    """The last line a program wrote, for one that ended with exit 0 and wrote no line that reads as a failure:
    a program that stops on its own says why last (`nothing to do, exiting`), if it says it at all."""
    prepared = read_log(lines)[0]
    found = _last(prepared, lambda _i, line: bool(line.body.strip()) and not line.shutdown)
    if found is None:
        return None
    line = prepared[found]
    assert line is not None
    return LogFinding(found + 1, line.text, LogKind.LAST_WORDS, False)


def _consequence(lines: Sequence[LogLine | None], index: int) -> bool:
    """An exception that only reports a CUDA or collective failure (not a GPU out-of-memory, not itself an
    infrastructure line)."""
    body = lines[index].body if lines[index] is not None else ""  # type: ignore[union-attr]
    return bool(_CONSEQUENCE_RE.search(body)) and not GPU_OOM_RE.search(body) and _infra_kind_of(lines, index) is None


def _infra_kind_of(lines: Sequence[LogLine | None], index: int) -> LogKind | None:
    line = lines[index]
    hit = _infra_kind(line) if line is not None else None
    return hit[0] if hit is not None else None


def log_signals(
    lines: Sequence[str],
    *,
    before: datetime | None = None,
    own: bool = False,
    read_at: datetime | None = None,
    window: Window | None = None,
) -> list[tuple[int, Signal]]:
    """The GPU hardware, GPU driver and fabric faults a log shows: for each kind, its last line before
    ``before`` (see scan_log), as (1-based line number, signal). The signal's detail is the line's body (prefixes
    off)."""
    return _signals(read_log(lines, before, own=own, read_at=read_at, window=window)[0])


def _signals(prepared: Sequence[LogLine | None]) -> list[tuple[int, Signal]]:
    last: dict[SignalKind, tuple[int, Signal]] = {}
    for index, line in enumerate(prepared):
        if line is None or line.frame:
            continue
        hit = _infra_kind(line)
        if hit is not None:
            signal = hit[1]
            last[signal.kind] = (index + 1, replace(signal, detail=line.body))
    return sorted(last.values(), key=lambda item: item[0])
