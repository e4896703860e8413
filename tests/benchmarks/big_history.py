"""One workload with a long history (the shared OOM example, its history replaced by 20,000 records over 7 days),
for the benchmarks that measure how a diagnosis scales with history: CPU and round trips."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from core.diagnosis.request import DiagnosisRequest
from tests.paths import CASES

RECORDS = 20_000
PER_EPISODE = 20  # Pending, Running, 16 back-off events, the OOMKilled event, Failed
CLUSTER = "05664dde-1ea7-5931-81c6-fcd52b6608e7"
WORKLOAD = "9c272e2c-4cbd-59c9-ad76-2b982958772c"


def _ts(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def history(captured: datetime, pod: str, ns: str, records: int = RECORDS) -> list[dict[str, Any]]:
    """OOM failures and their back-off events, evenly over the last 7 days, newest ending at the failure."""
    episodes = records // PER_EPISODE
    span = timedelta(days=7) / episodes
    end_of_last = captured - timedelta(minutes=35)
    out: list[dict[str, Any]] = []

    def phase(at: datetime, name: str, message: str = "") -> None:
        out.append(
            {
                "meta": {"creationTimestamp": _ts(at), "type": "PhaseUpdate"},
                "spec": {"phaseUpdate": {"phase": name, "phaseMessage": message}},
            }
        )

    def event(at: datetime, reason: str, message: str, n: int) -> None:
        body = {
            "id": f"ev-{len(out)}-{n}",
            "createdAt": _ts(at),
            "type": "Warning",
            "clusterId": CLUSTER,
            "reason": reason,
            "message": message,
            "source": "kubelet",
            "involvedObject": {"uid": "u-pod", "kind": "Pod", "name": pod, "namespace": ns},
        }
        out.append({"meta": {"creationTimestamp": _ts(at), "type": "Event"}, "spec": {"event": body}})

    for i in range(episodes):
        end = end_of_last - span * (episodes - 1 - i)
        start = end - span * 0.9
        phase(start, "Pending")
        phase(start + timedelta(seconds=20), "Running")
        for k in range(PER_EPISODE - 4):
            event(
                start + timedelta(seconds=30 + k * 10),
                "BackOff",
                f"Back-off restarting failed container main in pod {pod}",
                k,
            )
        event(end - timedelta(seconds=5), "OOMKilled", "Container main was OOM killed", 0)
        phase(end, "Failed", f"Workload failed: pod {pod} container main terminated (OOMKilled)")
    return out


def big_case(*, tier2: bool = False, records: int = RECORDS) -> tuple[dict[str, Any], datetime]:
    """The OOM example with a long history; without its Kubernetes section unless `tier2`."""
    data = json.loads((CASES / "example-oom.json").read_text(encoding="utf-8"))
    captured = datetime.fromisoformat(data["capturedAt"].replace("Z", "+00:00")).astimezone(UTC)
    entry = data["workloads"][0]
    entry["history"] = history(captured, entry["pods"][0]["name"], entry["workload"]["namespace"], records)
    # The workload is as old as its history (the example's own createdAt is the last submission's).
    entry["workload"]["createdAt"] = min(r["meta"]["creationTimestamp"] for r in entry["history"])
    if not tier2:
        data.pop("kubernetes", None)
    return data, captured


def write_big_case(directory: Path, **kwargs: Any) -> tuple[Path, datetime]:
    data, captured = big_case(**kwargs)
    path = directory / "big-history.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path, captured


def request(captured: datetime) -> DiagnosisRequest:
    return DiagnosisRequest(cluster_id=CLUSTER, workload_id=WORKLOAD, lookback="7d", now=captured)
