"""`runai-triage serve`: the simulated Run:ai control plane and Kubernetes API on loopback."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from pathlib import Path
from typing import TextIO

from core.plural import plural
from core.sim.bundle import BundleError, CaseBundle, load_bundle
from core.sim.control_plane import ControlPlane, RecordedRequest
from core.sim.fault_kinds import KINDS
from core.sim.kubeconfig import write_kubeconfig
from core.sim.loopback import LoopbackServer
from tui.commands.headless import command_parser, epilog, say
from tui.commands.start import BUNDLE_HINTS

PROG = "runai-triage serve"


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command_parser(
        subparsers,
        "serve",
        help="serve a case bundle (or the demo tenant) as a simulated Run:ai + Kubernetes API on loopback",
        description=(
            "Serve a case bundle as the Run:ai REST API and the Kubernetes API on 127.0.0.1, until Ctrl-C or "
            "SIGTERM. It prints the URL and how to authenticate on stdout."
        ),
        epilog=epilog(
            [
                "runai-triage serve --demo --kubeconfig-out sim-kubeconfig.yaml",
                "runai-triage serve --demo --live --seed 7",
                "runai-triage serve --case incident.json --port 8080 --latency-ms 50 --request-log requests.jsonl",
            ],
            "  0  stopped by Ctrl-C or SIGTERM\n"
            "  1  could not start: an unusable bundle, a port in use\n"
            "  2  usage error: a malformed option, a --request-log or --kubeconfig-out that cannot be written",
            "A bundle's \"faults\" inject failures on the paths they match: HTTP errors (with Retry-After), hangs,\n"
            "dropped connections, raw bodies, and with \"kind\" hostile answers:\n"
            "  " + ", ".join(sorted(KINDS)) + "\n(see core/sim/fault_kinds.py).\n"
            "Then, in another shell, for example:\n"
            "  RUNAI_CLIENT_ID=any RUNAI_CLIENT_SECRET=any runai-triage diagnose --base-url URL \\\n"
            "    --kubeconfig sim-kubeconfig.yaml --cluster-id demo-east --name llama-ft-7b --project nlp",
        ),
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--case", metavar="FILE", help="a runai-triage/case@1 bundle (.json or .json.gz)")
    source.add_argument("--demo", action="store_true", help="the built-in demo tenant")
    parser.add_argument(
        "--live", action="store_true",
        help="with --demo: a moving tenant, where workloads start, crash, restart and fail on a schedule",
    )
    parser.add_argument("--seed", type=int, metavar="N", help="with --demo --live: which schedule (default 1)")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (default 0: any free port)")
    parser.add_argument(
        "--latency-ms", type=float, default=0.0, metavar="MS", help="delay added to every response (default 0)"
    )
    parser.add_argument("--request-log", metavar="FILE", help="append every request as a JSON line to FILE")
    parser.add_argument("--kubeconfig-out", metavar="FILE", help="write a kubeconfig for the simulated Kubernetes API")
    parser.set_defaults(handler=run_serve)


def _load(args: argparse.Namespace) -> CaseBundle:
    if args.demo:
        from core.sim.demo import load_demo_bundle

        return load_demo_bundle()
    return load_bundle(args.case)


class _RequestLog:
    """Every request the control plane answers, one JSON object a line, written as it is answered (the plane keeps
    no log of its own here: a simulator serving for days must not grow with its requests)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()

    def __call__(self, entry: RecordedRequest) -> None:
        record = {
            "method": entry.method, "path": entry.path, "query": list(entry.query), "status": entry.status,
            "kube": entry.kube,
        }
        line = json.dumps(record) + "\n"
        with self._lock:
            self._stream.write(line)

    def flush(self) -> None:
        with self._lock:
            self._stream.flush()


