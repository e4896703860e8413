"""What a container exit code means, for reports and for the "system signal or app crash" decision.

A container that dies from signal N reports exit code 128+N (the shell and container runtime convention). The
signal numbers here are Linux's (x86-64/arm64), written out rather than read from the ``signal`` module, so
the answer is the same on a macOS or Windows host reading a Linux cluster.

Which signals count as a *system* signal: only SIGKILL (137) and SIGTERM (143). Those are what something
outside the program sends to end it: the kernel OOM killer, the kubelet (liveness probe, eviction, grace
period expiry), a drain, a deletion or a scheduler preemption. SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL (and
SIGTRAP, SIGSYS) are raised by the program's own fault, so they are *crash* signals and count as an
application crash, the same as a plain non-zero exit. Other signals (SIGINT, SIGHUP, SIGPIPE, SIGUSR1, ...)
are neither: the taxonomy's "non-zero exit with no system signal" puts them with the application too, but
``is_crash_signal`` stays False for them.
"""

from __future__ import annotations

from dataclasses import dataclass

# Linux signal numbers 1-31 (the classic signals). 32-64 are real-time signals with no fixed name.
LINUX_SIGNAL_NAMES: dict[int, str] = {
    1: "SIGHUP",
    2: "SIGINT",
    3: "SIGQUIT",
    4: "SIGILL",
    5: "SIGTRAP",
    6: "SIGABRT",
    7: "SIGBUS",
    8: "SIGFPE",
    9: "SIGKILL",
    10: "SIGUSR1",
    11: "SIGSEGV",
    12: "SIGUSR2",
    13: "SIGPIPE",
    14: "SIGALRM",
    15: "SIGTERM",
    16: "SIGSTKFLT",
    17: "SIGCHLD",
    18: "SIGCONT",
    19: "SIGSTOP",
    20: "SIGTSTP",
    21: "SIGTTIN",
    22: "SIGTTOU",
    23: "SIGURG",
    24: "SIGXCPU",
    25: "SIGXFSZ",
    26: "SIGVTALRM",
    27: "SIGPROF",
    28: "SIGWINCH",
    29: "SIGIO",
    30: "SIGPWR",
    31: "SIGSYS",
}
SIGNAL_NUMBERS: dict[str, int] = {name: number for number, name in LINUX_SIGNAL_NAMES.items()}

SYSTEM_SIGNALS: frozenset[int] = frozenset({9, 15})
"""SIGKILL and SIGTERM: sent from outside the program (OOM killer, kubelet, eviction, preemption, drain)."""

CRASH_SIGNALS: frozenset[int] = frozenset({4, 5, 6, 7, 8, 11, 31})
"""SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGSYS: the program faulted by itself."""

_SIGNAL_MEANINGS: dict[int, str] = {
    1: "hangup (SIGHUP): the controlling terminal or parent went away",
    2: "interrupted (SIGINT), as by Ctrl-C",
    3: "quit (SIGQUIT), usually with a core dump",
    4: "illegal instruction (SIGILL): the program ran an instruction this CPU does not execute",
    5: "trace/breakpoint trap (SIGTRAP)",
    6: "aborted (SIGABRT): the program called abort(), e.g. a failed assertion or a C++ exception",
    7: "bus error (SIGBUS): an access to memory that cannot be reached (a mapped file or shared memory)",
    8: "arithmetic exception (SIGFPE), e.g. an integer division by zero",
    9: "killed (SIGKILL) from outside the program; the code alone does not say by whom",
    10: "user signal 1 (SIGUSR1)",
    11: "segmentation fault (SIGSEGV): invalid memory access in the program or a native library",
    12: "user signal 2 (SIGUSR2)",
    13: "broken pipe (SIGPIPE): wrote to a pipe or socket whose reader was gone",
    14: "alarm clock (SIGALRM): a timer the program set expired",
    15: "terminated (SIGTERM): asked to stop from outside the program; the code alone does not say by whom",
}


@dataclass(frozen=True)
class ExitMeaning:
    """The reading of one exit code."""

    code: int
    signal: int | None
    signal_name: str | None
    meaning: str
    is_system_signal: bool

    @property
    def is_success(self) -> bool:
        return self.code == 0

    @property
    def is_crash_signal(self) -> bool:
        """True for the signals a faulting program raises on itself (SIGSEGV, SIGABRT, ...)."""
        return self.signal in CRASH_SIGNALS

    @property
    def is_app_failure(self) -> bool:
        """A non-zero exit not caused by a system signal: the taxonomy's application error."""
        return self.code != 0 and not self.is_system_signal


def signal_name(number: int) -> str | None:
    """Linux name of a signal number; None for real-time and unknown numbers."""
    return LINUX_SIGNAL_NAMES.get(number)


def exit_code_meaning(code: int) -> ExitMeaning:
    """Explain an exit code as the container runtime reports it (any int, including negative ones)."""
    if isinstance(code, bool) or not isinstance(code, int):
        return ExitMeaning(code, None, None, f"not an exit code: {code!r}", False)
    fixed = {
        0: "success",
        1: "generic application error: the program ended with a failure status",
        2: "usage error: bad command-line arguments or shell builtin misuse",
        126: "command found but not executable (permissions, or not a binary for this system)",
        127: "command not found: the entrypoint or a program it runs is missing from the image or PATH",
        128: "start error or invalid exit argument: the container could not start its command",
        255: "exit status -1 or out of range (the program's exit value wrapped to 255)",
    }
    if code in fixed:
        return ExitMeaning(code, None, None, fixed[code], False)
    if code < 0:
        return ExitMeaning(
            code,
            None,
            None,
            "negative exit code: not a process status; the runtime reported a failure of its own",
            False,
        )
    if code > 255:
        return ExitMeaning(
            code,
            None,
            None,
            "exit code above 255: not a POSIX process status; reported by the runtime as is",
            False,
        )
    if 129 <= code <= 192:
        number = code - 128
        name = signal_name(number)
        if number in _SIGNAL_MEANINGS:
            meaning = _SIGNAL_MEANINGS[number]
        elif name is not None:
            meaning = f"killed by signal {number} ({name})"
        else:
            meaning = f"killed by real-time signal {number}"
        return ExitMeaning(code, number, name, meaning, number in SYSTEM_SIGNALS)
    return ExitMeaning(code, None, None, "application-specific exit code: the program chose it", False)
