"""A tenant is what a diagnosis reads from: a Run:ai client (Tier 1) and, when available, a Kubernetes source.

Demo and case modes serve a bundle from the simulated control plane on loopback and point the same clients
at it, so nothing downstream can tell a simulated tenant from a real one except by its label.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import httpx

from core.sim.bundle import CaseBundle, load_bundle
from core.sim.control_plane import ControlPlane
from core.sim.kubeconfig import write_kubeconfig
from core.sim.loopback import LoopbackServer
from core.sources.credentials import BearerToken, Credentials
from core.sources.kube_types import KubeSettings, KubeUnavailable
from core.sources.runai import RunaiClient

if TYPE_CHECKING:
    from core.sources.kube import KubeSource


@dataclass
class Tenant:
    label: str
    runai: RunaiClient
    kube: KubeSource | None
    kube_unavailable: str | None
    # For a bundle, the moment it describes: the diagnosis uses it as "now" unless told otherwise.
    captured_at: datetime | None = None
    control_plane: ControlPlane | None = None
    _server: LoopbackServer | None = None
    _tempdir: tempfile.TemporaryDirectory[str] | None = field(default=None, repr=False)

    async def aclose(self) -> None:
        await self.runai.aclose()
        if self.kube is not None:
            self.kube.close()
        if self._server is not None:
            self._server.stop()
        if self._tempdir is not None:
            self._tempdir.cleanup()

    async def __aenter__(self) -> Tenant:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def open_bundle_tenant(
    bundle: CaseBundle,
    *,
    label: str,
    latency_ms: float = 0.0,
    timeout: httpx.Timeout | float | None = None,
) -> Tenant:
    """Serve `bundle` on loopback and connect both clients to it over real HTTP."""
    control_plane = ControlPlane(bundle, latency_ms=latency_ms)
    server = LoopbackServer(control_plane)
    url = server.start()
    kwargs = {"timeout": timeout} if timeout is not None else {}
    runai = RunaiClient(url, BearerToken(control_plane.issue_token()), **kwargs)
    kube: KubeSource | None = None
    unavailable: str | None = None
    tempdir: tempfile.TemporaryDirectory[str] | None = None
    if bundle.kubernetes is None:
        unavailable = "Tier 2 unavailable: the case bundle has no kubernetes section"
    else:
        tempdir = tempfile.TemporaryDirectory(prefix="runai-triage-")
        kubeconfig = Path(tempdir.name) / "kubeconfig"
        write_kubeconfig(kubeconfig, url, control_plane.kube_token)
        from core.sources.kube import open_kube_source  # the kubernetes client loads only when needed

        opened = open_kube_source(KubeSettings(kubeconfig=kubeconfig, in_cluster=False), env={})
        if isinstance(opened, KubeUnavailable):
            unavailable = opened.reason
        else:
            kube = opened
    return Tenant(
        label=label,
        runai=runai,
        kube=kube,
        kube_unavailable=unavailable,
        captured_at=bundle.captured_at,
        control_plane=control_plane,
        _server=server,
        _tempdir=tempdir,
    )


def open_case_tenant(path: str | Path, **kwargs: object) -> Tenant:
    """Raises core.sim.bundle.BundleError with a clear message when the file is not a usable bundle."""
    bundle = load_bundle(path)
    return open_bundle_tenant(bundle, label=f"case {Path(path).name}", **kwargs)  # type: ignore[arg-type]


def open_demo_tenant(**kwargs: object) -> Tenant:
    from core.sim.demo import load_demo_bundle

    return open_bundle_tenant(load_demo_bundle(), label="demo tenant", **kwargs)  # type: ignore[arg-type]


def open_real_tenant(
    base_url: str,
    credentials: Credentials,
    kube_settings: KubeSettings,
    *,
    timeout: httpx.Timeout | float | None = None,
) -> Tenant:
    kwargs = {"timeout": timeout} if timeout is not None else {}
    runai = RunaiClient(base_url, credentials, **kwargs)
    kube: KubeSource | None = None
    unavailable: str | None = None
    opened: KubeSource | KubeUnavailable = KubeUnavailable("Tier 2 unavailable: disabled with --no-kube")
    if kube_settings.enabled:
        from core.sources.kube import open_kube_source  # the kubernetes client loads only when needed

        opened = open_kube_source(kube_settings)
    if isinstance(opened, KubeUnavailable):
        unavailable = opened.reason
    else:
        kube = opened
    return Tenant(label=runai.base_url, runai=runai, kube=kube, kube_unavailable=unavailable)
