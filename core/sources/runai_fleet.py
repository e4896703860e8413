"""The Run:ai reads about the fleet rather than one workload, mixed into `RunaiClient`: the tenant-wide pod list
(`GET /api/v1/workloads/pods`, what ran where and when) and the nodes of a cluster.

Nodes: `GET /api/v1/nodes` filtered on `clusterUuid` (2.24's own list), and on a control plane that answers 404
there (an older one), the cluster's `GET /api/v1/clusters/{clusterUuid}/nodes`, which 2.24 keeps but marks
deprecated. Neither body carries `next` (the SDK's `Nodes`): a full page means another may follow.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from core.models.pages import Page
from core.models.runai import RunaiPod
from core.models.runai_nodes import RunaiNode
from core.sources.errors import ApiError
from core.sources.runai_params import MAX_LIMIT, check_filters, check_paging, check_sort_order, filter_item, segment


class _Client(Protocol):
    async def _get_page(
        self, path: str, params: Mapping[str, Any], *, resource: str, key: str, model: type[Any]
    ) -> Page[Any]: ...


class FleetReads:
    """`list_tenant_pods` and `list_nodes` for a client that has `_get_page` (RunaiClient)."""

    async def list_tenant_pods(
        self: _Client,
        *,
        filters: Sequence[str] | None = None,
        deleted: bool | None = None,
        completed: bool | None = None,
        sort_by: str | None = None,
        sort_order: str | None = None,
        offset: int = 0,
        limit: int = MAX_LIMIT,
    ) -> Page[RunaiPod]:
        """`GET /api/v1/workloads/pods` with `verbosity=full` (each pod names its workload and project);
        `deleted=True` lists only deleted pods, `completed` those with (or without) a completion time."""
        check_paging(offset, limit)
        check_sort_order(sort_order)
        params = {
            "filterBy": check_filters(filters),
            "deleted": deleted,
            "completed": None if completed is None else ("true" if completed else "false"),
            "sortBy": sort_by,
            "sortOrder": sort_order,
            "verbosity": "full",
            "offset": offset,
            "limit": limit,
        }
        return await self._get_page("/api/v1/workloads/pods", params, resource="pods", key="pods", model=RunaiPod)

    async def list_nodes(
        self: _Client, cluster_id: str, *, filters: Sequence[str] = (), offset: int = 0, limit: int = MAX_LIMIT
    ) -> Page[RunaiNode]:
        """One page of the cluster's nodes, by name; an older control plane's own endpoint when it has no
        tenant-wide list (404)."""
        check_paging(offset, limit)
        params = {"sortBy": "name", "sortOrder": "asc", "offset": offset, "limit": limit}
        tenant = {"filterBy": check_filters([filter_item("clusterUuid", "==", cluster_id), *filters]), **params}
        try:
            return await self._get_page("/api/v1/nodes", tenant, resource="nodes", key="nodes", model=RunaiNode)
        except ApiError as exc:
            if exc.status != 404:
                raise
        path = f"/api/v1/clusters/{segment(cluster_id)}/nodes"
        own = {"filterBy": check_filters(list(filters)), **params}
        return await self._get_page(path, own, resource="nodes", key="nodes", model=RunaiNode)
