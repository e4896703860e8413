"""Issue 37: log lines as a terminal writes them, and the program that ended the container.

1. The last second of a log is not "after the end": a container's `finishedAt` is whole seconds, a log stamps
   milliseconds (Python logging's `2026-11-30 11:32:12,411`, the kubelet's `2026-11-30T11:41:07.905112003Z`).
2. Progress meters: curl writes its meter and then its error on one line, `\\r` between redraws; git's
   `Receiving objects` meter ends in its `fatal:`.
3. `sh -c` scripts: the shell ended the container (busybox's and bash's syntax errors exit 2), unless the log
   says which command failed; a script that echoes "Java" does not run Java.
4. A container that exits 0 and is restarted for ever under `restartPolicy: Always`.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from core.sim.demo.kit import NOW, Json, Story, condition, cstatus, node, terminated, waiting
from tests.engine.test_rule_cases import lifecycle

Case = tuple[list[Story], Json, Json]
S = 1 / 60


def at(minutes_ago: float) -> datetime:
    """The instant `ts(minutes_ago)` writes (whole seconds, UTC)."""
    return NOW - timedelta(seconds=round(minutes_ago * 60))


def py_stamp(moment: datetime, ms: int) -> str:
    """Python logging's default `asctime`: `2026-11-30 11:32:12,411`."""
    return moment.strftime("%Y-%m-%d %H:%M:%S") + f",{ms:03d}"


def _req(s: Story) -> Json:
    return {"cluster_id": s.cluster, "workload_id": s.id}


def _failed(s: Story, code: int, *, started: float, ended: float, log: str, container_cmd: list[str] | None = None,
            reason: str = "Error", previous: bool = False) -> Story:
    """A one-pod workload whose main container ended with `code` at `ended` minutes ago, and its log."""
    pod = s.add_pod(node="gpu-w-31", created=started + 1, k8s_phase="Error", updated=ended, completed=ended)
    s.phase_message = f"Workload failed: pod {pod.name} container main terminated ({reason}), exit code {code}"
    lifecycle(s, started, s.phase_at, "Failed", s.phase_message)
    made = s.add_kube_pod(pod, [cstatus("main", s.image, terminated(reason, code, started, ended))], phase="Failed")
    if container_cmd is not None:
        made["spec"]["containers"][0]["command"] = container_cmd
    s.add_log(pod.name, log, previous=previous)
    s.nodes.append(node("gpu-w-31"))
    return s


# -- 1. the last second -----------------------------------------------------------------------------------------
def case_last_second_python() -> Case:
    """A fine-tune's checkpoint save fails in the container's last second: its ERROR line and traceback are
    stamped 11:32:12,411 and 11:32:12,412; the kubelet says the container finished at 11:32:12Z."""
    end = at(27.8)
    log = (
        f"{py_stamp(end - timedelta(seconds=31), 102)} INFO trainer: epoch 12 step 48000 loss 1.842\n"
        f"{py_stamp(end - timedelta(seconds=1), 950)} INFO trainer: saving checkpoint to /ckpt/step-48500.pt\n"
        f"{py_stamp(end, 411)} ERROR trainer: checkpoint save failed\n"
        "Traceback (most recent call last):\n"
        '  File "/workspace/train.py", line 244, in save_checkpoint\n'
        "    torch.save(state, path)\n"
        '  File "/usr/local/lib/python3.10/dist-packages/torch/serialization.py", line 628, in save\n'
        "    with _open_zipfile_writer(f) as opened_zipfile:\n"
        "OSError: [Errno 28] No space left on device: '/ckpt/step-48500.pt'\n"
        f"{py_stamp(end, 412)} INFO trainer: exiting with status 1\n"
    )
    s = Story("ff-term-01", "mistral-ft-ckpt", "nlp", "Failed", phase_at=27.5, created=6 * 60 + 5,
              command="python train.py --save-every 500")
    _failed(s, 1, started=6 * 60, ended=27.8, log=log)
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR", "recurrence": 1,
        "evidence": ["OSError: [Errno 28] No space left on device"], "noEvidence": ["no line that explains"],
        "recommendations": ["No space left on device"],
    }


