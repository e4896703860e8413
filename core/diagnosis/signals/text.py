"""One (reason, message) pair made ready for the families' matchers, and the collector they add signals to.

Cluster text is untrusted. It is only matched and quoted: escape sequences and invisible format characters
are removed first so they cannot hide a word, and at most MAX_MATCH_CHARS of a message are matched, so a
hostile megabyte string costs a bounded scan. The ``detail`` kept on a signal is raw (the caller sanitises and
redacts before showing it).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from core.diagnosis.signals.model import Signal, SignalKind
from core.safety.untrusted import redacted

# Real event messages are about 1 KiB; the detail quotes less still.
MAX_MATCH_CHARS = 65_536
MAX_DETAIL_CHARS = 400

ESCAPE_SEQUENCE_RE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]{0,4096}(?:\x07|\x1b\\)?|\x9b[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]"
)
"""Terminal escape sequences (CSI such as ANSI colours, OSC, lone ESC codes): removed before matching."""


def rx(pattern: str) -> re.Pattern[str]:
    """Patterns are case-insensitive and bounded (no nested or unbounded wildcards): matching stays linear."""
    return re.compile(pattern, re.IGNORECASE)


def as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return value if isinstance(value, str) else str(value)


def for_matching(value: Any) -> str:
    """Text with escape sequences and invisible format characters removed, so they cannot hide a word."""
    text = as_text(value)[:MAX_MATCH_CHARS]
    text = ESCAPE_SEQUENCE_RE.sub("", text)
    if text.isascii():  # no format character is ASCII: skip the per-character look
        return text
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf" and ch not in "\u2028\u2029")


def detail(reason: str, message: str) -> str:
    text = message.strip() or reason.strip()
    if len(text) > MAX_DETAIL_CHARS:
        text = redacted(text)  # cut only redacted text: a cut through a credential would show part of it
    if len(text) > MAX_DETAIL_CHARS:
        # A runtime's message ends with its cause (`no such host`, `not found`, `401 Unauthorized`): both ends
        # are kept, the middle (the image reference and URL said again) cut.
        tail = MAX_DETAIL_CHARS * 3 // 5
        return f"{text[: MAX_DETAIL_CHARS - tail]} ... {text[-tail:]} ({len(text)} chars)"
    return text


_CONTAINER_NAME_RE = re.compile(r"\b[Cc]ontainer\s+\"?([a-z0-9](?:[-a-z0-9.]{0,61}[a-z0-9])?)\"?")
_NOT_A_CONTAINER_NAME = frozenset(
    {
        "image", "with", "has", "is", "was", "in", "for", "name", "process", "runtime", "create", "creation",
        "config", "failed", "status", "the", "a", "to", "of", "that", "and", "not", "id", "will", "exited",
    }
)
_EXIT_CODE_RE = rx(r"\bexit(?:ed)?(?:\s+with)?[\s_-]{0,3}(?:code|status)\b[\s:=]{0,3}\(?(-?\d{1,5})\b")
KUBECTL_CODE_RE = re.compile(r"\b(ExitCode|Signal):(-?\d{1,5})\b")
_SCHEDULING_TEXT_RE = rx(r"\b\d{1,6}/\d{1,6} nodes are available")


# An init container's text (the `init` family reads what the others find in it): kubectl writes its state as
# `Init:<Reason>`, `Init:ExitCode:N` or `Init:Signal:N`; a message may say "init container".
INIT_PREFIX = "Init:"
_INIT_TOKEN_RE = re.compile(r"\bInit:([A-Za-z]+)")
_INIT_CONTAINER_RE = re.compile(r"\binit[\s-]?container", re.IGNORECASE)


def strip_init_prefix(reason: str) -> tuple[bool, str]:
    """Whether the reason is kubectl's `Init:...`, and the reason without the prefix."""
    if reason.startswith(INIT_PREFIX):
        return True, reason[len(INIT_PREFIX) :]
    return False, reason


def names_init_container(message: str) -> bool:
    return bool(_INIT_TOKEN_RE.search(message) or _INIT_CONTAINER_RE.search(message))


def container_in(message: str) -> str | None:
    for match in _CONTAINER_NAME_RE.finditer(message):
        name = match.group(1)
        if name.lower() not in _NOT_A_CONTAINER_NAME:
            return name
    return None


