"""The simulator in a process of its own: `python -m core.sim.child --demo | --case FILE`.

The terminal app starts it first thing (see core.sim.process), so the bundle loads (the demo tenant is ~600,000
objects) on another core while the app loads its own modules, and every request is answered without taking the
app's GIL. It serves the bundle on 127.0.0.1 (a free port) exactly as the in-process loopback server does, then
writes one JSON line on stdout:
- ready: `{"url", "token", "kube_token", "captured_at", "kubernetes"}` (`kube_token` is null, and `kubernetes`
  false, when the bundle has no kubernetes section);
- a bundle that cannot be used: `{"error": "bundle", "message": ...}` (the BundleError's message), then it exits.
It serves until its stdin reaches EOF: its parent closed it, or died (even by SIGKILL: the kernel closes the
pipe), so no server outlives the app. It ignores SIGINT for the same reason: its life is its parent's.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from collections.abc import Sequence
from typing import TextIO

# The keys of the ready line, shared with the parent's reader (core.sim.process).
READY_KEYS = ("url", "token", "kube_token", "captured_at", "kubernetes")
BUNDLE_ERROR = "bundle"


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m core.sim.child", description=(__doc__ or "").splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--demo", action="store_true", help="the built-in demo tenant")
    source.add_argument("--case", metavar="FILE", help="a runai-triage/case@1 bundle")
    # The demo tenant, moving (core.sim.live): its seed, speed, and the wall-clock second its clock starts at.
    parser.add_argument("--live", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--speed", type=float, default=1.0, help=argparse.SUPPRESS)
    parser.add_argument("--epoch", type=float, default=None, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def _say(out: TextIO, line: dict[str, object]) -> None:
    out.write(json.dumps(line) + "\n")
    out.flush()


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    out = sys.stdout
    # Imported here, after the arguments: what `--help` needs is argparse alone.
    import gc

    from core.sim.audit import requested as audit_requested
    from core.sim.bundle import BundleError, load_bundle
    from core.sim.control_plane import SESSION_TTL_S, ControlPlane
    from core.sim.loopback import LoopbackServer
    from core.sim.workload_index import index_of

    try:
        if args.demo:
            from core.sim.demo import load_demo_bundle

            bundle = load_demo_bundle()
        else:
            bundle = load_bundle(args.case)
    except BundleError as exc:
        _say(out, {"error": BUNDLE_ERROR, "message": str(exc)})
        return 1
    # Audited only for a test session that asked (core.sim.audit): then it reads what this process answered.
    if args.live and args.demo:
        from core.sim.live.plane import LiveControlPlane
        from core.sim.live.settings import LiveSettings

        live = LiveSettings(args.seed, args.speed, args.epoch)
        plane: ControlPlane = LiveControlPlane(bundle, live, audited=audit_requested(), log_limit=0)
    else:
        plane = ControlPlane(bundle, audited=audit_requested(), log_limit=0)  # nobody here reads what was asked
    server = LoopbackServer(plane)
    url = server.start()
    has_kube = plane.has_kubernetes
    bundle = plane.bundle  # a live tenant's, shifted to start now (core.sim.live.plane)
    token = plane.issue_token(ttl_s=SESSION_TTL_S)  # the app's session: it cannot refresh a ready token
    ready = (url, token, plane.kube_token if has_kube else None, bundle.captured_at.isoformat(), has_kube)
    _say(out, dict(zip(READY_KEYS, ready, strict=True)))
    # While the app still loads, the workload list is sorted newest first (how the picker first asks for it), so
    # its first page does not wait for that; a request that comes first waits for the sort, never sorts twice.
    index_of(bundle).prepare("phaseUpdatedAt", descending=True)
    # What was loaded lives as long as the process: no later collection needs to walk it again.
    gc.freeze()
    try:
        sys.stdin.read()  # until EOF: the parent closed the pipe or is gone
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
