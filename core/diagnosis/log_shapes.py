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
    FAILURE_ANALYSIS = "failure_analysis"
    GPU_OOM = "gpu_oom"
    CPP_EXCEPTION = "cpp_exception"
    GO_PANIC = "go_panic"
    JAVA_EXCEPTION = "java_exception"
    NODE_ERROR = "node_error"
    SHELL_SYNTAX = "shell_syntax_error"
    CLI_ERROR = "cli_error"
    USAGE_ERROR = "usage_error"
    EXEC_FORMAT = "exec_format_error"
    PERMISSION_DENIED = "permission_denied"
    COMMAND_NOT_FOUND = "command_not_found"
    NO_SUCH_FILE = "no_such_file"
    NCCL = "nccl"
    SEGFAULT = "segfault"
    KILLED = "killed"
    MISSING_SETTING = "missing_setting"
    ERROR_LINE = "error_line"
    LAST_WORDS = "last_words"  # the last line of a program that ended with exit 0 (log_scan.last_words)


def _rx(*patterns: str, flags: int = 0) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, flags) for p in patterns)


# The command line tools whose errors the log scan knows, each with the shapes of its error lines (the key is
# the program's name in core/diagnosis/programs.py, which knows what its exit codes mean).
TOOL_ERRORS: tuple[tuple[str, tuple[re.Pattern[str], ...]], ...] = (
    # AWS CLI (and boto3's ClientError message)
    ("aws", _rx(r"An error occurred \([\w.]{1,64}\)(?: when calling the \w{1,64} operation)?:",
                r"Unable to locate credentials|Could not connect to the endpoint URL")),
    # gsutil and gcloud storage
    ("gsutil", _rx(r"^(?:CommandException|AccessDeniedException|BucketNotFoundException|NotFoundException"
                   r"|ServiceException|ResumableDownloadException|ResumableUploadException): ")),
    ("gcloud", _rx(r"^ERROR: \(gcloud\.[\w.-]{1,80}\) ")),
    ("curl", _rx(r"^curl: \(\d{1,3}\) ")),
    # wget writes `wget:` before its errors only (busybox: `wget: server returned error: ...`, `wget: short
    # read`; GNU: `wget: unable to resolve host address`), and GNU wget its HTTP error as `ERROR 404: Not Found.`
    ("wget", _rx(r"^wget: \S", r"^ERROR \d{3}: ")),
    ("git", _rx(r"^fatal: \S")),
    ("pip", _rx(r"^(?:Could not find a version that satisfies the requirement|No matching distribution found for)")),
)

# A shell that could not parse its script: dash's `sh: 1: Syntax error: "(" unexpected`, busybox ash's
# `sh: syntax error: unexpected "fi" (expecting "then")`, bash's `bash: -c: line 1: syntax error near unexpected
# token `)'` and `unexpected EOF while looking for matching`, zsh's `parse error near`.
SHELL_SYNTAX_RE = re.compile(
    r"^(?P<shell>\S{0,200}?)(?::| -c:| line \d{1,6}:| ?\d{1,6}:){1,3} (?:[Ss]yntax error|parse error near"
    r"|unexpected EOF while looking for matching|Bad substitution)"
)
# A setting the program needs and did not get: `DEPLOY_ENV is not set`, `missing required environment variable
# DATABASE_URL`, a shell's `${VAR:?}` (`sh: DB_HOST: parameter not set`).
MISSING_SETTING_RE = re.compile(
    r"\b[A-Z][A-Z0-9_]{2,100}\b[^.;]{0,40}?\b(?i:is not set|is unset|not set|is required|must be (?:set|provided"
    r"|defined|specified)|is missing|is empty|is not defined|not defined|undefined)\b"
    r"|(?i:\b(?:missing|required|undefined|unset) (?:required )?(?:environment |env |config(?:uration)? )?"
    r"(?:variable|setting|parameter)s?\b"
    r"|\benvironment variable\b[^.;]{0,80}?\b(?:not set|is missing|missing|required|undefined|not defined)\b"
    r"|\bparameter (?:null or )?not set\b)"
)

# After the Python exception and the infrastructure lines (log_scan.py), in order; the first kind present wins.
SHAPES: tuple[tuple[LogKind, tuple[re.Pattern[str], ...]], ...] = (
    (LogKind.GPU_OOM, (GPU_OOM_RE,)),
    (LogKind.CPP_EXCEPTION, _rx(r"^\s*what\(\):\s+\S")),
    (
        LogKind.GO_PANIC,
        _rx(r"^panic: \S", r"^fatal error: (?:all goroutines|concurrent map|runtime|unexpected signal|stack overflow)"),
    ),
    # A Java exception is read as a chain (log_scan.py: the root cause of the last one).
    (
        LogKind.JAVA_EXCEPTION,
        _rx(
            r'^Exception in thread "[^"\n]{0,200}" [\w.$]{1,200}(?:Exception|Error|Throwable)\b',
            r"^Caused by: [\w.$]{1,200}(?:Exception|Error|Throwable)\b",
        ),
    ),
    # A Node.js error is recognised with the stack under it (log_scan.py checks the next line).
    (LogKind.NODE_ERROR, _rx(r"^(?:Uncaught )?(?:[A-Z][A-Za-z]{0,60})?Error(?: \[[A-Z_]{1,60}\])?: \S")),
    # A syntax error stops the shell before the rest of its script runs: it is the script's last word.
    (LogKind.SHELL_SYNTAX, (SHELL_SYNTAX_RE,)),
    (LogKind.CLI_ERROR, tuple(pattern for _tool, patterns in TOOL_ERRORS for pattern in patterns)),
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
    # Only when nothing else reads as a failure (log_scan.py skips one logged as a warning or below).
    (LogKind.MISSING_SETTING, (MISSING_SETTING_RE,)),
)

_SHELLS = frozenset({"sh", "bash", "ash", "dash", "zsh", "ksh"})
_ARGPARSE_RE = re.compile(r"^\S{1,200}\.py: error: ")
_BY_KIND = {
    LogKind.PYTHON_EXCEPTION: "python",
    LogKind.FAILURE_ANALYSIS: "java",
    LogKind.JAVA_EXCEPTION: "java",
    LogKind.NODE_ERROR: "node",
}


def program_named(kind: LogKind, body: str) -> str | None:
    """The program a log line shows failing, when its shape says (a tool's error prefix, a runtime's
    exception, a shell's syntax error), by its name in core/diagnosis/programs.py."""
    if kind in _BY_KIND:
        return _BY_KIND[kind]
    if kind is LogKind.CLI_ERROR:
        return next((tool for tool, patterns in TOOL_ERRORS if any(p.search(body) for p in patterns)), None)
    if kind is LogKind.SHELL_SYNTAX:
        found = SHELL_SYNTAX_RE.match(body)
        word = found["shell"].rsplit("/", 1)[-1] if found is not None else ""
        return word if word in _SHELLS else "sh"
    if kind is LogKind.USAGE_ERROR and _ARGPARSE_RE.match(body):
        return "python"
    return None


ERROR_LINE_RE = re.compile(
    r"\b(?:ERROR|FATAL|CRITICAL)\b|\b[A-Z]\w{0,100}(?:Error|Exception)\b|\bException\b"
    r"|\b[Ee]rror:|\blevel=(?:error|fatal)\b"
)
ERROR_LEVELS = frozenset({"error", "fatal", "critical"})
JS_FRAME_RE = re.compile(r"^\s+at \S")
