"""Issue 31, point 1: a signal that a later event took back is history, not the cause.

Each workload hit a start failure that the kubelet got past: Docker Hub's 429 and then the image pulled and the
container started, a volume that failed to attach and then mounted, an init container that failed once and then
completed, a node NotReady that was Ready again before the pod started. Each then ran for an hour or more and
ended in a failure of its own: that failure is the verdict, and the report says what was taken back and when.
Run:ai keeps the early events in its history and status events; the Kubernetes events of that time have expired.
The last case is the look-alike: a pull error after the last successful start stands.
"""

from __future__ import annotations

from core.sim.demo.kit import Json, Story, cstatus, node, terminated, uid, waiting
from tests.engine.test_rule_cases import error_message

Case = tuple[list[Story], Json, Json]

TORCH = "docker.io/pytorch/pytorch:2.4.1-cuda12.4-cudnn9-runtime"
HUB_429 = (
    f'Failed to pull image "{TORCH}": failed to pull and unpack image "{TORCH}": failed to copy: httpReadSeeker: '
    "failed open: unexpected status code https://registry-1.docker.io/v2/pytorch/pytorch/manifests/sha256:"
    "8f1c2a77d4e0b6a3c9e5f0d1b2a4c6e8f0a1b3c5d7e9f1a2b4c6d8e0f2a4b6c8: 429 Too Many Requests - Server message: "
    "toomanyrequests: You have reached your unauthenticated pull rate limit. https://www.docker.com/increase-rate-limit"
)
DATALOADER = (
    "epoch 4 step 2210 loss 0.881\n"
    "epoch 4 step 2220 loss 0.874\n"
    "Traceback (most recent call last):\n"
    '  File "/workspace/train.py", line 141, in <module>\n'
    "    for step, batch in enumerate(loader):\n"
    '  File "/opt/conda/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 1344, in _next_data\n'
    "    return self._process_data(data)\n"
    '  File "/opt/conda/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 1370, in _process_data\n'
    "    data.reraise()\n"
    "PIL.UnidentifiedImageError: Caught UnidentifiedImageError in DataLoader worker process 3.\n"
    "Original Traceback (most recent call last):\n"
    '  File "/workspace/data.py", line 58, in __getitem__\n'
    "    img = Image.open(path).convert(\"RGB\")\n"
    "PIL.UnidentifiedImageError: cannot identify image file '/data/imagenet/train/n01440764/n01440764_10026.JPEG'\n"
)


def _req(s: Story) -> Json:
    return {"cluster_id": s.cluster, "workload_id": s.id}


def _pulled(s: Story, pod: str, at: float, image: str, container: str = "main", took: str = "1m12.44s") -> None:
    """The kubelet's pull, create and start of one container (Normal events)."""
    s.add_event(at + 0.02, "Pulled", f'Successfully pulled image "{image}" in {took} ({took} including waiting). '
                "Image size: 3218604121 bytes.", type_="Normal", pod=pod)
    s.add_event(at + 0.01, "Created", f"Created container {container}", type_="Normal", pod=pod)
    s.add_event(at, "Started", f"Started container {container}", type_="Normal", pod=pod)


def case_pull_429_then_ran_an_hour() -> Case:
    """Docker Hub refused the pull (429) at 10:25 and again at 10:27:30; the kubelet's back-off retried and the
    pull went through at 10:31; the container ran 58 min and exited 1 in its data loader at 11:29."""
    s = Story("ff-res-01", "resnet50-ft", "vision", "Failed", phase_at=31, created=95.5, image=TORCH,
              command="torchrun --nproc-per-node 1 train.py")
    pod = s.add_pod(node="gpu-e-41", created=95.2, k8s_phase="Error", updated=31, completed=31)
    s.add_phase(s.created, "Pending")
    s.add_event(95, "Scheduled", f"Successfully assigned {s.ns}/{pod.name} to gpu-e-41", type_="Normal",
                source="kai-scheduler", pod=pod.name)
    for at in (95, 92.5):  # two pulls refused, each followed by the kubelet's back-off
        s.add_event(at, "Pulling", f'Pulling image "{TORCH}"', type_="Normal", pod=pod.name)
        s.add_event(at - 0.2, "Failed", HUB_429, pod=pod.name)
        s.add_event(at - 0.21, "Failed", "Error: ErrImagePull", pod=pod.name)
        s.add_event(at - 0.5, "BackOff", f'Back-off pulling image "{TORCH}"', type_="Normal", pod=pod.name)
        s.add_event(at - 0.51, "Failed", "Error: ImagePullBackOff", pod=pod.name)
    s.add_event(90.3, "Pulling", f'Pulling image "{TORCH}"', type_="Normal", pod=pod.name)
    _pulled(s, pod.name, 89, TORCH)
    s.add_phase(89, "Running")
    s.phase_message = error_message(pod.name, 1)
    s.add_phase(31, "Failed", s.phase_message)
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("Error", 1, 89, 31))], phase="Failed")
    s.add_log(pod.name, DATALOADER)
    s.nodes.append(node("gpu-e-41"))
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR", "recurrence": 1,
        "evidence": ["UnidentifiedImageError"],
        "superseded": [{"what": "image pull error", "count": 2}],
        "text": ["Resolved earlier, not the cause", "image pull error of 10:25-10:28 (registry rate limit, 2 attempts)",
                 "resolved at 10:31 (image pulled)", "then ran 58 min up to the failure"],
        "noRecommendations": ["rate limit", "registry", "pull secret"],
    }


