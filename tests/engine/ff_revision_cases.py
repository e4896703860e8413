"""Issue 23, class 3: an inference whose newest revision fails while an older one still serves.

The revisions are shaped as Run:ai's SDK (runapy 1.224.0, `Revision`) has them: a workload's fields for each
revision, its `phase` one of the workload phases. The revisions list and a revision's pods are not paged. The
workload's own pods are the serving revision's, healthy; only the failing revision's pods, events and log say
what is wrong.
"""

from __future__ import annotations

from core.sim.demo.kit import (
    GI,
    Json,
    Story,
    cstatus,
    node,
    running,
    terminated,
    ts,
    uid,
    waiting,
)
from core.sim.demo.runai import revision_json, revision_pod_json

Case = tuple[list[Story], Json, Json]
VLLM = "vllm/vllm-openai:v0.6.4"
HF_MISSING = (
    "INFO 11-30 11:58:41 api_server.py:528] vLLM API server version 0.6.4\n"
    "INFO 11-30 11:58:41 api_server.py:529] args: Namespace(host=None, port=8000, "
    "model='meta-llama/Llama-3.1-8B-Instructt', tensor_parallel_size=1)\n"
    "Traceback (most recent call last):\n"
    '  File "/usr/local/lib/python3.12/dist-packages/transformers/utils/hub.py", line 403, in cached_file\n'
    "    resolved_file = hf_hub_download(\n"
    "huggingface_hub.errors.RepositoryNotFoundError: 404 Client Error. (Request ID: Root=1-674af0d1-2c1b)\n"
    "Repository Not Found for url: https://huggingface.co/meta-llama/Llama-3.1-8B-Instructt/resolve/main/"
    "config.json.\n"
    "\n"
    "The above exception was the direct cause of the following exception:\n"
    "\n"
    "Traceback (most recent call last):\n"
    '  File "/usr/local/bin/vllm", line 8, in <module>\n'
    "    sys.exit(main())\n"
    "OSError: meta-llama/Llama-3.1-8B-Instructt is not a local folder and is not a valid model identifier listed "
    "on 'https://huggingface.co/models'\n"
    "If this is a private repository, make sure to pass a token having permission to this repo either by logging "
    "in with `huggingface-cli login` or by passing `token=<your_token>`\n"
)


def _req(s: Story) -> Json:
    return {"cluster_id": s.cluster, "workload_id": s.id}


def sdk_revision(s: Story, number: int, phase: str, created: float, *, phase_at: float, running_pods: int,
                 image: str, message: str = "") -> Json:
    """A revision as the SDK's `Revision` model reads it (every required key, the optional ones a tenant sends)."""
    revision = revision_json(s, uid("revision", s.key, str(number)), f"{s.name}-{number:05d}", phase, created, image)
    revision.update({
        "deletedAt": None,
        "requestedPods": {"number": 2, "min": 1, "max": 4},
        "runningPods": running_pods,
        "environmentVariables": {},
        "command": s.command,
        "arguments": s.args or None,
        "conditions": [],
        "phaseMessage": message,
        "phaseUpdatedAt": ts(phase_at),
    })
    return revision


def _revision_pod(s: Story, name: str, phase: str, created: float, updated: float, node_name: str) -> Json:
    """A revision's pod in the SDK's shape (the kit's), with the resources Run:ai reports for it."""
    pod = revision_pod_json(s, name, created, updated, phase, node_name)
    pod["requestedResources"] = {"cpuMemory": {"request": s.mem[0], "limit": s.mem[1]}}
    pod["allocatedResources"] = {"gpu": s.gpu, "cpuMemory": s.mem[0]}
    return pod


def _serving(key: str, name: str, *, mem: tuple[str, str]) -> Story:
    """An inference serving from its first revision for three days; a second revision was made 45 min ago."""
    s = Story(key, name, "genai", "Running", phase_at=4320, created=4330, kind="Inference", image=VLLM, mem=mem,
              command="vllm serve", running_pods=2, requested_pods=2, submitted_by="sofia@example.com")
    s.add_phase(s.created, "Pending").add_phase(4320, "Running")
    for i in range(2):
        old = s.add_pod(node=f"gpu-r-1{i}", created=4325, k8s_phase="Running", updated=4320, index=i)
        s.add_kube_pod(old, [cstatus("main", s.image, running(4320))], phase="Running")
        s.nodes.append(node(f"gpu-r-1{i}"))
    return s


def _back_off(s: Story, pod: str, pod_id: str, at: float) -> Json:
    message = f"Back-off restarting failed container main in pod {pod}_{s.ns}({pod_id})"
    return s.add_event(at, "BackOff", message, pod=pod, obj_uid=pod_id)


