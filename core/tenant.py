"""A tenant is what a diagnosis reads from: a Run:ai client (Tier 1) and, when available, a Kubernetes source.

Demo and case modes serve a bundle from the simulated control plane on loopback (from this process, or, for the
terminal app, from a process of its own: core.sim.process) and point the same clients at it, so nothing
downstream can tell a simulated tenant from a real one except by its label.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import tempfile
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import httpx

from core.sim.kubeconfig import write_kubeconfig
from core.sim.process import Served, SimProcess
from core.sources.credentials import BearerToken, Credentials
from core.sources.errors import clean_text
from core.sources.kube_types import KUBE_OFF, KubeSettings, KubeUnavailable
from core.sources.runai import RunaiClient
from core.sources.tap import Tap

if TYPE_CHECKING:
    from core.sim.bundle import CaseBundle
    from core.sim.control_plane import ControlPlane
    from core.sim.live.settings import LiveSettings
    from core.sources.kube import KubeSource


KubeOpener = Callable[[], "KubeSource | KubeUnavailable"]
NO_KUBE_SECTION = "Tier 2 unavailable: the case bundle has no kubernetes section"
DEMO_LABEL = "demo tenant"
LIVE_DEMO_LABEL = "demo tenant, live"


def case_label(path: str | Path) -> str:
    return f"case {Path(path).name}"


class Tenant:
    """A Run:ai client and, opened on first use, the Kubernetes source.

    Tier 2 is opened lazily: loading and configuring the kubernetes client takes a few hundred milliseconds,
    the workload list never needs it, and a diagnosis needs it only a round trip in (Step 2). `open_tier2()`
    opens it in a thread of its own, started at once, and waits for it without holding up the event loop; a
    diagnosis starts it with Step 1 and waits only when Step 1 confirms an in-scope failure. The thread is a
    daemon: a diagnosis routed out at Step 1 leaves it behind, and the process exits without waiting for a
    client it does not need. `kube` and `kube_unavailable` open it in the calling thread when it was not yet.
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
        stop: Callable[[], None] | None = None,
        tempdir: tempfile.TemporaryDirectory[str] | None = None,
        live_clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.label = label
        self.runai = runai
        # For a bundle, the moment it describes: the diagnosis uses it as "now" unless told otherwise.
        self.captured_at = captured_at
        # For a live demo tenant (core.sim.live), its moving "now", the one its simulator serves at.
        self.live_clock = live_clock
        self.control_plane = control_plane
        self._kube = kube
        self._kube_unavailable = kube_unavailable
        self._kube_opener = kube_opener
        self._kube_lock = threading.Lock()  # held while opening: a second caller waits for the first
        self._state_lock = threading.Lock()  # held only to read or change the fields below, never while opening
        self._closed = False
        self._opened: concurrent.futures.Future[None] | None = None
        self._stop = stop  # what serves a simulated tenant: its loopback server or its process
        self._tempdir = tempdir

    def warm_kube(self) -> None:
        """Open the Kubernetes source now if it was not yet (safe from any thread, opens once)."""
        with self._kube_lock:
            with self._state_lock:
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
            with self._state_lock:
                if self._closed:  # closed while this was opening: nobody will use it
                    if not isinstance(opened, KubeUnavailable):
                        opened.close()
                elif isinstance(opened, KubeUnavailable):
                    self._kube_unavailable = opened.reason
                else:
                    self._kube = opened

    def start_opening_kube(self) -> concurrent.futures.Future[None]:
        """Start opening Tier 2 in a daemon thread (once); the future is done when it is open or refused."""
        with self._state_lock:
            if self._opened is None:
                self._opened = concurrent.futures.Future()
                # Running from the start, so a waiter that gives up (a cancelled diagnosis) cannot cancel it
                # for the others.
                self._opened.set_running_or_notify_cancel()
                if self._kube_opener is None:
                    self._opened.set_result(None)
                else:
                    threading.Thread(target=self._open_in_thread, name="kube-open", daemon=True).start()
            return self._opened

    def _open_in_thread(self) -> None:
        try:
            self.warm_kube()
        finally:
            assert self._opened is not None
            self._opened.set_result(None)

    async def open_tier2(self) -> tuple[KubeSource | None, str | None]:
        """The Kubernetes source, or why there is none; opened in its own thread, the event loop kept free."""
        await asyncio.wrap_future(self.start_opening_kube())
        return self._kube, self._kube_unavailable

    def tier2_known(self) -> tuple[KubeSource | None, str | None] | None:
        """The Kubernetes source, or why there is none, when that is known by now; None while still opening."""
        with self._state_lock:
            if self._kube_opener is not None or (self._opened is not None and not self._opened.done()):
                return None
            return self._kube, self._kube_unavailable

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
        with self._state_lock:
            self._closed = True
            self._kube_opener = None  # never opened: nothing to close (one being opened closes itself)
            kube = self._kube
        if kube is not None:
            kube.close()
        if self._stop is not None:
            self._stop()
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
    live: LiveSettings | None = None,
    live_clock: Callable[[], datetime] | None = None,
) -> Tenant:
    """Serve `bundle` on loopback and connect both clients to it over real HTTP (`tap` sees their answers).
    With `live`, the bundle moves (core.sim.live), on `live_clock` when one is given (tests step it)."""
    # Loaded here: the program serves its bundle from a process of its own (open_served_tenant) and needs neither.
    from core.sim.control_plane import SESSION_TTL_S, ControlPlane
    from core.sim.loopback import LoopbackServer

    if live is not None:
        from core.sim.live.plane import LiveControlPlane

        control_plane: ControlPlane = LiveControlPlane(bundle, live, clock=live_clock, latency_ms=latency_ms)
        live_clock = control_plane.clock  # type: ignore[attr-defined]
    else:
        control_plane = ControlPlane(bundle, latency_ms=latency_ms)
    server = LoopbackServer(control_plane)
    url = server.start()
    kube_token = control_plane.kube_token if bundle.kubernetes is not None else None
    # A live tenant on the wall clock serves its bundle shifted to start now: its capture instant is that start.
    served = Served(url, control_plane.issue_token(ttl_s=SESSION_TTL_S), kube_token, control_plane.bundle.captured_at)
    tenant = _connect(served, label, timeout, tap, server.stop, control_plane)
    tenant.live_clock = live_clock if live is not None else None
    return tenant