def case_mount_failed_then_mounted() -> Case:
    """The checkpoint volume could not attach (Multi-Attach: still held by the node of a deleted pod) and then
    mounted once the old attachment was released; the job then ran almost two hours and failed on a shape
    mismatch while resuming from its checkpoint (exit 1)."""
    pvc = {"name": "ckpt", "claimName": "ckpt-neox", "path": "/ckpt", "existingPvc": True}
    s = Story("ff-res-02", "gpt-neox-sft", "nlp", "Failed", phase_at=8, created=130, gpu=8,
              mem=("512Gi", "512Gi"), command="python sft.py --resume /ckpt", storage={"pvc": [pvc]})
    pod = s.add_pod(node="gpu-e-43", created=129, k8s_phase="Error", updated=8, completed=8)
    s.add_phase(s.created, "Pending")
    s.add_event(128, "FailedAttachVolume", 'Multi-Attach error for volume "pvc-7f3c2d1e-9a8b-4c5d-8e7f-0a1b2c3d4e5f" '
                "Volume is already exclusively attached to one node and can't be attached to another",
                source="attachdetach-controller", pod=pod.name)
    for at in (126, 124):
        s.add_event(at, "FailedMount", "Unable to attach or mount volumes: unmounted volumes=[ckpt], "
                    "unattached volumes=[ckpt kube-api-access-9x2lp]: timed out waiting for the condition",
                    pod=pod.name)
    s.add_event(121.5, "SuccessfulAttachVolume", 'AttachVolume.Attach succeeded for volume '
                '"pvc-7f3c2d1e-9a8b-4c5d-8e7f-0a1b2c3d4e5f"', type_="Normal", source="attachdetach-controller",
                pod=pod.name)
    s.add_event(121, "Pulled", f'Container image "{s.image}" already present on machine', type_="Normal",
                pod=pod.name)
    s.add_event(120.9, "Created", "Created container main", type_="Normal", pod=pod.name)
    s.add_event(120.8, "Started", "Started container main", type_="Normal", pod=pod.name)
    s.add_phase(120.8, "Running")
    s.phase_message = error_message(pod.name, 1)
    s.add_phase(8, "Failed", s.phase_message)
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("Error", 1, 120.8, 8))], phase="Failed")
    s.add_kube_event(8.2, "BackOff", "Back-off restarting failed container main", pod=pod.name, type_="Normal")
    s.add_log(pod.name, "step 41000 loss 1.412\nsaving checkpoint to /ckpt/step_41000\nTraceback (most recent "
              "call last):\n  File \"/workspace/sft.py\", line 388, in save\n    torch.save(state, path)\n"
              "RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos 9771513152 vs "
              "9771513040\n")
    s.nodes.append(node("gpu-e-43"))
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR", "recurrence": 1,
        "superseded": [{"what": "volume mount failure"}],
        "text": ["volume mount failure of 09:52-09:56", "resolved at 09:59", "ran 1 h 52 min"],
        "noRecommendations": ["storage administrator"],
    }


def case_init_failed_once_then_completed() -> Case:
    """The init container that fetches the weights timed out on S3 once, was restarted and completed; the main
    container then ran 56 min and failed loading a checkpoint key (exit 1). The pod still shows both instances of
    the init container: lastState Error (exit 1), state Completed (exit 0)."""
    s = Story("ff-res-03", "llama-lora", "genai", "Failed", phase_at=20, created=82, restart_policy="OnFailure",
              command="python finetune.py")
    pod = s.add_pod(node="gpu-w-21", created=81.5, k8s_phase="Error", updated=20, completed=20)
    s.add_phase(s.created, "Pending")
    s.add_event(80, "Started", "Started container fetch-weights", type_="Normal", pod=pod.name)
    s.add_event(78.2, "BackOff", f"Back-off restarting failed container fetch-weights in pod {pod.name}_{s.ns}"
                f"({pod.uid})", pod=pod.name)
    s.add_event(77.8, "Started", "Started container fetch-weights", type_="Normal", pod=pod.name)
    s.add_event(76, "Started", "Started container main", type_="Normal", pod=pod.name)
    s.add_phase(76, "Running")
    s.phase_message = error_message(pod.name, 1)
    s.add_phase(20, "Failed", s.phase_message)
    s.add_kube_pod(
        pod, [cstatus("main", s.image, terminated("Error", 1, 76, 20))], phase="Failed",
        init_containers=["fetch-weights"],
        init_statuses=[cstatus("fetch-weights", "docker.io/amazon/aws-cli:2.17.0",
                               terminated("Completed", 0, 77.8, 76.2),
                               last=terminated("Error", 1, 80, 78.5, "Read timeout on endpoint URL"), restarts=1)],
    )
    s.add_log(pod.name, "loading base model from /weights\nTraceback (most recent call last):\n  File "
              "\"/workspace/finetune.py\", line 77, in <module>\n    model.load_state_dict(sd)\nRuntimeError: Error(s) "
              "in loading state_dict for LlamaForCausalLM: Missing key(s) in state_dict: "
              "\"model.embed_tokens.weight\".\n")
    s.nodes.append(node("gpu-w-21"))
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR", "recurrence": 1,
        "superseded": [{"what": "init container failure"}],
        "text": ["init container failure of 10:42 (container fetch-weights, exit 1)", "init container "
                 "fetch-weights completed", "ran 56 min"],
        "noRecommendations": ["init container"],
    }


