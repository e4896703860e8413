"""Which Kubernetes namespace a Run:ai workload's pods live in.

Run:ai's default is ``runai-<project>``, but an administrator can link any namespace to a project, so the
default is only the last resort and is marked as an assumption: the report must say so, and a 404 under an
assumed namespace means "maybe the wrong namespace", not "the pod is gone".
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from core.models.base import preview

# A namespace is a DNS-1123 label; anything else cannot be one and must not be put into an API path.
_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_MAX_LABEL = 63


@dataclass(frozen=True, slots=True)
class NamespaceChoice:
    """The chosen namespace (None when nothing names one), where it came from, and whether it is a guess."""

    namespace: str | None
    source: str
    assumed: bool
    notes: tuple[str, ...] = ()


def is_namespace_name(value: str) -> bool:
    """True when ``value`` is a syntactically valid Kubernetes namespace name."""
    return len(value) <= _MAX_LABEL and _DNS_LABEL.fullmatch(value) is not None


def resolve_namespace(
    workload_namespace: str | None,
    project_namespace: str | None,
    event_namespaces: Iterable[str | None],
    project_name: str | None,
) -> NamespaceChoice:
    """Pick the namespace in the documented order: workload, project status, events, then ``runai-<project>``.

    Values that are not valid namespace names are skipped and noted, never used.
    """
    notes: list[str] = []

    def usable(value: str | None, where: str) -> str | None:
        if value is None or value == "":
            return None
        if not isinstance(value, str) or not is_namespace_name(value):
            notes.append(f"ignored {where} {preview(value)}: not a valid namespace name")
            return None
        return value

    chosen = usable(workload_namespace, "workload.namespace")
    if chosen:
        return NamespaceChoice(chosen, "workload.namespace", False, tuple(notes))

    chosen = usable(project_namespace, "project status.namespace")
    if chosen:
        return NamespaceChoice(chosen, "project status.namespace", False, tuple(notes))

    seen = Counter(
        name for name in (usable(ns, "event involvedObject.namespace") for ns in event_namespaces) if name
    )
    if seen:
        # Events of one workload should agree; if they do not, the most frequent wins and the rest are noted.
        (chosen, _), *others = seen.most_common()
        if others:
            notes.append("events also named " + ", ".join(sorted(name for name, _ in others)))
        return NamespaceChoice(chosen, "event involvedObject.namespace", False, tuple(notes))

    if project_name:
        fallback = f"runai-{project_name}"
        if is_namespace_name(fallback):
            return NamespaceChoice(
                fallback,
                f"assumed: {fallback} is Run:ai's default namespace for project {project_name}; neither "
                "the workload, its project nor its events named one, and an administrator may link another",
                True,
                tuple(notes),
            )
        notes.append(f"runai-<project> for project {preview(project_name)} is not a valid namespace name")

    return NamespaceChoice(
        None, "unknown: neither the workload, its project, its events nor a project name gave a namespace",
        False, tuple(notes),
    )
