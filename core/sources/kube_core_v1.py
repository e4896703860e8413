"""The six core/v1 reads Tier 2 makes, sent through the kubernetes client's own `ApiClient` as `CoreV1Api` sends
them, without loading `CoreV1Api`.

`kubernetes.client.api.core_v1_api` imports 250 pydantic models for its type hints, which costs most of a second
of start-up; the bodies are read raw (`_preload_content=False`) and parsed by our own models, so none of them
is ever used. Each method here builds the same request the generated method builds (`param_serialize` with the
same path, query parameters in the same order, the same `Accept` and the `BearerToken` auth setting), sends it
with `call_api`, and, like the generated methods without preloading, raises `ApiException` for a status outside
2xx and otherwise returns the urllib3 response unread. Only GET exists here, and the guard in `kube_guard`
still checks every request where it leaves.
"""

from __future__ import annotations

from typing import Any

from kubernetes.client import ApiClient
from kubernetes.client.exceptions import ApiException

_ACCEPT = "application/json"  # what the generated methods pick from their list: the first JSON type
_AUTH = ["BearerToken"]

Timeout = float | tuple[float, float] | None


class CoreReads:
    """`read_namespaced_pod`, `read_namespaced_pod_log`, `list_namespaced_event`, `list_event_for_all_namespaces`
    and `read_node`, each returning the raw urllib3 response (the callers read it within their deadline)."""

    def __init__(self, api_client: ApiClient) -> None:
        self.api_client = api_client

    def read_namespaced_pod(self, name: str, namespace: str, *, _request_timeout: Timeout = None) -> Any:
        return self._get("/api/v1/namespaces/{namespace}/pods/{name}", {"name": name, "namespace": namespace},
                         [], _request_timeout)

    def read_namespaced_pod_log(
        self,
        name: str,
        namespace: str,
        *,
        container: str | None = None,
        limit_bytes: int | None = None,
        previous: bool | None = None,
        tail_lines: int | None = None,
        _request_timeout: Timeout = None,
    ) -> Any:
        query = [
            ("container", container),
            ("limitBytes", limit_bytes),
            ("previous", previous),
            ("tailLines", tail_lines),
        ]  # the generated method's order
        return self._get(
            "/api/v1/namespaces/{namespace}/pods/{name}/log", {"name": name, "namespace": namespace}, query,
            _request_timeout,
        )

    def list_namespaced_event(
        self, namespace: str, *, field_selector: str | None = None, _request_timeout: Timeout = None
    ) -> Any:
        return self._get("/api/v1/namespaces/{namespace}/events", {"namespace": namespace},
                         [("fieldSelector", field_selector)], _request_timeout)

    def list_event_for_all_namespaces(
        self, *, field_selector: str | None = None, _request_timeout: Timeout = None
    ) -> Any:
        return self._get("/api/v1/events", {}, [("fieldSelector", field_selector)], _request_timeout)

    def read_node(self, name: str, *, _request_timeout: Timeout = None) -> Any:
        return self._get("/api/v1/nodes/{name}", {"name": name}, [], _request_timeout)

    def list_pod_for_all_namespaces(
        self, *, field_selector: str | None = None, limit: int | None = None, _request_timeout: Timeout = None
    ) -> Any:
        query = [("fieldSelector", field_selector), ("limit", limit)]
        return self._get("/api/v1/pods", {}, query, _request_timeout)

    def _get(self, path: str, path_params: dict[str, str], query: list[tuple[str, Any]], timeout: Timeout) -> Any:
        for key, value in path_params.items():
            if not isinstance(value, str):  # the generated methods validate this too (StrictStr)
                raise TypeError(f"{key} must be a string, got {type(value).__name__}")
        request = self.api_client.param_serialize(
            method="GET",
            resource_path=path,
            path_params=path_params,
            query_params=[(k, v) for k, v in query if v is not None],
            header_params={"Accept": _ACCEPT},
            body=None,
            post_params=[],
            files={},
            auth_settings=_AUTH,
            collection_formats={},
            _host=None,
            _request_auth=None,
        )
        answer = self.api_client.call_api(*request, _request_timeout=timeout)
        if not 200 <= answer.status <= 299:
            answer.read()
            raise ApiException.from_response(http_resp=answer, body=None, data=None)
        return answer.response
