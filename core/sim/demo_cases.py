"""The hand-shaped failures of the demo tenant, one function per story, grouped by the seed's taxonomy.

Each story carries its own expectation: the verdict the seed's workflow gives when a careful SRE follows it
(Step 1 phase rules, Step 3 recurrence, Step 4 "strongest direct signal", UNKNOWN when signals run out).
Route-out stories and the hostile/credential stories live in demo_cases_routes.py and demo_cases_hostile.py.
"""

from __future__ import annotations

from collections.abc import Callable

from core.sim.demo_kit import (
    GI,
    Story,
    condition,
    cstatus,
    flat,
    node,
    ramp,
    running,
    taint,
    terminated,
    waiting,
)

TRACE_KEYERROR = (
    "epoch 0 step 120 loss 2.913\n"
    "Traceback (most recent call last):\n"
    '  File "/workspace/summarize.py", line 211, in <module>\n'
    "    main()\n"
    '  File "/workspace/summarize.py", line 188, in main\n'
    '    labels = batch["labels"].to(device)\n'
    "KeyError: 'labels'\n"
)


def _oom_message(pod: str, container: str = "main") -> str:
    return f"Workload failed: pod {pod} container {container} terminated (OOMKilled)"


def _error_message(pod: str, code: int, container: str = "main") -> str:
    return f"Workload failed: pod {pod} container {container} terminated (Error), exit code {code}"


def _mem(
    request: str | None, limit: str | None, req_b: int | None, lim_b: int | None, peak: int | None
) -> dict:
    return {"request": request, "limit": limit, "requestBytes": req_b, "limitBytes": lim_b, "peakBytes": peak}


def _lifecycle(s: Story, start: float, end: float, final: str, message: str) -> None:
    s.add_phase(s.created, "Pending")
    s.add_phase(start, "Running")
    s.add_phase(end, final, message)


# -- OOM_KILLED ----------------------------------------------------------------------------------------------
def oom_rising() -> Story:
    s = Story(
        "oom-rising",
        "llama-ft-7b",
        "nlp",
        "Failed",
        phase_at=40,
        created=105,
        mem=("48Gi", "48Gi"),
        command="torchrun --nproc_per_node=1 finetune.py",
        args="--model llama-7b --batch-size 16",
    )
    pod = s.add_pod(node="gpu-e-03", created=104, k8s_phase="OOMKilled", updated=40, completed=40)
    s.phase_message = _oom_message(pod.name)
    _lifecycle(s, 100, 40, "Failed", s.phase_message)
    s.add_event(40.1, "OOMKilled", "Container main was OOM killed", pod=pod.name)
    usage = ramp(9 * GI, 51_400_000_000, 99, 40.5)
    s.add_series("CPU_MEMORY_USAGE_BYTES", usage)
    s.add_series("CPU_MEMORY_LIMIT_BYTES", flat(48 * GI, 99, 40.5))
    s.add_series("CPU_MEMORY_REQUEST_BYTES", flat(48 * GI, 99, 40.5))
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("OOMKilled", 137, 100, 40))], phase="Failed")
    s.nodes.append(node("gpu-e-03"))
    s.add_log(pod.name, "step 4400 loss 1.12 mem 46.9GiB\nstep 4500 loss 1.10 mem 47.6GiB\n")
    return s.expect(
        "diagnosed",
        "OOM_KILLED",
        "pod k8sPhase OOMKilled + container terminated OOMKilled exit 137; usage climbs to the 48Gi limit",
        recurrence=1,
        memory=_mem("48Gi", "48Gi", 48 * GI, 48 * GI, 51_400_000_000),
    )


def oom_empty_metrics() -> Story:
    s = Story(
        "oom-empty-metrics",
        "yolo-aug-3",
        "vision",
        "Failed",
        phase_at=25,
        created=29,
        mem=("16Gi", "16Gi"),
        command="python augment.py",
        args="--workers 32 --cache-ram",
    )
    pod = s.add_pod(node="gpu-e-05", created=28.5, k8s_phase="OOMKilled", updated=25, completed=25)
    s.phase_message = _oom_message(pod.name)
    _lifecycle(s, 25.7, 25, "Failed", s.phase_message)
    s.add_event(25.05, "OOMKilled", "Container main was OOM killed", pod=pod.name)
    s.add_series("CPU_MEMORY_USAGE_BYTES", [])
    s.add_series("CPU_MEMORY_LIMIT_BYTES", [])
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("OOMKilled", 137, 25.7, 25))], phase="Failed")
    s.nodes.append(node("gpu-e-05"))
    return s.expect(
        "diagnosed",
        "OOM_KILLED",
        "OOMKilled on status and pod after 40 s; metrics series empty, so no peak: report the 16Gi "
        "limit and the missing peak",
        recurrence=1,
        memory=_mem("16Gi", "16Gi", 16 * GI, 16 * GI, None),
    )


def oom_request_below_limit() -> Story:
    s = Story(
        "oom-req-lt-limit",
        "conformer-large",
        "speech",
        "Failed",
        phase_at=180,
        created=420,
        mem=("16Gi", "32Gi"),
        command="python train_asr.py",
        args="--config conformer_l.yaml",
    )
    pod = s.add_pod(node="gpu-e-07", created=418, k8s_phase="OOMKilled", updated=180, completed=180)
    s.phase_message = _oom_message(pod.name)
    _lifecycle(s, 415, 180, "Failed", s.phase_message)
    s.add_event(180.1, "OOMKilled", "Container main was OOM killed", pod=pod.name)
    s.add_series("CPU_MEMORY_USAGE_BYTES", ramp(12 * GI, 34_300_000_000, 414, 181, step_min=1))
    s.add_series("CPU_MEMORY_REQUEST_BYTES", flat(16 * GI, 414, 181, step_min=1))
    s.add_series("CPU_MEMORY_LIMIT_BYTES", flat(32 * GI, 414, 181, step_min=1))
    # The Failed pod object is still there; its events expired two hours ago.
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("OOMKilled", 137, 415, 180))], phase="Failed")
    s.nodes.append(node("gpu-e-07"))
    return s.expect(
        "diagnosed",
        "OOM_KILLED",
        "OOMKilled; peak ~34.3e9 B reaches the 32Gi LIMIT, far above the 16Gi request (compare with "
        "the limit)",
        recurrence=1,
        memory=_mem("16Gi", "32Gi", 16 * GI, 32 * GI, 34_300_000_000),
    )


