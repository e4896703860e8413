"""Container start: the runtime could not start the process (StartError, exit 128), or the kubelet could not
build the container's configuration (CreateContainerConfigError, CreateContainerError).

A start error is the application's own configuration (an entrypoint typo, a missing executable), so it
decides CRASH_APP_ERROR with the app's exit; a configuration error that names a missing Secret or ConfigMap
is the mount family's, any other stays CREATE_CONTAINER_CONFIG_ERROR (the same rule row as a mount failure).
"""

from __future__ import annotations

from core.diagnosis.signals.family import Family, example
from core.diagnosis.signals.model import SignalKind
from core.diagnosis.signals.text import Collector, Text, canonical_reason, rx

K = SignalKind
START_REASONS = frozenset({"starterror", "containercannotrun", "runcontainererror"})
_START_TRIGGER_RE = rx(
    r"executable file not found in \$path|failed to create containerd task|oci runtime (?:create|exec) failed"
    r"|runc create failed|unable to start container process"
)
_CONFIG_REASONS = frozenset({"createcontainerconfigerror", "createcontainererror"})


def match(t: Text, out: Collector) -> None:
    if K.SANDBOX_FAILED in out.items:  # the runtime failing to make the sandbox, not the app's start
        return
    if t.r in START_REASONS or _START_TRIGGER_RE.search(t.m):
        out.add(K.START_ERROR, exit_code=128, reason=canonical_reason(t.r) or "StartError", container=t.container)
    if t.r in _CONFIG_REASONS and K.MOUNT_FAILED not in out.items:
        out.add(K.CREATE_CONTAINER_CONFIG_ERROR, reason=canonical_reason(t.r), container=t.container)


EXAMPLES = (
    example(
        "StartError",
        "failed to create containerd task: failed to create shim task: OCI runtime create failed: runc "
        'create failed: unable to start container process: exec: "trian.py": executable file not found in $PATH: '
        "unknown",
        K.START_ERROR,
        exit_code=128,
        reason="StartError",
    ),
    example("ContainerCannotRun", 'exec: "python": executable file not found in $PATH', K.START_ERROR),
    example(
        "CreateContainerConfigError",
        "container has runAsNonRoot and image will run as root",
        K.CREATE_CONTAINER_CONFIG_ERROR,
    ),
    example("CreateContainerError", "Error: failed to reserve container name", K.CREATE_CONTAINER_CONFIG_ERROR),
    example("Created", "Created container main", None),
    example("Started", "Started container main", None),
)

FAMILY = Family(
    name="container-start",
    kinds=frozenset({K.START_ERROR, K.CREATE_CONTAINER_CONFIG_ERROR}),
    match=match,
    examples=EXAMPLES,
    rows={K.START_ERROR: "app-exit", K.CREATE_CONTAINER_CONFIG_ERROR: "mount-failed"},
)