def open_served_tenant(
    process: SimProcess, *, label: str, timeout: httpx.Timeout | float | None = None, tap: Tap | None = None
) -> Tenant:
    """Connect both clients over real HTTP to a bundle served from a process of its own, once it is ready (at
    most READY_TIMEOUT_S); closing the tenant stops the process. Raises SimProcessFailed (and stops it) when it
    cannot serve: the bundle cannot be used, or the process exited, answered something else or never answered."""
    served = process.ready()
    try:
        tenant = _connect(served, label, timeout, tap, process.stop)
    except BaseException:
        process.stop()
        raise
    live = process.live
    if live is not None and live.epoch is not None:
        from core.sim.live.clock import live_clock

        # The same clock the process serves at: it started at its (shifted) capture instant, on the wall clock,
        # at the same speed, so the two never drift.
        tenant.live_clock = live_clock(served.captured_at, served.captured_at.timestamp(), live.speed)
    return tenant


def _connect(
    served: Served,
    label: str,
    timeout: httpx.Timeout | float | None,
    tap: Tap | None,
    stop: Callable[[], None],
    control_plane: ControlPlane | None = None,
) -> Tenant:
    """Both clients pointed at a simulator: the Run:ai client with its bearer token, and, when the bundle has a
    kubernetes section, a kubeconfig for the Kubernetes client in a directory of its own."""
    kwargs = {"timeout": timeout} if timeout is not None else {}
    runai = RunaiClient(served.url, BearerToken(served.token), tap=tap, **kwargs)
    opener, tempdir = _kube_opener(served.url, served.kube_token, tap) if served.kube_token else (None, None)
    return Tenant(
        label,
        runai,
        kube_unavailable=None if opener else NO_KUBE_SECTION,
        kube_opener=opener,
        captured_at=served.captured_at,
        control_plane=control_plane,
        stop=stop,
        tempdir=tempdir,
    )


def _kube_opener(url: str, token: str, tap: Tap | None) -> tuple[KubeOpener, tempfile.TemporaryDirectory[str]]:
    """How to open the Kubernetes client on a simulator, and the directory holding its kubeconfig."""
    tempdir = tempfile.TemporaryDirectory(prefix="runai-triage-")
    kubeconfig = Path(tempdir.name) / "kubeconfig"
    write_kubeconfig(kubeconfig, url, token)

    def open_kube() -> KubeSource | KubeUnavailable:
        from core.sources.kube import open_kube_source  # the kubernetes client loads only when needed

        return open_kube_source(KubeSettings(kubeconfig=kubeconfig, in_cluster=False), env={}, tap=tap)

    return open_kube, tempdir


def open_case_tenant(path: str | Path, **kwargs: object) -> Tenant:
    """Raises core.sim.bundle.BundleError with a clear message when the file is not a usable bundle."""
    from core.sim.bundle import load_bundle

    bundle = load_bundle(path)
    return open_bundle_tenant(bundle, label=case_label(path), **kwargs)  # type: ignore[arg-type]


def open_demo_tenant(**kwargs: object) -> Tenant:
    """The demo tenant, served from this process; `live=LiveSettings(...)` (and `live_clock`) make it move."""
    from core.sim.demo import load_demo_bundle

    label = LIVE_DEMO_LABEL if kwargs.get("live") is not None else DEMO_LABEL
    return open_bundle_tenant(load_demo_bundle(), label=label, **kwargs)  # type: ignore[arg-type]


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
        return Tenant(runai.base_url, runai, kube_unavailable=KUBE_OFF.worded(kube_settings.named))

    def open_kube() -> KubeSource | KubeUnavailable:
        from core.sources.kube import open_kube_source  # the kubernetes client loads only when needed

        return open_kube_source(kube_settings, tap=tap)

    return Tenant(runai.base_url, runai, kube_opener=open_kube)