def oom_recurring() -> Story:
    s = Story(
        "oom-recurring",
        "moe-pretrain",
        "research",
        "Failed",
        phase_at=120,
        created=7 * 1440 + 300,
        mem=("64Gi", "64Gi"),
        gpu=8,
        restart_policy="OnFailure",
        backoff_limit=3,
        command="python pretrain_moe.py",
        args="--experts 16 --seq-len 8192",
        submitted_by="dmitri@example.com",
    )
    s.add_phase(s.created, "Pending")
    s.add_phase(s.created - 5, "Running")
    # Three OOM terminations, each seen as an event and a phase update a few seconds apart: three, not six.
    for n, at in enumerate((6 * 1440 + 200, 3 * 1440 + 75, 120)):
        pod_name = s.pod_name(n)
        s.add_event(
            at + 0.1, "OOMKilled", "Container main was OOM killed", pod=pod_name, in_events=(at < 24 * 60)
        )
        s.add_phase(at, "Failed", _oom_message(pod_name))
        if n < 2:
            s.add_phase(
                at - 3, "Running", f"pod {s.pod_name(n + 1)} restarted by the job controller (OnFailure)"
            )
    s.add_pod(
        node="gpu-e-09",
        created=s.created - 4,
        k8s_phase="OOMKilled",
        updated=6 * 1440 + 200,
        index=0,
        completed=6 * 1440 + 200,
        deleted=6 * 1440 + 199,
    )
    s.add_pod(
        node="gpu-e-10",
        created=6 * 1440 + 198,
        k8s_phase="OOMKilled",
        updated=3 * 1440 + 75,
        index=1,
        completed=3 * 1440 + 75,
        deleted=3 * 1440 + 74,
    )
    pod = s.add_pod(
        node="gpu-e-09", created=3 * 1440 + 73, k8s_phase="OOMKilled", updated=120, index=2, completed=120
    )
    s.phase_message = _oom_message(pod.name)
    s.add_series("CPU_MEMORY_USAGE_BYTES", ramp(40 * GI, 68_600_000_000, 240, 121, step_min=1))
    s.add_series("CPU_MEMORY_LIMIT_BYTES", flat(64 * GI, 240, 121, step_min=1))
    s.add_kube_pod(
        pod, [cstatus("main", s.image, terminated("OOMKilled", 137, 3 * 1440 + 70, 120))], phase="Failed"
    )
    s.nodes.append(node("gpu-e-09"))
    return s.expect(
        "diagnosed",
        "OOM_KILLED",
        "three OOMKilled terminations in 7d (6d, 3d, 2h ago), each an event + a phase update: count 3",
        recurrence=3,
        lookback="7d",
        memory=_mem("64Gi", "64Gi", 64 * GI, 64 * GI, 68_600_000_000),
    )


def oom_node_event_only() -> Story:
    s = Story(
        "oom-node-event",
        "policy-rl-9",
        "robotics",
        "Failed",
        phase_at=20,
        created=70,
        mem=("24Gi", "24Gi"),
        command="python train_policy.py",
        args="--envs 512",
        submitted_by="kenji@example.com",
    )
    pod = s.add_pod(node="gpu-w-03", created=69, k8s_phase="Error", updated=20, completed=20)
    s.phase_message = _error_message(pod.name, 137)
    _lifecycle(s, 66, 20, "Failed", s.phase_message)
    # The runtime reported the kill as Error; only the node saw the cgroup OOM (cgroup v2 kills one process).
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("Error", 137, 66, 20))], phase="Failed")
    s.nodes.append(node("gpu-w-03"))
    s.add_node_event(
        20.02,
        "gpu-w-03",
        "OOMKilling",
        "Memory cgroup out of memory: Killed process 48213 (python) total-vm:41873512kB, "
        "anon-rss:25011240kB, file-rss:70912kB, shmem-rss:0kB, UID:1000 pgtables:50220kB "
        "oom_score_adj:-997",
    )
    s.add_log(pod.name, "rollout 880 reward 412.7\nrollout 890 reward 415.2\n")
    return s.expect(
        "diagnosed",
        "OOM_KILLED",
        "exit 137 reported as Error; Node gpu-w-03 OOMKilling event (Killed process python) at the "
        "same second is the only OOM evidence",
        recurrence=1,
        memory=_mem("24Gi", "24Gi", 24 * GI, 24 * GI, None),
    )


# -- IMAGE_PULL_FAILED ---------------------------------------------------------------------------------------
def _pull_story(
    key: str,
    name: str,
    project: str,
    image: str,
    error: str,
    node_name: str,
    *,
    waiting_reason: str = "ImagePullBackOff",
    at: float = 12,
    kind: str = "Training",
) -> Story:
    s = Story(
        key,
        name,
        project,
        "Pending",
        phase_at=at + 1,
        created=at + 2,
        image=image,
        kind=kind,
        mem=("16Gi", "16Gi"),
    )
    pod = s.add_pod(node=node_name, created=at + 1.5, k8s_phase=waiting_reason, updated=0.5)
    s.add_phase(s.created, "Pending")
    if waiting_reason == "InvalidImageName":
        s.add_event(at, "InspectFailed", error, pod=pod.name)
        s.add_event(at - 0.01, "Failed", "Error: InvalidImageName", pod=pod.name)
        s.add_kube_event(at, "InspectFailed", error, pod=pod.name, host=node_name, count=6, first=at)
        s.add_kube_event(
            1, "Failed", "Error: InvalidImageName", pod=pod.name, host=node_name, count=6, first=at
        )
        state = waiting("InvalidImageName", error)
    else:
        s.add_event(at, "Failed", error, pod=pod.name)
        s.add_event(at - 0.05, "Failed", "Error: ErrImagePull", pod=pod.name)
        s.add_event(at - 1, "BackOff", f'Back-off pulling image "{image}"', type_="Normal", pod=pod.name)
        s.add_kube_event(1.5, "Failed", error, pod=pod.name, host=node_name, count=5, first=at)
        s.add_kube_event(
            1.5, "Failed", "Error: ErrImagePull", pod=pod.name, host=node_name, count=5, first=at
        )
        s.add_kube_event(
            0.5,
            "BackOff",
            f'Back-off pulling image "{image}"',
            pod=pod.name,
            type_="Normal",
            host=node_name,
            count=40,
            first=at - 1,
        )
        s.add_kube_event(
            0.5, "Failed", "Error: ImagePullBackOff", pod=pod.name, host=node_name, count=40, first=at - 1
        )
        state = waiting("ImagePullBackOff", f'Back-off pulling image "{image}": ErrImagePull: {error}')
    s.add_kube_pod(
        pod,
        [cstatus("main", image, state)],
        phase="Pending",
        conditions=[
            condition("PodScheduled", "True", at + 1.5),
            condition(
                "Ready", "False", at + 1.5, "ContainersNotReady", "containers with unready status: [main]"
            ),
        ],
    )
    s.nodes.append(node(node_name))
    return s