def case_last_second_kubelet_stamps() -> Case:
    """A Go gateway's log captured with the kubelet's stamps (`kubectl logs --timestamps`, nanoseconds, Z): it
    fails to read its config 0.9 s into its last second."""
    end = at(12.4)

    def stamp(moment: datetime, ns: int) -> str:
        return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{ns:09d}Z"

    def klog(moment: datetime, micros: int, level: str) -> str:
        return f"{level}{moment.strftime('%m%d %H:%M:%S')}.{micros:06d}       1"

    early = end - timedelta(seconds=2)
    log = (
        f"{stamp(early, 201334512)} {klog(early, 201203, 'I')} main.go:88] starting feature-gateway v1.14.2\n"
        f"{stamp(early, 402117820)} {klog(early, 402001, 'I')} main.go:97] reading configuration from "
        "/etc/gateway/config.yaml\n"
        f"{stamp(end, 905112003)} {klog(end, 904981, 'E')} main.go:121] failed to load config: open "
        "/etc/gateway/config.yaml: no such file or directory\n"
    )
    s = Story("ff-term-02", "feature-gateway", "recsys", "Failed", phase_at=12.2, created=13,
              image="ghcr.io/acme/feature-gateway:1.14.2", command="/gateway", gpu=0)
    _failed(s, 1, started=12.45, ended=12.4, log=log)
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR", "recurrence": 1,
        "evidence": ["failed to load config: open /etc/gateway/config.yaml"],
        "noEvidence": ["no line that explains"],
    }


# -- 2. progress meters -----------------------------------------------------------------------------------------
CURL_HEAD = (
    "  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n"
    "                                 Dload  Upload   Total   Spent    Left  Speed\n"
)


def curl_meter(spent: int, tail: str) -> str:
    """curl's meter redrawn once a second (each redraw starts with `\\r`), its error written after the last."""
    rows = [
        f"\r  0     0    0     0    0     0      0      0 --:--:-- {'--:--:--' if s == 0 else f' 0:00:{s:02d}'} "
        "--:--:--     0"
        for s in range(spent + 1)
    ]
    return CURL_HEAD + "".join(rows) + tail + "\n"


def case_curl_meter_dns() -> Case:
    """A fine-tune's script downloads its weights with curl before it trains: the host does not resolve, curl
    writes `curl: (6) Could not resolve host` straight after its meter, and the shell passes on curl's 6."""
    s = Story("ff-term-03", "llama-ft-fetch", "nlp", "Failed", phase_at=44.5, created=47,
              command="sh -c 'curl -fSL -o /data/weights.safetensors "
              "https://models.internal.example/llama-3-8b/weights.safetensors && python finetune.py'")
    log = curl_meter(4, "curl: (6) Could not resolve host: models.internal.example")
    script = s.command.split(" ", 2)[2].strip("'")
    _failed(s, 6, started=44.9, ended=44.8, log=log, container_cmd=["sh", "-c", script])
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR", "recurrence": 1,
        "evidence": ["curl: (6) Could not resolve host: models.internal.example", "curl exit status 6"],
        "noEvidence": ["no line that explains"],
        "recommendations": ["could not be resolved"],
    }


GIT_FETCH = (
    "Cloning into '/workspace/src'...\n"
    "remote: Enumerating objects: 48213, done.\n"
    "remote: Counting objects: 100% (2210/2210), done.\n"
    "remote: Compressing objects: 100% (1024/1024), done.\n"
    "Receiving objects:   0% (1/48213)\rReceiving objects:   1% (483/48213)\rReceiving objects:  12% "
    "(5786/48213), 21.40 MiB | 10.69 MiB/s\rReceiving objects:  37% (17839/48213), 61.02 MiB | 10.11 MiB/s\r"
    "error: RPC failed; curl 92 HTTP/2 stream 5 was not closed cleanly: CANCEL (err 8)\n"
    "error: 2981 bytes of body are still expected\n"
    "fetch-pack: unexpected disconnect while reading sideband packet\n"
    "fatal: early EOF\n"
    "fatal: fetch-pack: invalid index-pack output\n"
)


def _init_failed(s: Story, container: str, image: str, code: int, log: str, **spec: object) -> Story:
    """`s` Failed: init container `container` (`image`, with `spec` for its command or args) exited `code` one
    minute before the workload's phase changed; `log` its only instance's."""
    pod = s.add_pod(node="gpu-w-31", created=s.created - 0.5, k8s_phase="Init:Error", updated=s.phase_at + 0.2,
                    completed=s.phase_at + 0.2)
    s.phase_message = f"Workload failed: pod {pod.name} init container {container} terminated (Error), exit code {code}"
    lifecycle(s, s.created - 1, s.phase_at, "Failed", s.phase_message)
    ended = terminated("Error", code, s.phase_at + 0.25, s.phase_at + 0.2)
    made = s.add_kube_pod(pod, [cstatus("main", s.image, waiting("PodInitializing"))], phase="Failed",
                          init_containers=[container], init_statuses=[cstatus(container, image, ended)])
    made["spec"]["initContainers"][0].update(image=image, **spec)
    s.add_log(pod.name, log, container=container)
    s.nodes.append(node("gpu-w-31"))
    return s


