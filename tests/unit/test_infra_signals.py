"""Infrastructure signals where the real evidence sits: node health conditions of several detectors, the Run:ai
cluster's status in any shape, container termination messages, and the findings' rules (the cascade victim, the
application's own GPU faults, what explains a failure)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from core.diagnosis.infra import Scope, first_failed_pod, infra_findings
from core.diagnosis.observations import Observation
from core.diagnosis.signals import SignalKind, classify_message, node_signals, pod_signals
from core.diagnosis.signals.control_plane import CLUSTER_STATES, cluster_health
from core.diagnosis.signals.node_health import failing
from core.diagnosis.signals.node_pressure import eviction_usage, node_short
from core.diagnosis.signals.xid import xid_in
from core.models.kube import K8sNode, K8sPod
from core.models.runai import RunaiPod

K = SignalKind
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _node(*conditions: dict[str, Any]) -> K8sNode:
    return K8sNode.model_validate({"metadata": {"name": "gpu-1"}, "status": {"conditions": list(conditions)}})


@pytest.mark.parametrize(
    ("condition", "kind"),
    [
        # EKS node monitoring agent
        ({"type": "AcceleratedHardwareReady", "status": "False", "reason": "NvidiaXID79Error",
          "message": "NVRM: Xid (PCI:0000:9b:00): 79, pid='<unknown>', GPU has fallen off the bus."}, K.GPU_HARDWARE),
        ({"type": "AcceleratedHardwareReady", "status": "False", "reason": "NvidiaDoubleBitError",
          "message": "double bit error detected"}, K.GPU_HARDWARE),
        # AKS node problem detector
        ({"type": "GPUMissing", "status": "True", "reason": "GPUMissing",
          "message": "Expected 8 GPUs, found 7"}, K.GPU_HARDWARE),
        ({"type": "InfiniBandLinkFlapping", "status": "True", "reason": "IBLinkFlapping",
          "message": "mlx5_0 port 1 link flapped 6 times in 10m"}, K.NETWORK_FABRIC),
        # A detector's driver check
        ({"type": "NvidiaDriverHealthy", "status": "False", "reason": "DriverMismatch",
          "message": "Failed to initialize NVML: Driver/library version mismatch"}, K.GPU_DRIVER),
    ],
)
def test_node_health_conditions_of_several_detectors(condition: dict[str, Any], kind: SignalKind) -> None:
    assert [s.kind for s in node_signals(_node(condition))] == [kind]


@pytest.mark.parametrize(
    "condition",
    [
        {"type": "AcceleratedHardwareReady", "status": "True", "reason": "Healthy", "message": "all GPUs healthy"},
        {"type": "GPUMissing", "status": "False", "reason": "NoGPUMissing", "message": "8 of 8 GPUs present"},
        {"type": "KernelDeadlock", "status": "False", "reason": "KernelHasNoDeadlock"},
        {"type": "FrequentKubeletRestart", "status": "True", "reason": "FrequentKubeletRestart"},  # not our kinds
    ],
)
def test_healthy_or_unrelated_conditions_give_nothing(condition: dict[str, Any]) -> None:
    assert node_signals(_node(condition)) == []


def test_condition_polarity() -> None:
    assert failing("AcceleratedHardwareReady", "False") and failing("AcceleratedHardwareReady", "Unknown")
    assert not failing("AcceleratedHardwareReady", "True")
    assert failing("GPUXIDErrors", "True") and not failing("GPUXIDErrors", "False")


@pytest.mark.parametrize(
    ("status", "liveness", "flagged"),
    [
        ("Disconnected", None, True),
        ({"state": "Disconnected"}, None, True),
        ({"displayedStatus": {"state": "ServiceIssues", "message": "cluster sync failed"}}, None, True),
        ({"conditions": [{"type": "Connected", "status": "False", "reason": "SyncLost"}]}, None, True),
        ("Connected", NOW - timedelta(hours=2), True),  # says Connected, has not reported for 2 h
        ("Connected", NOW - timedelta(minutes=1), False),
        ({"state": "Connected"}, None, False),
        ({"state": "Connected", "message": "all services up; 0 failures, 0 lost heartbeats"}, None, False),
        (None, None, False),
        (42, None, False),  # a shape we do not know is read as nothing, not as a fault
        ([[[[["Disconnected"]]]]], None, False),  # nested past the depth we read
    ],
)
def test_cluster_status_is_read_tolerantly(status: Any, liveness: datetime | None, flagged: bool) -> None:
    health = cluster_health("edge", status, liveness, NOW)
    assert (health.signal is not None) is flagged, health
    if flagged:
        assert health.signal is not None and health.signal.kind is K.CONTROL_PLANE
        assert "edge" in health.signal.detail


def _condition(type_: str, status: str, reason: str, message: str) -> dict[str, str]:
    return {"type": type_, "status": status, "reason": reason, "message": message,
            "lastTransitionTime": "2026-11-30T10:00:00Z"}


@pytest.mark.parametrize("state", [s for s in CLUSTER_STATES if s != "Connected"])
def test_every_cluster_state_but_connected_is_a_finding_naming_it_and_its_failing_conditions(state: str) -> None:
    status = {
        "state": state,
        "conditions": [
            _condition("Connected", "True", "ClusterConnected", "the cluster is connected"),
            _condition("ServicesReady", "False", "ServiceNotReady", "runai-scheduler: 0/1 replicas available"),
            _condition("PrerequisitesMet", "Unknown", "PrometheusMissing", "prometheus operator not found"),
        ],
    }
    assert len(CLUSTER_STATES) == 6
    health = cluster_health("edge", status, NOW - timedelta(minutes=1), NOW)
    assert health.signal is not None and health.signal.kind is K.CONTROL_PLANE
    detail = health.signal.detail
    assert f"reports state {state}" in detail
    assert "ServicesReady False: ServiceNotReady: runai-scheduler: 0/1 replicas available" in detail
    assert "PrerequisitesMet Unknown: PrometheusMissing: prometheus operator not found" in detail
    assert "ClusterConnected" not in detail  # a condition that holds is not a failing one
    assert "last reported" in detail and health.status is not None and state in health.status


def test_a_connected_cluster_that_reports_is_no_finding_and_a_stale_one_is() -> None:
    status = {"state": "Connected", "conditions": [_condition("Connected", "True", "ClusterConnected", "ok")]}
    assert cluster_health("east", status, NOW - timedelta(minutes=1), NOW).signal is None
    stale = cluster_health("east", status, NOW - timedelta(hours=3), NOW)
    assert stale.signal is not None and "reports state" not in stale.signal.detail
    assert "(3 h before now)" in stale.signal.detail  # an age in the unit a person reads (issue 27, point 9)


def test_a_state_without_conditions_or_with_many_is_named_within_bounds() -> None:
    bare = cluster_health("edge", {"state": "ServiceIssues"}, None, NOW)
    assert bare.signal is not None and bare.signal.detail == "Run:ai cluster edge reports state ServiceIssues"
    many = {"state": "ServiceIssues", "conditions": [_condition(f"C{i}", "False", "R", "m" * 500) for i in range(9)]}
    detail = cluster_health("edge", many, None, NOW).signal.detail  # type: ignore[union-attr]
    assert "4 more failing condition(s)" in detail and len(detail) < 1200


def test_toolkit_start_error_gives_the_start_error_and_the_driver_fault() -> None:
    found = classify_message(
        "StartError",
        "failed to create containerd task: ... error running hook #0: error running hook: exit status 1, stdout: , "
        "stderr: nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown",
    )
    assert [s.kind for s in found] == [K.START_ERROR, K.GPU_DRIVER]


def test_termination_message_keeps_its_infrastructure_signal() -> None:
    pod = K8sPod.model_validate(
        {
            "metadata": {"name": "p-0"},
            "status": {
                "containerStatuses": [
                    {
                        "name": "main",
                        "state": {
                            "terminated": {
                                "exitCode": 1,
                                "reason": "Error",
                                "message": "RuntimeError: CUDA error: uncorrectable ECC error encountered",
                            }
                        },
                    }
                ]
            },
        }
    )
    assert [s.kind for s in pod_signals(pod)] == [K.APP_EXIT, K.GPU_HARDWARE]


def test_xid_tokens_of_detectors_and_the_device_plugin() -> None:
    assert xid_in("XidCriticalError: Xid=48 on Device=GPU-3c1f, the device will go unhealthy.").xid == 48  # type: ignore[union-attr]
    assert xid_in("NvidiaXID94Error").xid == 94  # type: ignore[union-attr]
    assert xid_in("oxidation 12 steps") is None


def test_eviction_words() -> None:
    usage = eviction_usage(
        "The node was low on resource: memory. Container main was using 61Gi, request is 16Gi, has larger "
        "consumption of memory."
    )
    assert usage is not None and (usage.used, usage.request, usage.resource) == ("61Gi", "16Gi", "memory")
    assert node_short("The node had condition: [DiskPressure]. ")
    assert not node_short("Pod ephemeral local storage usage exceeds the total limit of containers 1Gi.")


# -- the findings' rules ---------------------------------------------------------------------------------------
def _obs(text: str, pod: str | None, node: str | None = None, source: str = "kubectl logs --previous") -> Observation:
    signal = classify_message(None, text)[0]
    return Observation(signal, source, None, text, pod, node)


IB = "NCCL WARN NET/IB : Got completion from peer 10.0.0.7<4420> with status=12 opcode=0 len=0 vendor err 129 (Recv)"


def _scope(first: str | None, failed: str = "w-1", count: int = 4) -> Scope:
    return Scope("CRASH_APP_ERROR", failed, "gpu-2", first, count, True, NOW)


def test_fabric_error_on_the_first_failure_is_a_finding() -> None:
    found = infra_findings([_obs(IB, "w-1")], _scope(first="w-1"))
    assert [(f.kind, f.node, f.explains) for f in found] == [("network-fabric", "gpu-2", True)]


@pytest.mark.parametrize("first", ["w-0", None])
def test_a_cascade_victims_fabric_error_is_not_a_finding(first: str | None) -> None:
    # w-1 was torn down after w-0 died (or no order is known for the 4 pods): its IB error is the victim's.
    assert infra_findings([_obs(IB, "w-1")], _scope(first=first)) == []


def test_a_single_pod_needs_no_order() -> None:
    assert infra_findings([_obs(IB, "p-0")], _scope(first=None, failed="p-0", count=1))


def test_a_nodes_own_fabric_condition_counts_whatever_the_order() -> None:
    obs = node_signals(_node({"type": "InfiniBandLinkFlapping", "status": "True", "reason": "IBLinkFlapping"}))
    found = infra_findings(
        [Observation(obs[0], "kubectl describe node", None, "x", None, "gpu-2")], _scope(first="w-0")
    )
    assert [f.kind for f in found] == ["network-fabric"]


def test_gpu_fault_does_not_explain_an_oom_kill() -> None:
    scope = Scope("OOM_KILLED", "p-0", "gpu-2", "p-0", 1, True, NOW)
    found = infra_findings([_obs("RuntimeError: CUDA error: uncorrectable ECC error encountered", "p-0")], scope)
    assert [(f.kind, f.explains) for f in found] == [("gpu-hardware", False)]


def test_one_finding_per_kind_and_node_and_the_specific_xid_is_quoted() -> None:
    obs = [
        _obs("RuntimeError: CUDA error: uncorrectable ECC error encountered", "p-0"),
        _obs("NVRM: Xid (PCI:0000:b1:00): 48, pid=1, name=python, double bit error (DBE)", None, "gpu-2",
             "kubectl get events"),
    ]
    found = infra_findings(obs, Scope("CRASH_APP_ERROR", "p-0", "gpu-2", "p-0", 1, True, NOW))
    assert len(found) == 1 and "Xid 48" in found[0].text


def test_admission_explains_only_when_no_pod_ran() -> None:
    denied = _obs('Error creating: admission webhook "policy.example.com" denied the request: no', None, None,
                  "get_workload_status")
    assert infra_findings([denied], Scope("UNKNOWN", None, None, None, 0, False, NOW))[0].explains
    assert not infra_findings([denied], Scope("UNKNOWN", None, None, None, 2, True, NOW))[0].explains


def test_first_failed_pod_by_completion_time() -> None:
    def pod(name: str, minute: int) -> RunaiPod:
        return RunaiPod.model_validate(
            {"name": name, "k8sPhase": "Error", "completedAt": f"2026-11-30T11:{minute:02d}:00Z"}
        )

    assert first_failed_pod([pod("a", 20), pod("b", 19), pod("c", 21)]) == "b"
    assert first_failed_pod([pod("a", 20), pod("b", 20)]) is None  # a tie says nothing
    assert first_failed_pod([pod("only", 20)]) == "only"


# -- hostile text stays linear ---------------------------------------------------------------------------------
def _seconds(message: str, lines: list[str]) -> float:
    import time

    from core.diagnosis.log_scan import explaining_line, log_signals

    start = time.process_time()  # this process's CPU time: other processes on a busy machine do not count
    classify_message("FailedCreate", message)
    explaining_line(lines)
    log_signals(lines)
    return time.process_time() - start


@pytest.mark.parametrize(
    "unit",
    [
        "NET/IB : Got completion from peer ",
        "NVRM: Xid (PCI:0000:3b:00): ",
        'admission webhook "',
        "Allocate failed due to nvidia.com/gpu ",
        "ERROR 02-07 11:28:26 x.py:1] frame #1: ",
    ],
)
def test_adversarial_repeats_cost_linear_time(unit: str) -> None:
    # A message is matched on its first 64 KiB, a log is at most 500 lines of 2,000 characters (the source cuts
    # longer ones); within that, ten times the text may not cost much more than ten times the time (a nested or
    # unbounded pattern would).
    def text(chars: int) -> str:
        return (unit * (chars // len(unit) + 1))[:chars]

    small = _seconds(text(6_500), [text(200)] * 500)
    large = _seconds(text(65_000), [text(2_000)] * 500)
    assert large / max(small, 1e-3) < 40, f"10x the input took {large / small:.1f}x the time"


def test_the_advice_for_a_cluster_fits_its_state() -> None:
    from core.diagnosis.signals.control_plane import cluster_advice

    assert "services" in cluster_advice("Run:ai cluster a reports state ServiceIssues (x; y)")
    assert "prerequisites" in cluster_advice("Run:ai cluster a reports state MissingPrerequisites")
    assert "connection" in cluster_advice("Run:ai cluster a reports state Disconnected")
    assert "connection" in cluster_advice("Run:ai cluster a last reported to the control plane at ...")