def pull_not_found() -> Story:
    image = "nvcr.io/acme/bert-serve:v2.3.1"
    err = (
        f'Failed to pull image "{image}": rpc error: code = NotFound desc = failed to pull and unpack image '
        f'"{image}": failed to resolve reference "{image}": {image}: not found'
    )
    s = _pull_story("pull-not-found", "bert-serve", "nlp", image, err, "gpu-e-02", kind="Inference")
    return s.expect(
        "diagnosed",
        "IMAGE_PULL_FAILED",
        "Pending with ErrImagePull/ImagePullBackOff: 'failed to resolve reference ... not found' -> "
        "fix the image tag",
        recurrence=1,
        detail="not-found",
        intent="active",
    )


def pull_auth() -> Story:
    image = "registry.acme.io/vision/sam-finetune:1.4"
    err = (
        f'Failed to pull image "{image}": rpc error: code = Unknown desc = failed to pull and unpack image '
        f'"{image}": failed to resolve reference "{image}": pull access denied, repository does not exist or '
        "may require authorization: authorization failed: 401 Unauthorized"
    )
    s = _pull_story("pull-auth", "sam-finetune", "vision", image, err, "gpu-e-04", at=20)
    s.extra_spec["imagePullSecrets"] = [{"name": "acme-registry-old"}]
    return s.expect(
        "diagnosed",
        "IMAGE_PULL_FAILED",
        "ErrImagePull: 'pull access denied ... 401 Unauthorized' -> explicit authorization error: "
        "fix registry credentials",
        recurrence=1,
        detail="authorization",
        intent="active",
    )


def pull_dns() -> Story:
    image = "registry.internal.acme.io/speech/asr-stream:2026.11"
    err = (
        f'Failed to pull image "{image}": rpc error: code = Unknown desc = failed to pull and unpack image '
        f'"{image}": failed to resolve reference "{image}": failed to do request: Head '
        '"https://registry.internal.acme.io/v2/speech/asr-stream/manifests/2026.11": dial tcp: lookup '
        "registry.internal.acme.io on 10.96.0.10:53: no such host"
    )
    s = _pull_story("pull-dns", "asr-stream", "speech", image, err, "gpu-e-06", at=8, kind="Inference")
    return s.expect(
        "diagnosed",
        "IMAGE_PULL_FAILED",
        "ErrImagePull: 'lookup registry.internal.acme.io ... no such host' -> DNS/connectivity, not "
        "credentials",
        recurrence=1,
        detail="network",
        intent="active",
    )


def pull_tls() -> Story:
    image = "harbor.robotics.lab/sim/sim2real:0.9.2"
    err = (
        f'Failed to pull image "{image}": rpc error: code = Unknown desc = failed to pull and unpack image '
        f'"{image}": failed to resolve reference "{image}": failed to do request: Head '
        '"https://harbor.robotics.lab/v2/sim/sim2real/manifests/0.9.2": tls: failed to verify certificate: '
        "x509: certificate signed by unknown authority"
    )
    s = _pull_story("pull-tls", "sim2real", "robotics", image, err, "gpu-w-02", at=30)
    return s.expect(
        "diagnosed",
        "IMAGE_PULL_FAILED",
        "ErrImagePull: 'x509: certificate signed by unknown authority' -> registry TLS trust, not a "
        "wrong tag",
        recurrence=1,
        detail="tls",
        intent="active",
    )


def pull_rate_limit() -> Story:
    image = "docker.io/acme/sdxl-lora:latest"
    err = (
        f'Failed to pull image "{image}": failed to pull and unpack image "{image}": failed to copy: '
        "httpReadSeeker: failed open: unexpected status code "
        "https://registry-1.docker.io/v2/acme/sdxl-lora/manifests/latest: 429 Too Many Requests - Server "
        "message: toomanyrequests: You have reached your pull rate limit as 'genai-ci': "
        "dckr_jti_FAKEdemoJTI0000000000000=. You may increase the limit by upgrading. "
        "https://www.docker.com/increase-rate-limit"
    )
    s = _pull_story("pull-rate-limit", "sdxl-lora", "genai", image, err, "gpu-w-06", at=15)
    return s.expect(
        "diagnosed",
        "IMAGE_PULL_FAILED",
        "ErrImagePull: '429 Too Many Requests ... toomanyrequests' -> rate limit: retry later or "
        "authenticate",
        recurrence=1,
        detail="rate-limit",
        intent="active",
    )


def pull_invalid_name() -> Story:
    image = "nvcr.io/acme/DLRM-Train:v1"
    err = (
        f'Failed to apply default image tag "{image}": couldn\'t parse image reference "{image}": invalid '
        "reference format: repository name (acme/DLRM-Train) must be lowercase"
    )
    s = _pull_story(
        "pull-invalid-name",
        "dlrm-train",
        "recsys",
        image,
        err,
        "gpu-w-07",
        waiting_reason="InvalidImageName",
        at=10,
    )
    return s.expect(
        "diagnosed",
        "IMAGE_PULL_FAILED",
        "container waiting InvalidImageName: 'repository name must be lowercase' -> fix the image reference",
        recurrence=1,
        detail="invalid-name",
        intent="active",
    )


# -- INIT_FAILED ---------------------------------------------------------------------------------------------
def init_exit() -> Story:
    s = Story(
        "init-exit",
        "rag-index",
        "nlp",
        "Failed",
        phase_at=30,
        created=34,
        mem=("8Gi", "8Gi"),
        gpu=0.5,
        command="python build_index.py",
        submitted_by="priya@example.com",
    )
    pod = s.add_pod(
        node="gpu-e-02", created=33.5, k8s_phase="Init:Error", updated=30, completed=30, containers=["main"]
    )
    s.phase_message = (
        f"Workload failed: pod {pod.name} init container fetch-corpus terminated (Error), exit code 1"
    )
    s.add_phase(s.created, "Pending")
    s.add_phase(33, "Initializing")
    s.add_phase(30, "Failed", s.phase_message)
    s.add_event(33.2, "Started", "Started container fetch-corpus", type_="Normal", pod=pod.name)
    s.add_kube_pod(
        pod,
        [cstatus("main", s.image, waiting("PodInitializing"))],
        phase="Failed",
        init_containers=["fetch-corpus"],
        init_statuses=[
            cstatus("fetch-corpus", "docker.io/amazon/aws-cli:2.17.0", terminated("Error", 1, 33.2, 30))
        ],
    )
    s.add_kube_event(
        33.2, "Started", "Started container fetch-corpus", pod=pod.name, type_="Normal", host="gpu-e-02"
    )
    s.add_log(
        pod.name,
        "download failed: s3://acme-nlp-corpora/wiki-2026-11/shard-000.parquet to "
        "/data/shard-000.parquet An error occurred (NoSuchBucket) when calling the GetObject operation: "
        "The specified bucket does not exist\n",
        container="fetch-corpus",
    )
    s.nodes.append(node("gpu-e-02"))
    return s.expect(
        "diagnosed",
        "INIT_FAILED",
        "init container fetch-corpus terminated Error exit 1 (Init:Error) before main started; "
        "log: NoSuchBucket",
        recurrence=1,
    )