def case_git_meter_fatal() -> Case:
    """An init container clones the training code: git redraws its `Receiving objects` meter ending each redraw
    with `\\r`, the transfer breaks, and its `error:` overwrites the meter on the same line before its `fatal:`
    lines (git exits 128). The log reads as a terminal shows it: one line where the meter was."""
    s = Story("ff-term-04", "code-clone-train", "research", "Failed", phase_at=8.5, created=11)
    _init_failed(s, "fetch-code", "docker.io/alpine/git:2.45.2", 128, GIT_FETCH,
                 args=["clone", "--depth", "1", "https://git.internal.example/research/moe.git", "/workspace/src"])
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "INIT_FAILED", "recurrence": 1,
        "evidence": ["Log line 9 of container fetch-code", "fatal: fetch-pack: invalid index-pack output",
                     "git stopped on a fatal error"],
    }


# -- 3. sh -c scripts ------------------------------------------------------------------------------------------
def case_busybox_syntax_error() -> Case:
    """A busybox script that fetches a jar with wget: a `;` is missing before `then`, so ash stops on a syntax
    error before wget ever runs, and exits 2. Exit 2 is the shell's, not wget's "could not parse"."""
    script = (
        "wget -q -O /work/app.jar http://artifacts.internal.example/app.jar; "
        'if [ -s /work/app.jar ] then echo "Java app fetched"; fi'
    )
    s = Story("ff-term-05", "jar-runner", "speech", "Failed", phase_at=5.5, created=7, image="busybox:1.36.1",
              command=f"sh -c '{script}'", gpu=0)
    log = 'sh: syntax error: unexpected "fi" (expecting "then")\n'
    _failed(s, 2, started=6, ended=5.9, log=log, container_cmd=["sh", "-c", script])
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR", "recurrence": 1,
        "evidence": ['syntax error: unexpected "fi"', "sh exit status 2"],
        "noEvidence": ["wget exit status", "could not be parsed"],
    }


def case_bash_syntax_error() -> Case:
    """`bash -c` with a stray `)`: bash reports the token and the line it could not parse, and exits 2; the
    words of the script (python, its arguments) did not run."""
    script = "python train.py --epochs 3 --lr $(cat /config/lr.txt))"
    s = Story("ff-term-06", "bert-sweep-7", "nlp", "Failed", phase_at=3.2, created=5, command=f'bash -c "{script}"')
    log = (
        "bash: -c: line 1: syntax error near unexpected token `)'\n"
        f"bash: -c: line 1: `{script}'\n"
    )
    _failed(s, 2, started=3.5, ended=3.4, log=log, container_cmd=["bash", "-c", script])
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR", "recurrence": 1,
        "evidence": ["syntax error near unexpected token", "bash exit status 2"],
        "noEvidence": ["Python exit status", "script file Python could not open"],
    }


def case_busybox_echoes_java() -> Case:
    """A busybox init script that prints "Java" while it copies an agent jar: the copy fails, the script exits 1.
    Nothing here ran Java."""
    script = 'echo "Installing Java agent"; cp /agent/dd-java-agent.jar /shared/ || exit 1'
    s = Story("ff-term-07", "orders-api-batch", "recsys", "Failed", phase_at=15.5, created=18, gpu=0,
              image="eclipse-temurin:21-jre", command="java -jar /app/orders.jar")
    log = "Installing Java agent\ncp: can't stat '/agent/dd-java-agent.jar': No such file or directory\n"
    _init_failed(s, "agent", "busybox:1.36.1", 1, log, command=["sh", "-c", script])
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "INIT_FAILED", "recurrence": 1,
        "evidence": ["can't stat '/agent/dd-java-agent.jar'", "sh exit status 1"],
        "noEvidence": ["Java program", "Java exit status"],
    }