def case_revision_newest_crash_loops() -> Case:
    """llm-chat-00002 (phase Initializing, never ready) crash-loops on a model id with a typo; 00001 serves."""
    s = _serving("ff-rev-01", "llm-chat", mem=("48Gi", "48Gi"))
    pod = f"{s.name}-00002-deployment-6d8f9c7b5-q7kzx"
    pod_id = uid("pod", s.key, pod)
    event = _back_off(s, pod, pod_id, 0.8)
    rev1 = sdk_revision(s, 1, "Running", 4330, phase_at=4320, running_pods=2, image=VLLM)
    rev2 = sdk_revision(s, 2, "Initializing", 45, phase_at=44, running_pods=0, image=VLLM,
                        message="Waiting for the revision's pods to become ready")
    listed = _revision_pod(s, pod, "CrashLoopBackOff", 44.5, 0.8, "gpu-r-12")
    s.inference_revisions = [
        {"revision": rev1, "pods": [_revision_pod(s, f"{s.name}-00001-deployment-5b7c-{i}", "Running", 4325,
                                                   4320, f"gpu-r-1{i}") for i in range(2)]},
        {"revision": rev2, "pods": [listed], "events": [event],
         "history": [{"meta": {"creationTimestamp": ts(45), "type": "PhaseUpdate"},
                      "spec": {"phaseUpdate": {"phase": "Initializing", "phaseMessage": rev2["phaseMessage"]}}},
                     {"meta": {"creationTimestamp": ts(0.8), "type": "Event"}, "spec": {"event": event}}]},
    ]
    plan = s.add_pod(node="gpu-r-12", created=44.5, k8s_phase="CrashLoopBackOff", updated=0.8, index=9)
    s.pods.remove(plan)  # the workload's own pods list only the serving revision's; Kubernetes has them all
    plan.name, plan.uid = pod, pod_id
    back_off = f"back-off 5m0s restarting failed container=main pod={pod}_{s.ns}({pod_id})"
    s.add_kube_pod(plan, [cstatus("main", s.image, waiting("CrashLoopBackOff", back_off),
                                  terminated("Error", 1, 1.6, 0.9), restarts=11)], phase="Running")
    s.add_kube_event(0.8, "BackOff", "Back-off restarting failed container main in pod " + pod, pod=pod, count=143,
                     first=43)
    s.add_log(pod, HF_MISSING, previous=True)
    s.nodes.append(node("gpu-r-12"))
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR",
        "evidence": [f"Revision {s.name}-00002", "Initializing", "is not a local folder"],
        "recommendations": ["is not a local folder"],
        "paths": [r"/inferences/[^/]+/revisions$", r"/inferences/revisions/[^/]+/pods$"],
        "noQueries": [[r"/revisions$", "limit"], [r"/revisions$", "offset"], [r"/revisions/[^/]+/pods$", "limit"]],
    }


def case_revision_oom_at_start_tier1_only() -> Case:
    """embed-api-00003 (phase Failed) is OOM-killed at every start; 00002 serves. No Kubernetes access: only the
    revision's pods and events can tell, and the workload's own feeds say no more than a back-off."""
    s = _serving("ff-rev-02", "embed-api", mem=("12Gi", "12Gi"))
    pod = f"{s.name}-00003-deployment-84f6b9d7c-m2w9r"
    pod_id = uid("pod", s.key, pod)
    _back_off(s, pod, pod_id, 2)
    rev2 = sdk_revision(s, 2, "Running", 4330, phase_at=4320, running_pods=2, image=VLLM)
    rev3 = sdk_revision(s, 3, "Failed", 95, phase_at=60, running_pods=0, image=VLLM,
                        message=f"Revision {s.name}-00003 failed to become ready")
    oom = {"id": uid("event", s.key, "oom"), "createdAt": ts(2.2), "type": "Warning", "clusterId": s.cluster,
           "reason": "OOMKilled", "message": "Container main was OOM killed", "source": "kubelet",
           "involvedObject": {"uid": pod_id, "kind": "Pod", "name": pod, "namespace": s.ns}}
    s.inference_revisions = [
        {"revision": rev2},
        {"revision": rev3, "pods": [_revision_pod(s, pod, "OOMKilled", 94, 2.2, "gpu-r-13")], "events": [oom]},
    ]
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "OOM_KILLED",
        "evidence": [f"Revision {s.name}-00003", "Failed", "OOMKilled"],
        "memory": {"limitBytes": 12 * GI},
        "paths": [r"/inferences/revisions/[^/]+/pods$", r"/inferences/revisions/[^/]+/events$"],
        "bundle": {"kube": False},
    }


CASES = {
    "revision-newest-crash-loops": case_revision_newest_crash_loops,
    "revision-oom-at-start-tier1-only": case_revision_oom_at_start_tier1_only,
}