def init_crashloop() -> Story:
    s = Story(
        "init-crashloop",
        "clip-eval",
        "vision",
        "Pending",
        phase_at=18,
        created=18.5,
        mem=("16Gi", "16Gi"),
        command="python eval_clip.py",
        submitted_by="marco@example.com",
    )
    pod = s.add_pod(node="gpu-e-04", created=18, k8s_phase="Init:CrashLoopBackOff", updated=1)
    s.add_phase(s.created, "Pending")
    msg = f"Back-off restarting failed container fetch-weights in pod {pod.name}_{s.ns}({pod.uid})"
    s.add_event(16, "BackOff", msg, pod=pod.name)
    s.add_kube_pod(
        pod,
        [cstatus("main", s.image, waiting("PodInitializing"))],
        phase="Pending",
        init_containers=["fetch-weights"],
        init_statuses=[
            cstatus(
                "fetch-weights",
                "docker.io/amazon/aws-cli:2.17.0",
                waiting("CrashLoopBackOff", msg.replace("Back-off", "back-off 2m40s")),
                last=terminated("Error", 2, 4, 3.9),
                restarts=5,
            )
        ],
        conditions=[
            condition(
                "Initialized",
                "False",
                18,
                "ContainersNotInitialized",
                "containers with incomplete status: [fetch-weights]",
            ),
            condition("PodScheduled", "True", 18),
        ],
    )
    s.add_kube_event(1, "BackOff", msg, pod=pod.name, host="gpu-e-04", count=21, first=16)
    s.add_log(
        pod.name,
        "fetch-weights: error: argument --bucket is required\n",
        container="fetch-weights",
        previous=True,
    )
    s.nodes.append(node("gpu-e-04"))
    return s.expect(
        "diagnosed",
        "INIT_FAILED",
        "Pending with init container fetch-weights in Init:CrashLoopBackOff (last exit 2, 5 restarts)",
        recurrence=1,
        intent="active",
    )


# -- DATASOURCE_MOUNT_FAILED ---------------------------------------------------------------------------------
def _mount_story(
    key: str, name: str, project: str, node_name: str, at: float, reason: str, message: str, storage: dict
) -> Story:
    s = Story(key, name, project, "Pending", phase_at=at + 1, created=at + 1.5, storage=storage)
    pod = s.add_pod(node=node_name, created=at + 1.2, k8s_phase="ContainerCreating", updated=at + 1)
    s.add_phase(s.created, "Pending")
    s.add_event(at, reason, message, pod=pod.name)
    s.add_kube_event(0.8, reason, message, pod=pod.name, host=node_name, count=9, first=at)
    s.add_kube_pod(pod, [cstatus("main", s.image, waiting("ContainerCreating"))], phase="Pending")
    s.nodes.append(node(node_name))
    return s


def mount_pvc_missing() -> Story:
    s = _mount_story(
        "mount-pvc-missing",
        "wav2vec-pt",
        "speech",
        "gpu-e-06",
        22,
        "FailedMount",
        'MountVolume.SetUp failed for volume "corpus" : persistentvolumeclaim "speech-corpus-v3" not found',
        {
            "pvc": [
                {
                    "name": "corpus",
                    "claimName": "speech-corpus-v3",
                    "path": "/data",
                    "existingPvc": True,
                    "readOnly": True,
                }
            ]
        },
    )
    return s.expect(
        "diagnosed",
        "DATASOURCE_MOUNT_FAILED",
        'FailedMount: persistentvolumeclaim "speech-corpus-v3" not found',
        recurrence=1,
        intent="active",
    )


def mount_secret_missing() -> Story:
    s = _mount_story(
        "mount-secret-missing",
        "llm-judge",
        "genai",
        "gpu-w-04",
        14,
        "FailedMount",
        'MountVolume.SetUp failed for volume "hf-creds" : secret "hf-cache-creds" not found',
        {
            "pvc": [],
            "secretVolume": [{"name": "hf-creds", "secret": "hf-cache-creds", "mountPath": "/secrets/hf"}],
        },
    )
    return s.expect(
        "diagnosed",
        "DATASOURCE_MOUNT_FAILED",
        'FailedMount: secret "hf-cache-creds" not found',
        recurrence=1,
        intent="active",
    )


def mount_multi_attach() -> Story:
    s = _mount_story(
        "mount-multi-attach",
        "nav-train",
        "robotics",
        "gpu-w-09",
        35,
        "FailedAttachVolume",
        'Multi-Attach error for volume "pvc-6f1c2a9e-0b7d-4c1e-9f3a-2d5b8e7c4a10" Volume is already '
        "exclusively attached to one node and can't be attached to another",
        {
            "pvc": [
                {
                    "name": "maps",
                    "claimName": "nav-maps",
                    "path": "/maps",
                    "existingPvc": True,
                    "readOnly": False,
                }
            ]
        },
    )
    return s.expect(
        "diagnosed",
        "DATASOURCE_MOUNT_FAILED",
        "FailedAttachVolume Multi-Attach error: RWO volume still attached to another node",
        recurrence=1,
        intent="active",
    )


def mount_timeout() -> Story:
    # Old enough that Kubernetes forgot it: only Run:ai history tells the story.
    s = Story(
        "mount-timeout",
        "two-tower",
        "recsys",
        "Failed",
        phase_at=190,
        created=212,
        storage={
            "pvc": [
                {
                    "name": "train-data",
                    "claimName": "ctr-logs-nfs",
                    "path": "/data",
                    "existingPvc": True,
                    "readOnly": True,
                }
            ]
        },
        submitted_by="lena@example.com",
    )
    pod = s.add_pod(
        node="gpu-w-08", created=211, k8s_phase="ContainerCreating", updated=190, completed=190, deleted=189
    )
    s.add_phase(s.created, "Pending")
    msg = (
        "Unable to attach or mount volumes: unmounted volumes=[train-data], unattached volumes=[train-data "
        "kube-api-access-8xk2p]: timed out waiting for the condition"
    )
    for at in (209, 207, 205, 203, 201, 199, 197, 195, 193):
        s.add_event(at, "FailedMount", msg, pod=pod.name, in_events=(at == 193))
    s.phase_message = f"Workload failed: pod {pod.name} did not start within 20m (volume mount timed out)"
    s.add_phase(190, "Failed", s.phase_message)
    return s.expect(
        "diagnosed",
        "DATASOURCE_MOUNT_FAILED",
        "repeated FailedMount 'timed out waiting for the condition' then Failed; one termination "
        "(repeated events of one pod are one occurrence); Kubernetes events expired",
        recurrence=1,
    )


