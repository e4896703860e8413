"""Multi-pod bundles that repeat themselves (issue 34, point 6): what a report must say once per message and
state, naming the pods, however many pods said it. Registered among tests/engine/test_multipod_cases.py's
builders (written to tests/cases/multipod/ with its `--write`).

- a 9-pod PyTorchJob whose every pod exited 1: the training operator's "Pod: ns.X exited with code 1" once per
  pod, and the kubelet's state once per pod;
- three workers OOM-killed within seconds, Run:ai's OOMKilled event on each, and no CPU-memory samples in any
  worker's own series: the "no samples" line and the Missing line once per pod.
"""

from __future__ import annotations

from typing import Any

from core.sim.demo.kit import GI, Json, Story, cstatus, lifecycle, node, terminated

S = 1 / 60  # a second, in the stories' minutes-ago units
Case = tuple[list[Story], Json, Json]
TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/workspace/train.py", line 88, in <module>\n'
    "    batch = next(loader)\n"
    "KeyError: 'attention_mask'\n"
)


def _job(key: str, name: str, pods: int, **kw: Any) -> Story:
    s = Story(key, name, "nlp", "Failed", phase_at=30, created=120, kind="Distributed", gpu=8, requested_pods=pods,
              command="torchrun train.py", **kw)
    lifecycle(s, 110, 30, "Failed", "")
    return s


def _diagnosed(category: str, **expect: Any) -> Json:
    return {"outcome": "diagnosed", "category": category, "recurrence": 1, **expect}


def case_fold_nine_pods_exit_one() -> Case:
    """Every pod of a 9-pod job exited 1 (the same KeyError on each rank), the master first."""
    s = _job("mp-fold-01", "t5-xl-ddp", 9, mem=("64Gi", "64Gi"))
    plans = []
    for i in range(9):
        role, index = ("master", 0) if i == 0 else ("worker", i - 1)
        end = 30 - i * S
        plan = s.add_pod(node=f"gpu-f-{i:02d}", created=115, k8s_phase="Error", updated=end, role=role, index=index,
                         completed=end)
        s.add_kube_pod(plan, [cstatus("main", s.image, terminated("Error", 1, 112, end))], phase="Failed")
        s.add_log(plan.name, TRACEBACK)
        s.nodes.append(node(plan.node or ""))
        s.add_event(end, "ExitedWithCode", f"Pod: {s.ns}.{plan.name} exited with code 1", type_="Normal",
                    source="pytorchjob-controller", kind="PyTorchJob", obj_name=s.name)
        plans.append(plan)
    s.add_event(30 - 9 * S, "PyTorchJobFailed", f"PyTorchJob {s.ns}/{s.name} is failed because 1 Master replica(s) "
                "failed.", type_="Normal", source="pytorchjob-controller", kind="PyTorchJob", obj_name=s.name)
    return [s], {"cluster_id": s.cluster, "workload_id": s.id}, _diagnosed("CRASH_APP_ERROR",
                                                                            firstFailure=plans[0].name)


def case_fold_three_workers_oom_no_samples() -> Case:
    """Three of four workers OOM-killed seconds apart; no worker's own series holds a sample."""
    s = _job("mp-fold-02", "llm-sft", 4, mem=("32Gi", "32Gi"))
    plans = []
    for i in range(4):
        oom = i < 3
        end = 30 - i * S
        plan = s.add_pod(node=f"gpu-g-{i:02d}", created=115, k8s_phase="OOMKilled" if oom else "Error", updated=end,
                         role="worker", index=i, completed=end)
        reason, code = ("OOMKilled", 137) if oom else ("Error", 143)
        s.add_kube_pod(plan, [cstatus("main", s.image, terminated(reason, code, 112, end))], phase="Failed")
        s.nodes.append(node(plan.node or ""))
        if oom:
            s.add_event(end, "OOMKilled", "Container main was OOM killed", pod=plan.name)
        s.pod_metrics[plan.uid] = [{"type": "CPU_MEMORY_USAGE_BYTES", "labels": None, "values": []}]
        plans.append(plan)
    s.add_series("CPU_MEMORY_USAGE_BYTES", [])
    return [s], {"cluster_id": s.cluster, "workload_id": s.id}, _diagnosed(
        "OOM_KILLED", memory={"limitBytes": 32 * GI, "peakBytes": None}, firstFailure=plans[0].name
    )
