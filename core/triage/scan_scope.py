"""What a scan covers, checked before it lists anything: the cluster (one of the tenant's, and whether the control
plane can see it now) and the project (one of that cluster's); and, when the window held nothing, whether the
filters match any workload at all. An unknown cluster or project is an error that lists the ones that exist,
like `diagnose`; a filter that matches nothing says so rather than reading as "nothing failed".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from core.diagnosis.observations import quote
from core.diagnosis.reader import DiagnosisFailed, error_why
from core.diagnosis.steps.cluster import check_cluster
from core.models.clusters import same_cluster
from core.sources.runai import MAX_LIMIT, filter_item, invalid_workload_id
from core.triage.cluster_state import ClusterState, cluster_state
from core.usage import Opt, UsageError

# Projects are read in pages of the API maximum; this many pages is far beyond any real tenant.
MAX_PROJECT_PAGES = 20
SHOWN_PROJECTS = 30


class UnknownProject(DiagnosisFailed):
    """The project asked about is not one of the cluster's; the message lists the ones it has."""


@dataclass
class ScanScope:
    cluster_id: str  # the tenant's spelling of the cluster's id (or the id as given, when unchecked)
    cluster: ClusterState | None = None  # None when the clusters list could not be read or lacks it
    cluster_unread: str | None = None  # why the cluster's state is unknown
    notes: list[str] = field(default_factory=list)


async def scope_of(tier1: Any, given: str, project: str | None, now: datetime) -> ScanScope:
    """The cluster `given` names and its state; raises UnknownCluster or UnknownProject with what exists."""
    try:
        page = await tier1.list_clusters_page()
    except Exception as exc:  # an old tenant, or a key without the role: the scan goes on, and says so
        why = error_why(exc)
        scope = ScanScope(given.strip(), cluster_unread=f"the clusters list could not be read: {why}")
        scope.notes.append(f"the cluster id was used as given, unchecked, and its state is unknown ({why})")
    else:
        checked = check_cluster(given, page)
        found = next((c for c in page.items if same_cluster(c.uuid, checked.cluster_id)), None)
        scope = ScanScope(checked.cluster_id)
        if found is None:
            scope.cluster_unread = "the tenant's clusters list does not show this cluster"
        else:
            scope.cluster = cluster_state(found, now)
    if project:
        note = await _check_project(tier1, scope, project)
        if note:
            scope.notes.append(note)
    return scope


async def _check_project(tier1: Any, scope: ScanScope, project: str) -> str | None:
    """None when `project` is one of the cluster's; a note when that cannot be told; UnknownProject when not."""
    names: set[str] = set()
    offset: int | None = 0
    try:
        for _ in range(MAX_PROJECT_PAGES):
            if offset is None:
                break
            page = await tier1.list_projects(
                filters=[filter_item("clusterId", "==", scope.cluster_id)], offset=offset, limit=MAX_LIMIT
            )
            mine = [p for p in page.items if p.cluster_id is None or same_cluster(p.cluster_id, scope.cluster_id)]
            names.update(p.name for p in mine if p.name)
            offset = page.next if page.items else None
    except Exception as exc:
        return f"the project {quote(project, 80)} was not checked: the projects could not be listed ({error_why(exc)})"
    if not names:
        return f"the project {quote(project, 80)} was not checked: the tenant listed no project on this cluster"
    if project in names:
        return None
    ordered = sorted(names, key=str.casefold)
    shown = ", ".join(quote(name, 80) for name in ordered[:SHOWN_PROJECTS])
    more = f", and {len(ordered) - SHOWN_PROJECTS} more" if len(ordered) > SHOWN_PROJECTS else ""
    where = scope.cluster.name if scope.cluster is not None else scope.cluster_id
    raise UnknownProject(
        f"{quote(project, 80)} is not a project of cluster {quote(where, 80)}. Its projects: {shown}{more}. "
        "Use one of these names, exactly as written."
    )


async def check_project(tier1: Any, cluster_id: str, project: str) -> str | None:
    """As a scan checks it: None when `project` is one of the cluster's, a note when that cannot be told, and
    UnknownProject (listing the cluster's projects) when it is not."""
    return await _check_project(tier1, ScanScope(cluster_id), project)


async def filters_match(tier1: Any, cluster_id: str, project: str | None, prefix: str | None) -> int | str:
    """How many workloads of the cluster match the project and name filters at all (any phase, any time), or
    why that could not be counted: said when a scan's window held nothing."""
    filters = [filter_item("clusterId", "==", cluster_id)]
    if project:
        filters.append(filter_item("projectName", "==", project))
    if prefix:
        filters.append(filter_item("name", "=^", prefix))
    try:
        return int(await tier1.count_workloads(filters))
    except Exception as exc:
        return error_why(exc)


def check_request_scope(cluster_id: str, covers: str, texts: tuple[tuple[str, str | None], ...]) -> None:
    """The options a many-workload request (`scan`, `nodes`, `watch`) shares, checked before anything is read: a
    cluster id that is one (`covers` says what the command covers of a cluster), and each text filter (`texts`:
    its option's key and value) non-empty, printable and without a comma (the API's filterBy separator). The
    options are named as data (core.usage `Opt`): the command line says its flags, the MCP tools their
    arguments."""
    if not (cluster_id or "").strip():
        raise UsageError("missing ", Opt("cluster_id", "a cluster id"), f": {covers}. Identifiers are never guessed.")
    problem = invalid_workload_id(cluster_id.strip(), "cluster id")
    if problem:
        raise UsageError(f"cluster id: {problem}")
    for option, value in texts:
        if value is not None and (not value.strip() or "," in value or not value.isprintable()):
            raise UsageError(Opt(option), " must be non-empty printable text without a comma")