# -- CRASH_APP_ERROR -----------------------------------------------------------------------------------------
def _crash(
    key: str,
    name: str,
    project: str,
    node_name: str,
    start: float,
    end: float,
    code: int,
    log: str,
    *,
    command: str = "python train.py",
    args: str = "",
    kube: bool = True,
    reason: str = "Error",
    kind: str = "Training",
    submitted_by: str = "alice@example.com",
    mem: tuple[str | None, str | None] = ("32Gi", "32Gi"),
    image: str | None = None,
) -> Story:
    s = Story(
        key,
        name,
        project,
        "Failed",
        phase_at=end,
        created=start + 3,
        command=command,
        args=args,
        kind=kind,
        submitted_by=submitted_by,
        mem=mem,
    )
    if image is not None:
        s.image = image
    pod = s.add_pod(
        node=node_name,
        created=start + 2,
        k8s_phase="Error",
        updated=end,
        completed=end,
        deleted=None if kube else end - 1,
    )
    s.phase_message = _error_message(pod.name, code)
    _lifecycle(s, start, end, "Failed", s.phase_message)
    if kube:
        s.add_kube_pod(pod, [cstatus("main", s.image, terminated(reason, code, start, end))], phase="Failed")
        s.add_log(pod.name, log)
        s.nodes.append(node(node_name))
    return s


def crash_traceback() -> Story:
    s = _crash(
        "crash-traceback",
        "t5-summarize",
        "nlp",
        "gpu-e-01",
        55,
        15,
        1,
        TRACE_KEYERROR,
        command="python /workspace/summarize.py",
    )
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "exit 1, no system signal; log: KeyError: 'labels' in summarize.py line 188",
        recurrence=1,
    )


def crash_argparse() -> Story:
    log = (
        "usage: pretrain.py [-h] [--lr LR] [--epochs EPOCHS] [--schedule {linear,cosine}]\n"
        "pretrain.py: error: unrecognized arguments: --lr-schedule cosine\n"
    )
    s = _crash(
        "crash-argparse",
        "vit-pretrain",
        "vision",
        "gpu-e-08",
        51,
        50.5,
        2,
        log,
        command="python pretrain.py",
        args="--lr 3e-4 --lr-schedule cosine",
    )
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "exit 2 (usage error); log: 'error: unrecognized arguments: --lr-schedule cosine'",
        recurrence=1,
    )


def crash_command_not_found() -> Story:
    s = _crash(
        "crash-127",
        "tacotron-ft",
        "speech",
        "gpu-e-07",
        301,
        300.9,
        127,
        "bash: line 1: pyhton: command not found\n",
        command="bash -c 'pyhton train_tts.py'",
    )
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "exit 127: 'pyhton: command not found' (typo in the command); events long expired",
        recurrence=1,
    )


def crash_exec_format() -> Story:
    s = _crash(
        "crash-exec-format",
        "jetson-export",
        "robotics",
        "gpu-w-01",
        42,
        41.9,
        1,
        "exec /opt/conda/bin/python: exec format error\n",
        command="python export_trt.py",
        submitted_by="kenji@example.com",
        image="harbor.robotics.lab/edge/jetson-export:arm64",
    )
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "exit 1 with 'exec format error': an arm64 image on an amd64 node",
        recurrence=1,
    )


def crash_cuda_oom() -> Story:
    log = (
        "[rank0]: step 12 loss 1.83\n"
        "Traceback (most recent call last):\n"
        '  File "/app/sft.py", line 301, in <module>\n'
        "    trainer.train()\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity "
        "of 79.10 GiB of which 1.12 GiB is free. Process 2231 has 77.97 GiB memory in use. Of the allocated "
        "memory 74.20 GiB is allocated by PyTorch, and 2.61 GiB is reserved by PyTorch but unallocated.\n"
    )
    s = _crash(
        "crash-cuda-oom",
        "mixtral-sft",
        "genai",
        "gpu-w-06",
        48,
        33,
        1,
        log,
        command="python /app/sft.py",
        args="--micro-batch 8",
        mem=("96Gi", "96Gi"),
    )
    s.add_series("CPU_MEMORY_USAGE_BYTES", ramp(14 * GI, 21 * GI, 46, 33.5))
    s.add_series("CPU_MEMORY_LIMIT_BYTES", flat(96 * GI, 46, 33.5))
    s.add_series("GPU_MEMORY_USAGE_BYTES", ramp(60 * GI, 83_700_000_000, 46, 33.5))
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "exit 1 with 'CUDA out of memory' in the log: a GPU OOM in the app, not a kubelet OOMKilled; "
        "CPU memory 21Gi of 96Gi",
        recurrence=1,
        detail="gpu-oom",
    )


def crash_nccl() -> Story:
    s = Story(
        "crash-nccl",
        "llama-70b-dist",
        "research",
        "Failed",
        phase_at=35,
        created=160,
        kind="Distributed",
        gpu=8,
        requested_pods=4,
        mem=("512Gi", "512Gi"),
        command="torchrun train_70b.py",
        submitted_by="dmitri@example.com",
        extra_spec={"distributedFramework": "PyTorch", "numWorkers": 3, "minReplicas": 4, "maxReplicas": 4},
    )
    _lifecycle(s, 150, 35, "Failed", "")
    nccl = (
        "[rank3]:[E1130 11:25:00.412 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=18231, OpType=ALLREDUCE, NumelIn=262144000, "
        "NumelOut=262144000, Timeout(ms)=600000) ran for 600071 milliseconds before timing out.\n"
        "torch.distributed.DistBackendError: NCCL communicator was aborted on rank 3.\n"
    )
    roles = [
        ("master", 0, "gpu-e-13"),
        ("worker", 0, "gpu-e-14"),
        ("worker", 1, "gpu-e-15"),
        ("worker", 2, "gpu-e-16"),
    ]
    for role, idx, node_name in roles:
        failed = role == "worker" and idx == 2
        plan = s.add_pod(
            node=node_name, created=158, k8s_phase="Error", updated=35, role=role, index=idx, completed=35
        )
        code, why = (1, "Error") if failed else (143, "Error")
        s.add_kube_pod(plan, [cstatus("main", s.image, terminated(why, code, 150, 35))], phase="Failed")
        s.add_log(plan.name, nccl if failed else "[rank0] step 18231 waiting for collective\n")
        s.nodes.append(node(node_name))
    s.phase_message = _error_message(s.pod_name(2, "worker"), 1)
    s.history[-1]["spec"]["phaseUpdate"]["phaseMessage"] = s.phase_message
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "worker-2 exit 1 with an NCCL watchdog timeout (DistBackendError); the others got SIGTERM "
        "(143) after it",
        recurrence=1,
        detail="nccl-timeout",
    )


