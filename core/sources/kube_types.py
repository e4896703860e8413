"""Tier 2 value types that need no Kubernetes client: settings, gaps, and what the reads return.

Kept apart from the client code so the command line, the app and the engine can name them without loading
the `kubernetes` package (most of a second) until a Kubernetes connection is actually made.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from core.usage import Namer, Opt, sentence

if TYPE_CHECKING:  # annotations only: the models load with the first Kubernetes read, not with the picker
    from core.models.kube import K8sEvent, K8sPod

DEFAULT_CONNECT_TIMEOUT = 3.0
DEFAULT_READ_TIMEOUT = 10.0
# One read, end to end (connect, head, retry, body): a trickling API server is cut off here.
DEFAULT_READ_DEADLINE = 20.0
# An exec login plugin (aws, gke-gcloud-auth-plugin, kubelogin) gets this long to print a credential.
DEFAULT_LOGIN_TIMEOUT = 20.0
SOURCE_LOGS = "kubectl logs --previous"
# Tier 2 turned off by the user: the option named as data, which each front end says its way (KubeSettings.named).
KUBE_OFF = sentence("Tier 2 unavailable: disabled with ", Opt("no_kube", plainly="the option not to read Kubernetes"))
# kube-apiserver's --event-ttl default: an event not updated for this long is gone.
EVENTS_TTL = timedelta(hours=1)


@dataclass(frozen=True, slots=True)
class KubeSettings:
    """What the user asked for on the command line (``--kubeconfig``, ``--kube-context``, ``--no-kube``).

    ``in_cluster``: None = use the service account only when no kubeconfig is found; True = only the service
    account; False = never the service account. ``named``: how the user names these options, for a reason that
    names one (set by the front end that read them: the command line's flags, for the app's start-up options, the
    commands' and the MCP server's alike); None, plain words.
    """

    kubeconfig: Path | None = None
    context: str | None = None
    enabled: bool = True
    in_cluster: bool | None = None
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    read_timeout: float = DEFAULT_READ_TIMEOUT
    deadline: float = DEFAULT_READ_DEADLINE
    login_timeout: float = DEFAULT_LOGIN_TIMEOUT
    # How they are named is no part of what is read: settings alike but for it are equal.
    named: Namer | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class KubeUnavailable:
    """Tier 2 cannot be used; ``reason`` is one line starting with "Tier 2 unavailable: "."""

    reason: str


@dataclass(frozen=True, slots=True)
class ContainerChoice:
    """The container whose log explains the failure, and why it was picked."""

    name: str
    reason: str
    init: bool = False


@dataclass(frozen=True, slots=True)
class LogExcerpt:
    """The tail of one container's log, decoded, with overlong lines cut.

    ``previous`` tells which instance this is: True = the one before the last restart (``--previous``),
    False = the current one. ``note`` says why the current one is shown when the previous was asked for.
    """

    container: str
    previous: bool
    lines: list[str]
    truncated: bool
    note: str | None = None
    reason: str | None = None

    @property
    def source(self) -> str:
        return SOURCE_LOGS if self.previous else "kubectl logs"


@dataclass(frozen=True, slots=True)
class KubeEvents:
    """Events that matched a selector, oldest first; ``dropped_stale`` counts those of older pods."""

    items: list[K8sEvent]
    field_selector: str
    dropped_stale: int = 0
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class NodePods:
    """The pods bound to one node, listed across namespaces (``spec.nodeName=<node>``), at most ``limit`` of
    them; ``more`` says the API server held more than one page (not read: one round trip is the budget)."""

    node: str
    items: list[K8sPod]
    limit: int
    more: bool = False
    problems: list[str] = field(default_factory=list)
