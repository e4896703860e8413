"""The picker's words: the line under the table and the full view of one workload (`v`). Plain functions of
what the screen knows, so they are tested and read without a terminal."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from rich.text import Text

from core.models.runai import Workload
from core.safety.untrusted import clean
from core.triage.attention import AttentionPage
from tui.clock import relative_time
from tui.picker_query import PickerQuery, Sort
from tui.widgets.page_indicator import rows_text
from tui.words import field_lines, plural

FULL = 4000  # longest value shown in the full view; a phase message is rarely past a few hundred characters


@dataclass(frozen=True, slots=True)
class IndicatorState:
    query: PickerQuery
    sort: Sort
    offset: int | None  # start of the page on screen; None before the first page (or on an error)
    shown: int
    total: int | None
    total_problem: str | None
    loading: bool
    hidden: int
    unreadable: int
    last_page: bool
    attention: AttentionPage | None


def indicator_parts(s: IndicatorState) -> list[str]:
    parts: list[str] = []
    page = s.attention
    if page is not None:
        of = f"{s.total:,}" if s.total is not None else "?" if s.total_problem else "…"
        parts.append("NEEDS ATTENTION")
        parts.append(plural(s.shown, "row"))
        parts.append(f"{page.scanned:,}/{of} checked")
        if page.event_reads:
            parts.append(f"{plural(page.event_reads, 'event read')}")
        if page.unconfirmed:
            parts.append(f"{page.unconfirmed} unconfirmed")
        if page.budget_hit:
            parts.append("] checks further")
    elif s.offset is not None:
        parts.append(rows_text(s.offset, s.shown, s.total, s.total_problem))
    parts.append(s.sort.describe())
    if s.last_page and s.offset is not None:
        parts.append("last page")
    if s.query.name and s.query.name != s.query.server_name():
        parts.append("name matched ignoring case")
    if s.loading:
        parts.append("loading…")
    if s.total_problem:
        parts.append(f"total unknown ({s.total_problem})")
    if s.hidden:
        parts.append(f"{plural(s.hidden, 'row')} hidden: did not match the filter")
    if s.unreadable:
        parts.append(f"{plural(s.unreadable, 'item')} could not be read")
    return parts


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
