"""Issue 23, class 6: a workload `type` however a tenant spells it reaches its kind's spec endpoint.

The SDK (runapy 1.224.0, `WorkloadType`) spells `DistributedInference`; tenants also send `Distributed Inference`
and other spellings. The client asks `/api/v1/workloads/distributed-inferences/{id}` for all of them, and the
simulator answers there for all of them, as the API does for a workload of that kind.
"""

from __future__ import annotations

from core.sim.demo.kit import GI, Json, Story, cstatus, node, terminated
from tests.engine.test_rule_cases import lifecycle

Case = tuple[list[Story], Json, Json]
VLLM = "vllm/vllm-openai:v0.6.4"


def distributed_inference(key: str, name: str, kind: str) -> Story:
    """A leader and a worker (LeaderWorkerSet under the hood); the worker is OOM-killed loading its shard."""
    s = Story(key, name, "genai", "Failed", phase_at=12, created=200, kind=kind, gpu=8, requested_pods=2,
              image=VLLM, mem=("64Gi", "64Gi"), command="vllm serve",
              extra_spec={
                  "leader": {"image": VLLM, "command": "vllm serve meta-llama/Llama-3.1-405B --tensor-parallel-size 16",
                             "compute": {"cpuMemoryRequest": "128Gi", "cpuMemoryLimit": "128Gi"}},
                  "worker": {"image": VLLM, "command": "ray start --block --address=$(LWS_LEADER_ADDRESS):6379",
                             "compute": {"cpuMemoryRequest": "96Gi", "cpuMemoryLimit": "96Gi"}},
                  "workers": 1, "restartPolicy": "RecreateGroupOnPodRestart",
              })
    lifecycle(s, 190, 12, "Failed", "")
    leader = s.add_pod(node="gpu-h-20", created=195, k8s_phase="Error", updated=12 - 4 / 60, role="leader",
                       completed=12 - 4 / 60, reports_resources=False)
    worker = s.add_pod(node="gpu-h-21", created=195, k8s_phase="OOMKilled", updated=12, role="worker", index=1,
                       completed=12, reports_resources=False)
    s.phase_message = f"Workload failed: pod {worker.name} container main terminated (OOMKilled)"
    s.history[-1]["spec"]["phaseUpdate"]["phaseMessage"] = s.phase_message
    s.add_kube_pod(worker, [cstatus("main", VLLM, terminated("OOMKilled", 137, 190, 12))], phase="Failed")
    s.add_kube_pod(leader, [cstatus("main", VLLM, terminated("Error", 1, 190, 12 - 4 / 60))], phase="Failed")
    s.nodes += [node("gpu-h-20"), node("gpu-h-21")]
    s.reports_pod_resources = False
    return s


def case_kind_distributed_inference_spaced() -> Case:
    s = distributed_inference("ff-kind-01", "llama-405b-lws", "Distributed Inference")
    return [s], {"cluster_id": s.cluster, "workload_id": s.id}, {
        "outcome": "diagnosed", "category": "OOM_KILLED", "recurrence": 1,
        "firstFailure": "llama-405b-lws-worker-1", "orderSorted": True,
        "paths": [r"^/api/v1/workloads/distributed-inferences/"],
        "evidence": ["Submitted command (worker): ray start", "Submitted CPU memory request/limit (leader): 128Gi"],
        "memory": {"limitBytes": 96 * GI, "pod": "llama-405b-lws-worker-1"},
        "noMissing": ["kind-specific spec"],
    }


CASES = {"kind-distributed-inference-spaced": case_kind_distributed_inference_spaced}
