"""A tap: something that sees every answer a tenant's clients receive, such as `runai-triage record`.

The clients take one at construction and hand it their innermost reading layer: the Run:ai client its
transport (above the deadline and size bounds, so the tap sees exactly the bytes the client reads, and below
nothing that could write: the read-only guard stays the last step before the network), the Kubernetes source
its guarded `ApiClient`. A tap observes; it never sends anything of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import httpx

if TYPE_CHECKING:
    from kubernetes.client import ApiClient


class Tap(Protocol):
    def runai_transport(self, transport: httpx.AsyncBaseTransport, base_path: str) -> httpx.AsyncBaseTransport:
        """The transport the Run:ai client should use instead of `transport` (which it must wrap)."""
        ...

    def kube_client(self, api_client: ApiClient) -> None:
        """Start observing the answers of this (already guarded) Kubernetes API client."""
        ...
