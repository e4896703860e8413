"""IMAGE_PULL_FAILED: one pending workload per way a pull fails (a missing tag, a refused login, DNS, TLS
trust, a registry rate limit, an image name that cannot be parsed), each with the detail that steers the advice.

The rate-limited one also answers its pods read with one 503, so a reader must retry it.
"""

from __future__ import annotations

from core.sim.demo.kit import (
    Family,
    Story,
    condition,
    cstatus,
    node,
    waiting,
)


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
        s.add_kube_event(1, "Failed", "Error: InvalidImageName", pod=pod.name, host=node_name, count=6, first=at)
        state = waiting("InvalidImageName", error)
    else:
        s.add_event(at, "Failed", error, pod=pod.name)
        s.add_event(at - 0.05, "Failed", "Error: ErrImagePull", pod=pod.name)
        s.add_event(at - 1, "BackOff", f'Back-off pulling image "{image}"', type_="Normal", pod=pod.name)
        s.add_kube_event(1.5, "Failed", error, pod=pod.name, host=node_name, count=5, first=at)
        s.add_kube_event(1.5, "Failed", "Error: ErrImagePull", pod=pod.name, host=node_name, count=5, first=at)
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
        s.add_kube_event(0.5, "Failed", "Error: ImagePullBackOff", pod=pod.name, host=node_name, count=40, first=at - 1)
        state = waiting("ImagePullBackOff", f'Back-off pulling image "{image}": ErrImagePull: {error}')
    s.add_kube_pod(
        pod,
        [cstatus("main", image, state)],
        phase="Pending",
        conditions=[
            condition("PodScheduled", "True", at + 1.5),
            condition("Ready", "False", at + 1.5, "ContainersNotReady", "containers with unready status: [main]"),
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
        "Pending with ErrImagePull/ImagePullBackOff: 'failed to resolve reference ... not found' -> fix the image tag",
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
        "ErrImagePull: 'lookup registry.internal.acme.io ... no such host' -> DNS/connectivity, not credentials",
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
        "ErrImagePull: 'x509: certificate signed by unknown authority' -> registry TLS trust, not a wrong tag",
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
    s.add_fault("pods", 503)
    return s.expect(
        "diagnosed",
        "IMAGE_PULL_FAILED",
        "ErrImagePull: '429 Too Many Requests ... toomanyrequests' -> rate limit: retry later or authenticate",
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


FAMILY = Family(
    "image-pull",
    stories=(
        pull_not_found,
        pull_auth,
        pull_dns,
        pull_tls,
        pull_rate_limit,
        pull_invalid_name,
    ),
)
