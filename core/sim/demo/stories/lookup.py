"""Finding the workload by name: the same name in another project, a deleted workload, and the lookups that
belong to no story of their own (the OOM story asked for by name, a name that does not exist).
"""

from __future__ import annotations

from core.sim.demo.kit import (
    PROJECTS,
    Family,
    Json,
    Story,
    error_message,
    uid,
)


def same_name_other_project() -> Story:
    s = Story(
        "same-name-research",
        "llama-ft-7b",
        "research",
        "Completed",
        phase_at=2 * 1440,
        created=2 * 1440 + 600,
        completed_at=2 * 1440,
        mem=("48Gi", "48Gi"),
        submitted_by="dmitri@example.com",
    )
    s.add_phase(s.created, "Pending").add_phase(2 * 1440 + 590, "Running").add_phase(2 * 1440, "Completed")
    s.add_pod(
        node="gpu-e-10",
        created=2 * 1440 + 595,
        k8s_phase="Succeeded",
        updated=2 * 1440,
        completed=2 * 1440,
        deleted=2 * 1440 - 5,
    )
    s.expect(
        "succeeded",
        None,
        "same name as nlp's OOMKilled run, but project research: its own newest terminal run Completed",
        lookup="name",
        lookback="7d",
    )
    return s


def deleted_failed() -> Story:
    s = Story(
        "deleted-failed",
        "kws-tiny",
        "speech",
        "Failed",
        phase_at=2 * 1440,
        created=2 * 1440 + 45,
        deleted_at=1440,
        command="python kws.py",
        submitted_by="bob@example.com",
    )
    pod = s.add_pod(
        node="gpu-e-06",
        created=2 * 1440 + 44,
        k8s_phase="Error",
        updated=2 * 1440,
        completed=2 * 1440,
        deleted=1440,
    )
    s.phase_message = error_message(pod.name, 1)
    s.add_phase(s.created, "Pending").add_phase(2 * 1440 + 40, "Running").add_phase(2 * 1440, "Failed", s.phase_message)
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "deleted workload (listed only with deleted=true; its own endpoints answer): exit 1",
        recurrence=1,
        lookback="7d",
    )


def name_lookup_of_oom_rising() -> Json:
    return {
        "key": "llama-ft-7b-by-name",
        "workloadId": uid("workload", "oom-rising"),
        "clusterId": PROJECTS["nlp"].cluster,
        "name": "llama-ft-7b",
        "project": "nlp",
        "intent": "terminal",
        "lookup": "name",
        "lookback": "24h",
        "outcome": "diagnosed",
        "category": "OOM_KILLED",
        "why": "name lookup must keep to project nlp (research has a Completed run of the same name)",
        "recurrence": 1,
    }


def not_found() -> Json:
    return {
        "key": "not-found",
        "workloadId": None,
        "clusterId": PROJECTS["nlp"].cluster,
        "name": "ghost-job",
        "project": "nlp",
        "intent": "terminal",
        "lookup": "name",
        "lookback": "24h",
        "outcome": "not-found",
        "category": None,
        "why": "no workload named ghost-job in project nlp on demo-east",
        "recurrence": None,
    }


FAMILY = Family(
    "lookup",
    stories=(
        same_name_other_project,
        deleted_failed,
    ),
    expectations=(
        name_lookup_of_oom_rising,
        not_found,
    ),
)