def run_serve(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    if not 0 <= args.port <= 65535:
        say(sys.stderr, f"{PROG}: error: --port {args.port} is not a TCP port (0-65535; 0 picks a free one)")
        return 2
    if args.latency_ms < 0:
        say(sys.stderr, f"{PROG}: error: --latency-ms {args.latency_ms:g} must not be negative")
        return 2
    if (args.live and not args.demo) or (args.seed is not None and not args.live):
        what = "--live goes with --demo: a recorded case stays as recorded" if args.live else "--seed goes with --live"
        say(sys.stderr, f"{PROG}: error: {what}")
        return 2
    try:
        bundle = _load(args)
    except BundleError as exc:
        say(sys.stderr, f"{PROG}: the case bundle cannot be used: {exc}")
        say(sys.stderr, f"  {BUNDLE_HINTS[0]}")
        return 1
    # The request log is opened before anything is served: a path it cannot write is a usage error now, not a
    # traceback after the "Serving" lines.
    try:
        log_file = open(args.request_log, "a", encoding="utf-8") if args.request_log else None  # noqa: SIM115
    except OSError as exc:
        say(sys.stderr, f"{PROG}: error: --request-log {args.request_log}: {exc.strerror or exc}")
        return 2
    try:
        return _serve(args, bundle, log_file, out)
    finally:
        if log_file:
            log_file.close()


def _control_plane(args: argparse.Namespace, bundle: CaseBundle, log: _RequestLog | None) -> ControlPlane:
    # No request is kept in memory: the ones asked for go to --request-log as they are answered.
    kept = {"latency_ms": args.latency_ms, "log_limit": 0, "log_sink": log}
    if not args.live:
        return ControlPlane(bundle, **kept)  # type: ignore[arg-type]
    from core.sim.live.plane import LiveControlPlane
    from core.sim.live.settings import DEFAULT_SEED, LiveSettings

    seed = DEFAULT_SEED if args.seed is None else args.seed
    return LiveControlPlane(bundle, LiveSettings(seed=seed), **kept)


def _serve(args: argparse.Namespace, bundle: CaseBundle, log_file: TextIO | None, out: TextIO) -> int:
    log = _RequestLog(log_file) if log_file else None
    control_plane = _control_plane(args, bundle, log)
    server = LoopbackServer(control_plane, port=args.port)
    try:
        url = server.start()
    except OSError as exc:
        say(sys.stderr, f"{PROG}: cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}")
        say(sys.stderr, "  Choose another port with --port PORT, or leave it out for any free one.")
        return 1
    kubeconfig = Path(args.kubeconfig_out) if args.kubeconfig_out else None
    if kubeconfig is not None:
        try:
            write_kubeconfig(kubeconfig, url, control_plane.kube_token)
        except OSError as exc:
            server.stop()
            say(sys.stderr, f"{PROG}: error: --kubeconfig-out {kubeconfig}: {exc.strerror or exc}")
            return 2
    token = control_plane.issue_token()
    print(f"Serving {bundle.source} ({plural(len(bundle.workloads), 'workload')}) at {url}", file=out)
    if args.live:
        start = control_plane.bundle.captured_at.isoformat()
        print(f"Live: on your clock from {start} (the demo's stories shifted to end then); workloads are "
              f"submitted, crash and fail on the schedule of seed {args.seed if args.seed is not None else 1}",
              file=out)
    print("Authenticate with either of:", file=out)
    print(f"  export RUNAI_BASE_URL={url} RUNAI_BEARER_TOKEN={token}", file=out)
    print(f"  export RUNAI_BASE_URL={url} RUNAI_CLIENT_ID=any RUNAI_CLIENT_SECRET=any", file=out)
    print("  (POST /api/v2/token or /api/v1/token hands out a token for any client id and secret)", file=out)
    if kubeconfig is not None:
        print(f"Kubernetes API: kubeconfig written to {kubeconfig} (export KUBECONFIG={kubeconfig})", file=out)
    else:
        print("Kubernetes API: same address; pass --kubeconfig-out FILE for a kubeconfig", file=out)
    print("Press Ctrl-C to stop.", file=out)
    out.flush()
    return _serve_until_stopped(server, log)


def _serve_until_stopped(server: LoopbackServer, log: _RequestLog | None) -> int:
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        while not stop.wait(0.2):
            if log:
                log.flush()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
        if log:
            log.flush()
    return 0