def crash_running_crashloop() -> Story:
    s = Story(
        "crash-running-crashloop",
        "feature-svc",
        "recsys",
        "Running",
        phase_at=300,
        created=305,
        kind="Inference",
        mem=("8Gi", "8Gi"),
        gpu=0.25,
        command="python -m feature_svc.serve",
        running_pods=1,
        submitted_by="lena@example.com",
    )
    pod = s.add_pod(node="gpu-w-08", created=304, k8s_phase="CrashLoopBackOff", updated=2)
    s.add_phase(s.created, "Pending")
    s.add_phase(300, "Running")
    msg = f"Back-off restarting failed container main in pod {pod.name}_{s.ns}({pod.uid})"
    s.add_event(40, "BackOff", msg, pod=pod.name)
    s.conditions = [
        condition(
            "Available",
            "False",
            40,
            "CrashLoopBackOff",
            "container main in pod feature-svc-0-0 is waiting: CrashLoopBackOff",
        )
    ]
    s.add_kube_pod(
        pod,
        [
            cstatus(
                "main",
                s.image,
                waiting("CrashLoopBackOff", msg.replace("Back-off", "back-off 5m0s")),
                last=terminated("Error", 1, 3, 2.9),
                restarts=7,
            )
        ],
        phase="Running",
    )
    s.add_kube_event(2, "BackOff", msg, pod=pod.name, host="gpu-w-08", count=31, first=40)
    s.add_log(
        pod.name,
        'Traceback (most recent call last):\n  File "<frozen runpy>", line 198, in '
        "_run_module_as_main\nModuleNotFoundError: No module named 'feast'\n",
        previous=True,
    )
    s.nodes.append(node("gpu-w-08"))
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "Running but container main in CrashLoopBackOff (7 restarts, last exit 1); previous log: "
        "ModuleNotFoundError",
        recurrence=None,
        intent="active",
    )


def crash_recurring() -> Story:
    s = Story(
        "crash-recurring",
        "diffusion-ft",
        "genai",
        "Failed",
        phase_at=50,
        created=900,
        restart_policy="OnFailure",
        backoff_limit=1,
        command="python finetune_diffusion.py",
        submitted_by="sofia@example.com",
    )
    s.add_phase(s.created, "Pending")
    s.add_phase(895, "Running")
    first = s.add_pod(
        node="gpu-w-04", created=898, k8s_phase="Error", updated=610, completed=610, deleted=609
    )
    s.add_phase(610, "Failed", _error_message(first.name, 1))
    s.add_phase(607, "Running", f"pod {s.pod_name(1)} restarted by the job controller (OnFailure)")
    s.add_event(
        610.05,
        "BackOff",
        f"Back-off restarting failed container main in pod {first.name}_{s.ns}",
        pod=first.name,
        in_events=False,
    )
    last = s.add_pod(node="gpu-w-04", created=608, k8s_phase="Error", updated=50, completed=50, index=1)
    s.phase_message = _error_message(last.name, 1)
    s.add_phase(50, "Failed", s.phase_message)
    s.add_event(
        50.05,
        "BackOff",
        f"Back-off restarting failed container main in pod {last.name}_{s.ns}",
        pod=last.name,
    )
    s.add_kube_pod(last, [cstatus("main", s.image, terminated("Error", 1, 606, 50))], phase="Failed")
    s.add_log(
        last.name,
        'Traceback (most recent call last):\n  File "/app/finetune_diffusion.py", line 77, in '
        "<module>\nFileNotFoundError: [Errno 2] No such file or directory: '/data/captions.jsonl'\n",
    )
    s.nodes.append(node("gpu-w-04"))
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "two exit-1 terminations 10h and 50min ago (phase update + event each): recurring, count 2",
        recurrence=2,
    )


# -- NODE_FAILURE --------------------------------------------------------------------------------------------
def node_notready_onfailure() -> Story:
    s = Story(
        "node-notready",
        "detr-train",
        "vision",
        "Failed",
        phase_at=20,
        created=200,
        restart_policy="OnFailure",
        backoff_limit=0,
        command="python train_detr.py",
        submitted_by="marco@example.com",
    )
    pod = s.add_pod(node="gpu-e-11", created=198, k8s_phase="Unknown", updated=20, completed=20)
    msg = f"Node gpu-e-11 which was running pod {pod.name} is unresponsive"
    s.phase_message = f"Workload failed: pod {pod.name} was lost (NodeLost)"
    _lifecycle(s, 195, 20, "Failed", s.phase_message)
    s.add_event(26, "NodeNotReady", "Node is not ready", pod=pod.name)
    s.add_event(
        21,
        "TaintManagerEviction",
        f"Marking for deletion Pod {s.ns}/{pod.name}",
        type_="Normal",
        source="taint-eviction-controller",
        pod=pod.name,
    )
    s.add_kube_pod(
        pod,
        [cstatus("main", s.image, running(195))],
        phase="Running",
        reason="NodeLost",
        message=msg,
        deletion=21,
        conditions=[
            condition("Ready", "False", 26, "NodeLost", msg),
            condition(
                "DisruptionTarget",
                "True",
                21,
                "DeletionByTaintManager",
                "Taint manager: deleting due to NoExecute taint",
            ),
        ],
    )
    s.nodes.append(
        node(
            "gpu-e-11",
            ready="Unknown",
            ready_since=26,
            taints=[
                taint("node.kubernetes.io/unreachable", "NoExecute", 26),
                taint("node.kubernetes.io/unreachable", "NoSchedule", 26),
            ],
        )
    )
    s.add_node_event(
        26, "gpu-e-11", "NodeNotReady", "Node gpu-e-11 status is now: NodeNotReady", type_="Normal"
    )
    s.add_kube_event(
        21,
        "TaintManagerEviction",
        f"Marking for deletion Pod {s.ns}/{pod.name}",
        pod=pod.name,
        type_="Normal",
        component="taint-eviction-controller",
    )
    return s.expect(
        "diagnosed",
        "NODE_FAILURE",
        "pod NodeLost on gpu-e-11 (Ready Unknown, unreachable NoExecute taint, NodeNotReady); "
        "restartPolicy OnFailure -> retry on a healthy node",
        recurrence=1,
        detail="OnFailure",
    )


