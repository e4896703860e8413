"""One name submitted many times: three live `chat-agent` workspaces none of which is failing (ambiguous:
ask for an id), and four `resnet-bench` runs over eight days where a terminal-intent lookup must pick the newest
terminal one.
"""

from __future__ import annotations

from core.sim.demo.kit import (
    GI,
    Family,
    Story,
    cstatus,
    error_message,
    oom_message,
    running,
)


def _chat_agent(n: int, phase: str, at: float) -> Story:
    s = Story(
        f"ambiguous-{n}",
        "chat-agent",
        "nlp",
        phase,
        phase_at=at,
        created=at + 2,
        kind="Workspace",
        running_pods=1 if phase == "Running" else 0,
        command="python agent.py --ui",
        submitted_by=("alice@example.com", "bob@example.com", "priya@example.com")[n - 1],
    )
    s.add_phase(s.created, "Pending")
    pod = s.add_pod(node="gpu-e-01" if phase == "Running" else None, created=at + 1, k8s_phase=phase, updated=at)
    if phase == "Running":
        s.add_phase(at, "Running")
        if at <= 60:
            s.add_kube_pod(pod, [cstatus("main", s.image, running(at))], phase="Running")
    else:
        s.phase_message = "Workload is pending: 0/6 nodes are available: 6 Insufficient nvidia.com/gpu."
    return s


def ambiguous_stories() -> list[Story]:
    stories = [_chat_agent(1, "Running", 45), _chat_agent(2, "Running", 1500), _chat_agent(3, "Pending", 10)]
    stories[0].expect(
        "ambiguous",
        None,
        "active-intent lookup: 3 Running/Pending 'chat-agent' submissions in nlp, "
        "none with a failure symptom: ask for a workload id",
        key="ambiguous-chat-agent",
        intent="active",
        lookup="name",
    )
    # No single workload is the answer, and no report is made, so there is nothing to count either.
    stories[0].expectations[0].update(workloadId=None, recurrence=None)
    return stories


def resnet_bench_stories() -> list[Story]:
    """One name, four submissions over eight days: a terminal-intent lookup picks the newest terminal one."""
    out: list[Story] = []
    done = Story(
        "resnet-bench-1",
        "resnet-bench",
        "vision",
        "Completed",
        phase_at=8 * 1440,
        created=8 * 1440 + 90,
        completed_at=8 * 1440,
    )
    done.add_phase(done.created, "Pending").add_phase(8 * 1440 + 88, "Running").add_phase(8 * 1440, "Completed")
    done.add_pod(
        node="gpu-e-03",
        created=8 * 1440 + 89,
        k8s_phase="Succeeded",
        updated=8 * 1440,
        completed=8 * 1440,
        deleted=8 * 1440 - 1,
    )
    done.expect("succeeded", None, "Completed 8 days ago", lookback="7d")
    out.append(done)

    oom = Story(
        "resnet-bench-2",
        "resnet-bench",
        "vision",
        "Failed",
        phase_at=5 * 1440,
        created=5 * 1440 + 60,
        mem=("12Gi", "12Gi"),
        args="--batch-size 1024",
    )
    pod = oom.add_pod(
        node="gpu-e-04",
        created=5 * 1440 + 59,
        k8s_phase="OOMKilled",
        updated=5 * 1440,
        completed=5 * 1440,
        deleted=5 * 1440 - 2,
    )
    oom.phase_message = oom_message(pod.name)
    oom.add_phase(oom.created, "Pending").add_phase(5 * 1440 + 57, "Running")
    oom.add_phase(5 * 1440, "Failed", oom.phase_message)
    oom.add_event(5 * 1440 + 0.1, "OOMKilled", "Container main was OOM killed", pod=pod.name, in_events=False)
    oom.expect(
        "diagnosed",
        "OOM_KILLED",
        "5 days old: pod k8sPhase OOMKilled and history OOMKilled event; Kubernetes has forgotten it",
        recurrence=1,
        lookback="7d",
        memory={
            "request": "12Gi",
            "limit": "12Gi",
            "requestBytes": 12 * GI,
            "limitBytes": 12 * GI,
            "peakBytes": None,
        },
    )
    out.append(oom)

    crash = Story(
        "resnet-bench-3",
        "resnet-bench",
        "vision",
        "Failed",
        phase_at=26 * 60,
        created=26 * 60 + 20,
        args="--batch-size 256 --amp",
    )
    pod = crash.add_pod(
        node="gpu-e-04",
        created=26 * 60 + 19,
        k8s_phase="Error",
        updated=26 * 60,
        completed=26 * 60,
        deleted=26 * 60 - 2,
    )
    crash.phase_message = error_message(pod.name, 1)
    crash.add_phase(crash.created, "Pending").add_phase(26 * 60 + 17, "Running")
    crash.add_phase(26 * 60, "Failed", crash.phase_message)
    crash.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "newest terminal 'resnet-bench' submission (26h ago): exit 1, no signal; logs and events are gone, say so",
        recurrence=1,
        lookback="7d",
    )
    crash.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "terminal-intent name lookup: 4 submissions; the Running one is "
        "newer but not terminal, so the 26h-old Failed one is picked",
        key="resnet-bench-by-name",
        lookup="name",
        recurrence=1,
        lookback="7d",
    )
    out.append(crash)

    live = Story(
        "resnet-bench-4",
        "resnet-bench",
        "vision",
        "Running",
        phase_at=20,
        created=22,
        running_pods=1,
        args="--batch-size 256",
    )
    live.add_phase(live.created, "Pending").add_phase(20, "Running")
    lpod = live.add_pod(node="gpu-e-05", created=21, k8s_phase="Running", updated=20)
    live.add_kube_pod(lpod, [cstatus("main", live.image, running(20))], phase="Running")
    live.expect("running", None, "current submission runs normally")
    out.append(live)
    return out


FAMILY = Family(
    "many-submissions",
    stories=(
        ambiguous_stories,
        resnet_bench_stories,
    ),
)
