"""The shapes a failure takes in a log, by kind, in the order the log scan prefers them (log_scan.py).

Beside Python's tracebacks (read in log_scan.py), these are the generic error shapes of the runtimes and command
line tools jobs and their init containers run: a C++ exception's `what():`, a Go `panic:`, a Java `Exception in
thread "main" ...` and its `Caused by:`, a Node.js `TypeError: ...` above its `at ...` stack, the AWS CLI's
`An error occurred (NoSuchBucket) when calling the ListObjectsV2 operation: The specified bucket does not
exist`, gsutil's `CommandException: No URLs matched: gs://...`, `curl: (6) Could not resolve host: ...`, wget's
`ERROR 404: Not Found.`, git's `fatal: repository '...' not found`, pip's `Could not find a version that
satisfies the requirement ...`, and a shell's `command not found`. Patterns are matched against a line's body
(its prefixes taken off, log_lines.py) and are bounded, so a hostile line costs a bounded scan.
"""

from __future__ import annotations

import re
from enum import StrEnum

from core.diagnosis.signals import GPU_OOM_RE


class LogKind(StrEnum):
    PYTHON_EXCEPTION = "python_exception"
    GPU_HARDWARE = "gpu_hardware"
    GPU_DRIVER = "gpu_driver"
    NETWORK_FABRIC = "network_fabric"
    GPU_OOM = "gpu_oom"
    CPP_EXCEPTION = "cpp_exception"
    GO_PANIC = "go_panic"
    JAVA_EXCEPTION = "java_exception"
    NODE_ERROR = "node_error"
    CLI_ERROR = "cli_error"
    USAGE_ERROR = "usage_error"
    EXEC_FORMAT = "exec_format_error"
    PERMISSION_DENIED = "permission_denied"
    COMMAND_NOT_FOUND = "command_not_found"
    NO_SUCH_FILE = "no_such_file"
    NCCL = "nccl"
    SEGFAULT = "segfault"
    KILLED = "killed"
    ERROR_LINE = "error_line"


def _rx(*patterns: str, flags: int = 0) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, flags) for p in patterns)


# After the Python exception and the infrastructure lines (log_scan.py), in order; the first kind present wins.
SHAPES: tuple[tuple[LogKind, tuple[re.Pattern[str], ...]], ...] = (
    (LogKind.GPU_OOM, (GPU_OOM_RE,)),
    (LogKind.CPP_EXCEPTION, _rx(r"^\s*what\(\):\s+\S")),
    (
        LogKind.GO_PANIC,
        _rx(r"^panic: \S", r"^fatal error: (?:all goroutines|concurrent map|runtime|unexpected signal|stack overflow)"),
    ),
    (
        LogKind.JAVA_EXCEPTION,
        _rx(
            r'^Exception in thread "[^"\n]{0,200}" [\w.$]{1,200}(?:Exception|Error|Throwable)\b',
            r"^Caused by: [\w.$]{1,200}(?:Exception|Error|Throwable)\b",
        ),
    ),
    # A Node.js error is recognised with the stack under it (log_scan.py checks the next line).
    (LogKind.NODE_ERROR, _rx(r"^(?:Uncaught )?(?:[A-Z][A-Za-z]{0,60})?Error(?: \[[A-Z_]{1,60}\])?: \S")),
    (
        LogKind.CLI_ERROR,
        _rx(
            # AWS CLI (and boto3's ClientError message)
            r"An error occurred \([\w.]{1,64}\)(?: when calling the \w{1,64} operation)?:",
            r"Unable to locate credentials|Could not connect to the endpoint URL",
            # gsutil and gcloud storage
            r"^(?:CommandException|AccessDeniedException|BucketNotFoundException|NotFoundException"
            r"|ServiceException|ResumableDownloadException|ResumableUploadException): ",
            r"^ERROR: \(gcloud\.[\w.-]{1,80}\) ",
            # curl, wget
            r"^curl: \(\d{1,3}\) ",
            r"^wget: (?:unable to resolve|server returned error|can't connect|bad address|download timed out)",
            r"^ERROR \d{3}: ",
            # git, pip
            r"^fatal: \S",
            r"^(?:Could not find a version that satisfies the requirement|No matching distribution found for)",
        ),
    ),
    (LogKind.USAGE_ERROR, _rx(r"^\S{1,256}: error: ", r"^usage: ")),
    (LogKind.EXEC_FORMAT, _rx(r"exec format error", flags=re.I)),
    (LogKind.PERMISSION_DENIED, _rx(r"permission denied", flags=re.I)),
    (
        LogKind.COMMAND_NOT_FOUND,
        _rx(
            r"command not found|executable file not found",
            r"^(?:/bin/|/usr/bin/)?(?:ba|da|z)?sh: (?:line )?\d{1,6}: \S{1,200}: not found$",
            flags=re.I,
        ),
    ),
    (LogKind.NO_SUCH_FILE, _rx(r"no such file or directory", flags=re.I)),
    (
        LogKind.NCCL,
        _rx(
            r"NCCL WARN|NCCL error|Watchdog caught collective operation timeout"
            r"|nccl(?:Internal|System|UnhandledCuda|InvalidUsage|Remote)Error"
        ),
    ),
    (LogKind.SEGFAULT, _rx(r"Segmentation fault|SIGSEGV")),
    (LogKind.KILLED, _rx(r"(?:^|\s)Killed(?:\s|$)")),
)

ERROR_LINE_RE = re.compile(
    r"\b(?:ERROR|FATAL|CRITICAL)\b|\b[A-Z]\w{0,100}(?:Error|Exception)\b|\bException\b"
    r"|\b[Ee]rror:|\blevel=(?:error|fatal)\b"
)
ERROR_LEVELS = frozenset({"error", "fatal", "critical"})
JS_FRAME_RE = re.compile(r"^\s+at \S")