def node_drain_never() -> Story:
    s = Story(
        "node-drain",
        "grasp-net",
        "robotics",
        "Failed",
        phase_at=45,
        created=400,
        restart_policy="Never",
        command="python train_grasp.py",
        submitted_by="kenji@example.com",
    )
    pod = s.add_pod(node="gpu-w-05", created=398, k8s_phase="Error", updated=45, completed=45)
    s.phase_message = _error_message(pod.name, 143)
    _lifecycle(s, 395, 45, "Failed", s.phase_message)
    s.add_event(46, "Killing", "Stopping container main", type_="Normal", pod=pod.name)
    s.add_kube_pod(
        pod,
        [cstatus("main", s.image, terminated("Error", 143, 395, 45))],
        phase="Failed",
        conditions=[
            condition("DisruptionTarget", "True", 46, "EvictionByEvictionAPI", "Eviction API: evicting"),
            condition("Ready", "False", 45, "PodFailed"),
        ],
    )
    s.add_kube_event(46, "Killing", "Stopping container main", pod=pod.name, type_="Normal", host="gpu-w-05")
    s.nodes.append(
        node(
            "gpu-w-05",
            unschedulable=True,
            taints=[taint("node.kubernetes.io/unschedulable", "NoSchedule", 47)],
        )
    )
    s.add_node_event(
        47,
        "gpu-w-05",
        "NodeNotSchedulable",
        "Node gpu-w-05 status is now: NodeNotSchedulable",
        type_="Normal",
    )
    return s.expect(
        "diagnosed",
        "NODE_FAILURE",
        "node gpu-w-05 cordoned (unschedulable, NodeNotSchedulable) and the pod evicted via the "
        "Eviction API (drain), exit 143; restartPolicy Never -> resubmit",
        recurrence=1,
        detail="Never",
    )


def evicted_memory_pressure() -> Story:
    s = Story(
        "evicted-mem-pressure",
        "graph-embed",
        "research",
        "Failed",
        phase_at=30,
        created=260,
        mem=("16Gi", None),
        command="python embed_graph.py",
        submitted_by="priya@example.com",
    )
    pod = s.add_pod(node="gpu-e-12", created=258, k8s_phase="Evicted", updated=30, completed=30)
    msg = (
        "The node was low on resource: memory. Threshold quantity: 100Mi, available: 81204Ki. Container main "
        "was using 61Gi, request is 16Gi, has larger consumption of memory."
    )
    s.phase_message = f"Workload failed: pod {pod.name} was evicted"
    _lifecycle(s, 255, 30, "Failed", s.phase_message)
    s.add_event(30.2, "Evicted", msg, pod=pod.name)
    s.add_kube_pod(
        pod,
        [cstatus("main", s.image, terminated("Error", 137, 255, 30))],
        phase="Failed",
        reason="Evicted",
        message=msg,
        conditions=[
            condition(
                "DisruptionTarget",
                "True",
                30.2,
                "TerminationByKubelet",
                "The node was low on resource: memory.",
            )
        ],
    )
    s.add_kube_event(30.2, "Evicted", msg, pod=pod.name, host="gpu-e-12")
    s.nodes.append(node("gpu-e-12", memory_pressure=True, ready_since=31))
    s.add_node_event(31, "gpu-e-12", "EvictionThresholdMet", "Attempting to reclaim memory")
    s.add_node_event(
        31,
        "gpu-e-12",
        "NodeHasInsufficientMemory",
        "Node gpu-e-12 status is now: NodeHasInsufficientMemory",
        type_="Normal",
    )
    return s.expect(
        "diagnosed",
        "NODE_FAILURE",
        "pod Evicted by the kubelet for node memory pressure (not OOMKilled, not preemption): a node "
        "eviction; note the container used 61Gi over a 16Gi request",
        recurrence=1,
    )


# -- SCHEDULING_POLICY_TERMINATED ----------------------------------------------------------------------------
def policy_idle() -> Story:
    s = Story(
        "policy-idle",
        "jupyter-alice",
        "nlp",
        "Stopped",
        phase_at=125,
        created=900,
        kind="Workspace",
        command="start-notebook.sh",
        desired_phase="Stopped",
        image="jupyter/pytorch-notebook:2026-10",
    )
    msg = (
        "Workload stopped: GPU idle time limit reached (GPUs idle for 2h, project rule "
        "interactiveJobMaxIdleDurationSeconds=7200)"
    )
    s.phase_message = msg
    s.add_phase(s.created, "Pending")
    s.add_phase(898, "Running")
    s.add_phase(126, "Stopping", msg)
    s.add_phase(125, "Stopped", msg)
    s.add_event(
        126,
        "IdleGpuTimeLimitReached",
        msg,
        type_="Normal",
        source="runai-workload-controller",
        kind="Workspace",
        obj_name=s.name,
    )
    s.add_pod(node="gpu-e-01", created=899, k8s_phase="Succeeded", updated=125, completed=125, deleted=125)
    return s.expect(
        "diagnosed",
        "SCHEDULING_POLICY_TERMINATED",
        "Stopped with an idle-GPU time-limit event (2h, interactiveJobMaxIdleDurationSeconds)",
        recurrence=1,
        detail="idle-timeout",
    )


def policy_max_duration() -> Story:
    s = Story(
        "policy-max-duration",
        "sweep-lr-12",
        "vision",
        "Stopped",
        phase_at=240,
        created=1700,
        desired_phase="Stopped",
        command="python sweep.py",
        args="--trial 12",
    )
    msg = "Workload stopped: maximum training duration of 24h reached (trainingJobTimeLimitSeconds=86400)"
    s.phase_message = msg
    s.add_phase(s.created, "Pending")
    s.add_phase(1680, "Running")
    s.add_phase(241, "Stopping", msg)
    s.add_phase(240, "Stopped", msg)
    s.add_event(
        241,
        "WorkloadTimeLimitReached",
        msg,
        type_="Normal",
        source="runai-workload-controller",
        kind="TrainingWorkload",
        obj_name=s.name,
    )
    s.add_pod(node="gpu-e-08", created=1690, k8s_phase="Succeeded", updated=240, completed=240, deleted=240)
    return s.expect(
        "diagnosed",
        "SCHEDULING_POLICY_TERMINATED",
        "Stopped after the project's 24h training duration limit",
        recurrence=1,
        detail="max-duration",
    )


