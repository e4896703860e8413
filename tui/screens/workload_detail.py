"""The full view of one workload row (`v`, in DetailScreen): every field, whole, of a row of the picker or of a
node's workloads (tui/screens/node_workloads.py), which both show the same Workload."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from rich.text import Text

from core.models.runai import Workload
from core.safety.untrusted import clean
from tui.clock import relative_time
from tui.words import field_lines

FULL = 4000  # longest value shown in the full view; a phase message is rarely past a few hundred characters


def _when(at: datetime | None, now: datetime) -> str:
    if at is None:
        return "unknown"
    moment = at if at.tzinfo is not None else at.replace(tzinfo=UTC)
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC ({relative_time(moment, now)})"


def _text(value: object) -> str:
    return clean(value, max_len=FULL) if value not in (None, "") else "—"


def workload_detail(
    workload: Workload, now: datetime, clusters: Mapping[str, str], why: str | None = None, verdict: str | None = None
) -> Text:
    """Every field of a picker row, whole: what the columns and the message line had to cut, its verdict
    (from the background diagnosis) included."""
    cluster = workload.cluster_id or ""
    cluster_shown = f"{clusters[cluster]} ({cluster})" if cluster in clusters else cluster
    fields = [
        ("Name", _text(workload.name)),
        ("Workload id", _text(workload.id)),
        ("Project", _text(workload.project_name)),
        ("Cluster", _text(cluster_shown)),
        ("Phase", f"{_text(workload.phase)} since {_when(workload.phase_updated_at, now)}"),
        *([("Verdict", "being diagnosed in the background" if verdict == "…" else clean(verdict, max_len=200))]
          if verdict else []),
        ("Created", _when(workload.created_at, now)),
        ("Kubernetes phase", _text(workload.k8s_phase)),
        ("Type", _text(workload.type)),
        ("Submitted by", _text(workload.submitted_by)),
    ]
    if why:
        fields.append(("Needs attention", clean(why, max_len=FULL)))
    fields.append(("Phase message", _text(workload.phase_message)))
    for condition in workload.conditions or ():
        said = " ".join(clean(x, max_len=FULL) for x in (condition.reason, condition.message) if x)
        fields.append((f"Condition {_text(condition.type)}", f"{_text(condition.status)} {said}".strip()))
    text = field_lines(fields)
    text.append("\n\nenter diagnoses this workload after the view is closed", style="dim")
    return text