def case_node_notready_before_start() -> Case:
    """A notebook's pod was bound to a node that went NotReady (its kubelet restarting) before the pod started;
    the node came back, the container started at 09:09 and the notebook then sat idle until the project's idle
    limit stopped it. The NotReady did not end anything."""
    s = Story("ff-res-04", "jupyter-alice", "research", "Stopped", phase_at=20, created=180, kind="Workspace",
              image="jupyter/pytorch-notebook:cuda12-python-3.11", command="start-notebook.py")
    pod = s.add_pod(node="gpu-e-44", created=179.5, k8s_phase="Succeeded", updated=20, completed=20)
    s.add_phase(s.created, "Pending")
    s.add_event(178, "NodeNotReady", "Node is not ready", source="node-controller", pod=pod.name)
    s.add_event(171.2, "Pulled", f'Container image "{s.image}" already present on machine', type_="Normal",
                pod=pod.name)
    s.add_event(171, "Started", "Started container jupyter", type_="Normal", pod=pod.name)
    s.add_phase(171, "Running")
    s.phase_message = "Workload stopped: GPU idle time limit of 2h reached (project scheduling rule)"
    s.add_phase(20, "Stopped", s.phase_message)
    s.nodes.append(node("gpu-e-44"))
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "SCHEDULING_POLICY_TERMINATED", "recurrence": 1,
        "superseded": [{"what": "node NotReady"}],
        "text": ["node NotReady of 09:02", "resolved at 09:09"],
        "noRecommendations": ["node gpu-e-44", "infrastructure team"],
        "bundle": {"kube": False},
    }


def case_pull_error_after_the_last_start_stands() -> Case:
    """The look-alike: the image was pulled and the pod ran, then the node was drained and the replacement pod
    on another node hit Docker Hub's 429 and never started. The last pull error came after the last start:
    nothing took it back, and it is the failure."""
    s = Story("ff-res-05", "bert-pretrain", "nlp", "Failed", phase_at=4, created=100, image=TORCH,
              restart_policy="OnFailure", backoff_limit=3)
    first = s.add_pod(node="gpu-e-45", created=99.5, k8s_phase="Succeeded", updated=40, completed=40, deleted=40)
    again = s.add_pod(node="gpu-e-46", created=39, k8s_phase="ImagePullBackOff", updated=4, index=0)
    again.uid = uid("pod", s.key, first.name, "replacement")
    s.add_phase(s.created, "Pending")
    _pulled(s, first.name, 98, TORCH)
    s.add_phase(98, "Running")
    s.add_event(40.5, "Killing", "Stopping container main", type_="Normal", pod=first.name, obj_uid=first.uid)
    s.add_phase(40, "Pending", "Waiting for resources")
    s.add_event(38, "Pulling", f'Pulling image "{TORCH}"', type_="Normal", pod=again.name, obj_uid=again.uid)
    for at in (37, 25, 10, 5):
        s.add_event(at, "Failed", HUB_429, pod=again.name, obj_uid=again.uid)
        s.add_event(at - 0.1, "Failed", "Error: ImagePullBackOff", pod=again.name, obj_uid=again.uid)
    s.phase_message = f"Workload failed: pod {again.name} container main is waiting (ImagePullBackOff)"
    s.add_phase(4, "Failed", s.phase_message)
    s.add_kube_pod(again, [cstatus("main", s.image, waiting("ImagePullBackOff", f'Back-off pulling image "{TORCH}"'))],
                   phase="Pending")
    s.add_kube_event(5, "Failed", HUB_429, pod=again.name, count=9, first=37)
    s.nodes.append(node("gpu-e-46"))
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "IMAGE_PULL_FAILED", "recurrence": 1,
        "recommendations": ["rate"],
    }


CASES = {
    "resolved-pull-429-then-ran-an-hour": case_pull_429_then_ran_an_hour,
    "resolved-mount-failed-then-mounted": case_mount_failed_then_mounted,
    "resolved-init-failed-once-then-completed": case_init_failed_once_then_completed,
    "resolved-node-notready-before-start": case_node_notready_before_start,
    "resolved-pull-error-after-last-start-stands": case_pull_error_after_the_last_start_stands,
}
