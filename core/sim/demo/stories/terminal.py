"""Logs as a terminal writes them, and programs that end: an init container's download script whose curl fails
after its progress meter (the error on the meter's own line, the shell passing on curl's exit code), and a serving
container that exits 0 at once, restarted for ever by its pod's `restartPolicy: Always`.
"""

from __future__ import annotations

from core.sim.demo.kit import Family, Story, condition, cstatus, node, terminated, waiting

_CURL_HEAD = (
    "  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n"
    "                                 Dload  Upload   Total   Spent    Left  Speed\n"
)


def init_curl_meter() -> Story:
    """curl -f meets a 404 after its meter has redrawn twice; the script's shell exits with curl's 22."""
    s = Story(
        "init-curl-meter",
        "sdxl-lora-ft",
        "vision",
        "Failed",
        phase_at=97,
        created=101,
        mem=("48Gi", "48Gi"),
        command="accelerate launch train_lora.py --base /weights/sd_xl_base_1.0.safetensors",
        submitted_by="mei@example.com",
    )
    pod = s.add_pod(node="gpu-e-05", created=100.5, k8s_phase="Init:Error", updated=97.2, completed=97.2)
    s.phase_message = f"Workload failed: pod {pod.name} init container fetch-weights terminated (Error), exit code 22"
    s.add_phase(s.created, "Pending")
    s.add_phase(100, "Initializing")
    s.add_phase(97, "Failed", s.phase_message)
    image = "docker.io/curlimages/curl:8.8.0"
    made = s.add_kube_pod(
        pod,
        [cstatus("main", s.image, waiting("PodInitializing"))],
        phase="Failed",
        init_containers=["fetch-weights"],
        init_statuses=[cstatus("fetch-weights", image, terminated("Error", 22, 97.25, 97.2))],
    )
    script = (
        "curl -fSL -o /weights/sd_xl_base_1.0.safetensors "
        "https://models.internal.example/sdxl/v1.0/sd_xl_base_1.0.safetensors && sha256sum -c /config/weights.sha256"
    )
    made["spec"]["initContainers"][0].update(image=image, command=["sh", "-c", script])
    meter = "".join(
        f"\r  0     0    0     0    0     0      0      0 --:--:-- {spent} --:--:--     0"
        for spent in ("--:--:--", " 0:00:01", " 0:00:02")
    )
    error = "curl: (22) The requested URL returned error: 404\n"
    s.add_log(pod.name, _CURL_HEAD + meter + error, container="fetch-weights")
    s.nodes.append(node("gpu-e-05"))
    return s.expect(
        "diagnosed",
        "INIT_FAILED",
        "init container fetch-weights (sh -c 'curl ... && sha256sum ...') exited 22: curl's 404 after its meter, on "
        "the meter's line",
        recurrence=1,
        cites="curl: (22) The requested URL returned error: 404",
    )


def serve_exit_zero() -> Story:
    """An embedding gateway whose entrypoint finds no model store configured and exits 0, 96 times so far."""
    s = Story(
        "serve-exit-zero",
        "embed-gateway",
        "genai",
        "Running",
        phase_at=150,
        created=153,
        kind="Inference",
        mem=("4Gi", "4Gi"),
        gpu=0.25,
        image="ghcr.io/acme/embed-gateway:1.8.3",
        command="python -m embed_gateway",
        running_pods=1,
        submitted_by="sofia@example.com",
    )
    pod = s.add_pod(node="gpu-w-11", created=152.5, k8s_phase="CrashLoopBackOff", updated=2.5)
    s.add_phase(s.created, "Pending")
    s.add_phase(150, "Running")
    message = f"Back-off restarting failed container main in pod {pod.name}_{s.ns}({pod.uid})"
    s.add_event(2.5, "BackOff", message, pod=pod.name, obj_uid=pod.uid)
    s.conditions = [
        condition("Available", "False", 148, "CrashLoopBackOff", f"container main in pod {pod.name} is waiting: "
                  "CrashLoopBackOff")
    ]
    s.add_kube_pod(
        pod,
        [
            cstatus(
                "main",
                s.image,
                waiting("CrashLoopBackOff", message.replace("Back-off", "back-off 5m0s")),
                last=terminated("Completed", 0, 2.7, 2.7),
                restarts=96,
            )
        ],
        phase="Running",
    )
    s.add_kube_event(1.2, "BackOff", message, pod=pod.name, host="gpu-w-11", count=574, first=148)
    s.add_log(
        pod.name,
        "embed-gateway 1.8.3 starting (pid 1)\nMODEL_STORE_URI is not set; nothing to serve, exiting\n",
        previous=True,
    )
    s.nodes.append(node("gpu-w-11"))
    return s.expect(
        "diagnosed",
        "UNKNOWN",
        "Running, container main exits 0 (Completed) 96 times under restartPolicy Always; previous log: "
        "MODEL_STORE_URI is not set",
        intent="active",
        cites="MODEL_STORE_URI is not set",
    )


FAMILY = Family("terminal", stories=(init_curl_meter, serve_exit_zero))