def kubectl_code(token: re.Match[str]) -> int:
    """`ExitCode:N` is N; `Signal:N` is 128 + N, as the runtime reports a signal death."""
    number = int(token.group(2))
    return number if token.group(1) == "ExitCode" else 128 + number


def exit_code_in(message: str) -> int | None:
    match = _EXIT_CODE_RE.search(message)
    if match:
        return int(match.group(1))
    token = KUBECTL_CODE_RE.search(message)
    return kubectl_code(token) if token is not None else None


@dataclass(frozen=True, slots=True)
class Text:
    """A (reason, message) pair as the matchers see it."""

    reason: str  # the reason as written, without an `Init:` prefix
    r: str  # the same, lower case
    m: str  # the message
    both: str  # reason and message together
    src: str | None  # the reporting component, lower case
    obj_kind: str | None  # the involved object's kind, lower case
    exit_code: int | None  # from a kubectl `ExitCode:N`/`Signal:N` reason, else from the message
    container: str | None  # the container the message names
    scheduling: bool  # a FailedScheduling text ("0/4 nodes are available")
    init: bool  # about an init container
    low: str = ""  # reason and message in lower case: a family's cheap test before its patterns run


def plain_text(message: str) -> Text:
    """A message with no reason, source or object, as the matchers see it; the message is used as it is (a log
    line's body, already stripped of escapes): the cheap way to run a few families over many lines."""
    return Text("", "", message, f" {message}", None, None, None, None, False, False, message.lower())


def prepare(reason: Any, message: Any, source: Any, kind: Any) -> Text:
    r_text = for_matching(as_text(reason)).strip()
    m = for_matching(as_text(message))
    src = for_matching(source).strip().lower() or None
    obj_kind = for_matching(kind).strip().lower() or None
    is_init, r_text = strip_init_prefix(r_text)
    token = KUBECTL_CODE_RE.fullmatch(r_text)
    code_from_reason = kubectl_code(token) if token is not None else None
    r = r_text.lower()
    return Text(
        reason=r_text,
        r=r,
        m=m,
        both=f"{r_text} {m}",
        src=src,
        obj_kind=obj_kind,
        exit_code=code_from_reason if code_from_reason is not None else exit_code_in(m),
        container=container_in(m),
        scheduling=r == "failedscheduling" or bool(_SCHEDULING_TEXT_RE.search(m)),
        init=is_init or names_init_container(m),
        low=f"{r} {m.lower()}",
    )


class Collector:
    """Accumulates at most one signal per kind, in the order found."""

    def __init__(self, detail: str, source: str | None, init: bool) -> None:
        self.detail = detail
        self.source = source
        self.init = init
        self.items: dict[SignalKind, Signal] = {}

    def add(self, kind: SignalKind, **fields: Any) -> None:
        if kind in self.items:
            return
        fields.setdefault("init", self.init)
        fields.setdefault("source", self.source)
        self.items[kind] = Signal(kind=kind, detail=self.detail, **fields)

    def has_any(self, kinds: Iterable[SignalKind]) -> bool:
        return any(kind in self.items for kind in kinds)


_CANONICAL_REASONS: dict[str, str] = {
    name.lower(): name
    for name in (
        "ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull", "RegistryUnavailable",
        "BackOff", "Failed", "FailedMount", "FailedAttachVolume", "FailedMapVolume", "FailedScheduling",
        "CreateContainerConfigError", "CreateContainerError", "StartError", "ContainerCannotRun",
        "RunContainerError", "Unhealthy", "Killing", "CrashLoopBackOff", "Evicted", "NodeLost", "NodeNotReady",
        "NodeNotSchedulable", "Rebooted", "RemovingNode", "DeadlineExceeded", "Error", "OOMKilled",
        "EvictionThresholdMet", "NodeHasInsufficientMemory", "NodeHasDiskPressure", "NodeHasInsufficientPID",
        "Completed", "ImageInspectError", "ErrImageInspect", "OOMKilling", "SystemOOM", "Evict", "Preempted",
        "Preempting", "PreemptionByScheduler", "PreemptionByKubeScheduler", "TerminationByKubelet",
        "EvictionByEvictionAPI", "DeletionByTaintManager", "DeletionByPodGC", "TaintManagerEviction",
        "FailedCreatePodSandBox",
    )
}


def canonical_reason(r: str) -> str | None:
    """The Kubernetes spelling of a lower-cased reason, for citing it."""
    if not r:
        return None
    return _CANONICAL_REASONS.get(r, r)