# -- 4. exit 0, restarted for ever -----------------------------------------------------------------------------
def _exits_zero(s: Story, log: str, *, ended: float, restarts: int, back_offs: int, back_off: str) -> Story:
    """`s`, Running, its one pod's container exiting 0 (Completed) `ended` minutes ago and started again by the
    kubelet (`back_offs` back-offs since the workload started), `log` its previous instance's."""
    s.add_phase(s.created, "Pending").add_phase(s.phase_at, "Running")
    pod = s.add_pod(node="gpu-w-31", created=s.created - 0.5, k8s_phase="CrashLoopBackOff", updated=ended - 0.1)
    message = f"Back-off restarting failed container main in pod {pod.name}_{s.ns}({pod.uid})"
    s.add_event(ended - 0.1, "BackOff", message, pod=pod.name, obj_uid=pod.uid)
    waited = f"back-off {back_off} restarting failed container=main pod={pod.name}_{s.ns}({pod.uid})"
    s.add_kube_pod(pod, [cstatus("main", s.image, waiting("CrashLoopBackOff", waited),
                                 terminated("Completed", 0, ended, ended), restarts=restarts)],
                   phase="Running")
    s.add_kube_event(ended - 0.2, "BackOff", message, pod=pod.name, count=back_offs, first=s.phase_at - 1)
    s.add_log(pod.name, log, previous=True)
    s.nodes.append(node("gpu-w-31"))
    return s


def case_exit_zero_crash_loop() -> Case:
    """An inference service (a Deployment: restartPolicy Always) whose entrypoint checks its environment, says
    `DEPLOY_ENV is not set` and exits 0; the kubelet restarts it, 212 times since this morning."""
    s = Story("ff-term-08", "orders-ranker", "recsys", "Running", phase_at=5 * 60, created=5 * 60 + 3,
              kind="Inference", image="ghcr.io/acme/orders-ranker:3.2.0", command="/entrypoint.sh",
              running_pods=1, gpu=0.5)
    s.conditions = [condition("Available", "False", 5 * 60 - 2, "CrashLoopBackOff",
                              f"container main in pod {s.pod_name()} is waiting: CrashLoopBackOff")]
    _exits_zero(s, "DEPLOY_ENV is not set\n", ended=1.6, restarts=212, back_offs=1190, back_off="5m0s")
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "UNKNOWN", "recurrence": 1,
        "evidence": ["DEPLOY_ENV is not set", "restarted 212 times"], "noEvidence": ["no line that explains"],
        "text": ["keeps exiting 0", "restartPolicy Always"],
        "recommendations": ["a setting it needs is missing"],
    }


def case_exit_zero_last_words() -> Case:
    """A queue worker deployed as a Workspace (restartPolicy Always): it finds its queue empty, says so at INFO and
    exits 0, and is started again. No line reads as a failure: its last line is what it said as it stopped."""
    s = Story("ff-term-09", "orders-sync", "recsys", "Running", phase_at=40, created=42, kind="Workspace",
              image="ghcr.io/acme/orders-sync:0.9.1", command="python -m orders_sync", running_pods=1, gpu=0,
              restart_policy="Always")
    end = at(1.0)
    log = (
        f"{py_stamp(end, 221)} INFO sync: connected to amqp://mq.internal:5672, queue orders-sync\n"
        f"{py_stamp(end, 305)} INFO sync: no jobs in queue orders-sync; exiting\n"
    )
    _exits_zero(s, log, ended=1.0, restarts=14, back_offs=61, back_off="2m40s")
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "UNKNOWN", "recurrence": 1,
        "evidence": ["the last it wrote before it exited 0", "no jobs in queue orders-sync; exiting",
                     "keeps exiting 0"],
        "noEvidence": ["no line that explains"],
        "noRecommendations": ["a setting it needs is missing", "Nothing read names the cause"],
    }


CASES = {
    "log-last-second-python": case_last_second_python,
    "log-last-second-kubelet-stamps": case_last_second_kubelet_stamps,
    "log-curl-meter-dns": case_curl_meter_dns,
    "log-git-meter-fatal": case_git_meter_fatal,
    "sh-busybox-syntax-error": case_busybox_syntax_error,
    "sh-bash-syntax-error": case_bash_syntax_error,
    "sh-busybox-echoes-java": case_busybox_echoes_java,
    "crash-loop-exit-zero": case_exit_zero_crash_loop,
    "crash-loop-exit-zero-last-words": case_exit_zero_last_words,
}