def policy_manual_stop() -> Story:
    s = Story(
        "policy-manual-stop",
        "diarize-batch",
        "speech",
        "Stopped",
        phase_at=95,
        created=400,
        desired_phase="Stopped",
        command="python diarize.py",
        submitted_by="alice@example.com",
    )
    msg = "Workload stopped by user bob@example.com"
    s.phase_message = msg
    s.add_phase(s.created, "Pending")
    s.add_phase(395, "Running")
    s.add_phase(96, "Stopping", msg)
    s.add_phase(95, "Stopped", msg)
    s.add_event(
        96,
        "StopRequested",
        "Stop requested by bob@example.com via Control-plane",
        type_="Normal",
        source="runai-control-plane",
        kind="TrainingWorkload",
        obj_name=s.name,
    )
    s.add_pod(node="gpu-e-06", created=398, k8s_phase="Succeeded", updated=95, completed=95, deleted=95)
    return s.expect(
        "diagnosed",
        "SCHEDULING_POLICY_TERMINATED",
        "manual stop: desiredPhase Stopped and 'Stop requested by bob@example.com'",
        recurrence=1,
        detail="manual-stop",
    )


# -- UNKNOWN -------------------------------------------------------------------------------------------------
def unknown_137() -> Story:
    s = Story(
        "unknown-137",
        "embed-bulk",
        "genai",
        "Failed",
        phase_at=3 * 1440,
        created=3 * 1440 + 300,
        command="python embed.py",
        args="--shards 512",
        submitted_by="sofia@example.com",
    )
    pod = s.add_pod(
        node="gpu-w-02",
        created=3 * 1440 + 298,
        k8s_phase="Error",
        updated=3 * 1440,
        completed=3 * 1440,
        deleted=3 * 1440 - 30,
    )
    s.phase_message = _error_message(pod.name, 137)
    _lifecycle(s, 3 * 1440 + 295, 3 * 1440, "Failed", s.phase_message)
    s.add_series("CPU_MEMORY_USAGE_BYTES", flat(9 * GI, 3 * 1440 + 60, 3 * 1440 + 1, step_min=1))
    s.add_series("CPU_MEMORY_LIMIT_BYTES", flat(32 * GI, 3 * 1440 + 60, 3 * 1440 + 1, step_min=1))
    return s.expect(
        "diagnosed",
        "UNKNOWN",
        "exit 137 without OOMKilled; usage 9Gi of 32Gi; pod deleted, events expired (3d): nothing "
        "explains the SIGKILL",
        recurrence=1,
        lookback="7d",
    )


def unknown_no_signals() -> Story:
    s = Story(
        "unknown-no-signals",
        "ctr-baseline",
        "recsys",
        "Failed",
        phase_at=360,
        created=420,
        command="python baseline.py",
        submitted_by="lena@example.com",
    )
    s.add_phase(s.created, "Pending")
    s.add_phase(400, "Running")
    s.add_phase(360, "Failed", "")
    return s.expect(
        "diagnosed",
        "UNKNOWN",
        "Failed with empty phaseMessage, no events, no pods, no metrics, no Kubernetes objects",
        recurrence=1,
    )


def liveness_kill() -> Story:
    s = Story(
        "liveness-kill",
        "vllm-serve",
        "genai",
        "Running",
        phase_at=200,
        created=210,
        kind="Inference",
        mem=("64Gi", "64Gi"),
        command="vllm serve /models/llama-3-70b",
        running_pods=1,
        image="vllm/vllm-openai:v0.6.4",
        submitted_by="sofia@example.com",
    )
    pod = s.add_pod(node="gpu-w-07", created=209, k8s_phase="CrashLoopBackOff", updated=3)
    s.add_phase(s.created, "Pending")
    s.add_phase(200, "Running")
    probe = (
        'Liveness probe failed: Get "http://10.244.7.31:8000/health": context deadline exceeded '
        "(Client.Timeout exceeded while awaiting headers)"
    )
    kill = "Container main failed liveness probe, will be restarted"
    s.add_event(25, "Unhealthy", probe, pod=pod.name)
    s.add_event(24.5, "Killing", kill, type_="Normal", pod=pod.name)
    s.add_kube_event(5, "Unhealthy", probe, pod=pod.name, host="gpu-w-07", count=15, first=25)
    s.add_kube_event(4.5, "Killing", kill, pod=pod.name, type_="Normal", host="gpu-w-07", count=5, first=24.5)
    backoff = f"Back-off restarting failed container main in pod {pod.name}_{s.ns}({pod.uid})"
    s.add_kube_event(3, "BackOff", backoff, pod=pod.name, host="gpu-w-07", count=4, first=20)
    s.add_kube_pod(
        pod,
        [
            cstatus(
                "main",
                s.image,
                waiting("CrashLoopBackOff", backoff),
                last=terminated("Error", 137, 9, 4.5),
                restarts=5,
            )
        ],
        phase="Running",
    )
    s.add_log(
        pod.name, "INFO Loading model weights took 412.3s\nINFO Capturing CUDA graphs...\n", previous=True
    )
    s.add_series("CPU_MEMORY_USAGE_BYTES", flat(22 * GI, 60, 1))
    s.add_series("CPU_MEMORY_LIMIT_BYTES", flat(64 * GI, 60, 1))
    s.nodes.append(node("gpu-w-07"))
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "exit 137 explained by Unhealthy 'Liveness probe failed' + Killing 'failed liveness probe': "
        "not OOM (22Gi of 64Gi); the app/probe config is the user's to fix",
        recurrence=None,
        intent="active",
        detail="liveness-probe",
    )


FAILURE_STORIES: tuple[Callable[[], Story], ...] = (
    oom_rising,
    oom_empty_metrics,
    oom_request_below_limit,
    oom_recurring,
    oom_node_event_only,
    pull_not_found,
    pull_auth,
    pull_dns,
    pull_tls,
    pull_rate_limit,
    pull_invalid_name,
    init_exit,
    init_crashloop,
    mount_pvc_missing,
    mount_secret_missing,
    mount_multi_attach,
    mount_timeout,
    crash_traceback,
    crash_argparse,
    crash_command_not_found,
    crash_exec_format,
    crash_cuda_oom,
    crash_nccl,
    crash_running_crashloop,
    crash_recurring,
    node_notready_onfailure,
    node_drain_never,
    evicted_memory_pressure,
    policy_idle,
    policy_max_duration,
    policy_manual_stop,
    unknown_137,
    unknown_no_signals,
    liveness_kill,
)
