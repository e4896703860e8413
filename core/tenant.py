"""A tenant is what a diagnosis reads from: a Run:ai client (Tier 1) and, when available, a Kubernetes source.

Demo and case modes serve a bundle from the simulated control plane on loopback and point the same clients
at it, so nothing downstream can tell a simulated tenant from a real one except by its label.
"""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import httpx

from core.sim.bundle import CaseBundle, load_bundle
from core.sim.control_plane import ControlPlane
from core.sim.kubeconfig import write_kubeconfig
from core.sim.loopback import LoopbackServer
from core.sources.credentials import BearerToken, Credentials
from core.sources.errors import clean_text
from core.sources.kube_types import KubeSettings, KubeUnavailable
from core.sources.runai import RunaiClient
from core.sources.tap import Tap

if TYPE_CHECKING:
    from core.sources.kube import KubeSource


KubeOpener = Callable[[], "KubeSource | KubeUnavailable"]


class Tenant:
    """A Run:ai client and, opened on first use, the Kubernetes source.

    Tier 2 is opened lazily: the kubernetes client takes most of a second to load and the workload list never
    needs it, so the app shows its first page without waiting. `warm_kube()` opens it ahead of time (the app
    calls it from a thread once the first page is on screen).
    """

    def __init__(
        self,
        label: str,
        runai: RunaiClient,
        kube: KubeSource | None = None,
        kube_unavailable: str | None = None,
        *,
        kube_opener: KubeOpener | None = None,
        captured_at: datetime | None = None,
        control_plane: ControlPlane | None = None,
        server: LoopbackServer | None = None,
        tempdir: tempfile.TemporaryDirectory[str] | None = None,
    ) -> None:
        self.label = label
        self.runai = runai
        # For a bundle, the moment it describes: the diagnosis uses it as "now" unless told otherwise.
        self.captured_at = captured_at
        self.control_plane = control_plane
        self._kube = kube
        self._kube_unavailable = kube_unavailable
        self._kube_opener = kube_opener
        self._kube_lock = threading.Lock()
        self._server = server
        self._tempdir = tempdir

    def warm_kube(self) -> None:
        """Open the Kubernetes source now if it was not yet (safe from any thread, opens once)."""
        with self._kube_lock:
            opener, self._kube_opener = self._kube_opener, None
            if opener is None:
                return
            try:
                opened = opener()
            except Exception as exc:  # Tier 2 is optional: whatever stops it, Tier 1 goes on without it
                opened = KubeUnavailable(
                    f"Tier 2 unavailable: the Kubernetes client could not be set up ({type(exc).__name__}: "
                    f"{clean_text(str(exc), 200)})"
                )
            if isinstance(opened, KubeUnavailable):
                self._kube_unavailable = opened.reason
            else:
                self._kube = opened

    @property
    def kube(self) -> KubeSource | None:
        self.warm_kube()
        return self._kube

    @property
    def kube_unavailable(self) -> str | None:
        self.warm_kube()
        return self._kube_unavailable

    async def aclose(self) -> None:
        await self.runai.aclose()
        with self._kube_lock:
            self._kube_opener = None  # never opened: nothing to close
        if self._kube is not None:
            self._kube.close()
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
    tap: Tap | None = None,
) -> Tenant:
    """Serve `bundle` on loopback and connect both clients to it over real HTTP (`tap` sees their answers)."""
    control_plane = ControlPlane(bundle, latency_ms=latency_ms)
    server = LoopbackServer(control_plane)
    url = server.start()
    kwargs = {"timeout": timeout} if timeout is not None else {}
    runai = RunaiClient(url, BearerToken(control_plane.issue_token()), tap=tap, **kwargs)
    if bundle.kubernetes is None:
        return Tenant(
            label,
            runai,
            kube_unavailable="Tier 2 unavailable: the case bundle has no kubernetes section",
            captured_at=bundle.captured_at,
            control_plane=control_plane,
            server=server,
        )
    tempdir = tempfile.TemporaryDirectory(prefix="runai-triage-")
    kubeconfig = Path(tempdir.name) / "kubeconfig"
    write_kubeconfig(kubeconfig, url, control_plane.kube_token)

    def open_kube() -> KubeSource | KubeUnavailable:
        from core.sources.kube import open_kube_source  # the kubernetes client loads only when needed

        return open_kube_source(KubeSettings(kubeconfig=kubeconfig, in_cluster=False), env={}, tap=tap)

    return Tenant(
        label,
        runai,
        kube_opener=open_kube,
        captured_at=bundle.captured_at,
        control_plane=control_plane,
        server=server,
        tempdir=tempdir,
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
    tap: Tap | None = None,
) -> Tenant:
    kwargs = {"timeout": timeout} if timeout is not None else {}
    runai = RunaiClient(base_url, credentials, tap=tap, **kwargs)
    if not kube_settings.enabled:
        return Tenant(runai.base_url, runai, kube_unavailable="Tier 2 unavailable: disabled with --no-kube")

    def open_kube() -> KubeSource | KubeUnavailable:
        from core.sources.kube import open_kube_source  # the kubernetes client loads only when needed

        return open_kube_source(kube_settings, tap=tap)

    return Tenant(runai.base_url, runai, kube_opener=open_kube)
