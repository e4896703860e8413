"""The app's logic that needs no terminal: page keys (tui.paging), the picker's query (tui.picker_query), the
needs-attention judgement (core.triage.attention), the memory chart's arithmetic (tui.widgets.memory.plot), advice in
the app's terms (tui.next_steps), settings (tui.settings) and counted words (tui.words)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core.models.advice import Action, Do, Said, said
from core.models.report import ActionText, HistoryEntry, Recurrence, Report, WorkloadRef
from core.models.runai import Workload, WorkloadEvent
from core.triage.attention import judge_events, judge_listed
from tui.next_steps import for_the_app
from tui.paging import Go, PageNav, Stay
from tui.picker_query import QUIET_PHASES, NameFilterError, PickerQuery, Sort, next_sort, sort_for_column
from tui.settings import Settings, config_dir, load_settings, save_settings
from tui.widgets.memory.plot import failure_times, plot_spec, run_spans
from tui.words import plural

T0 = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)
GIB = 1024**3


# -- paging ------------------------------------------------------------------------------------------------
def test_every_press_counts_and_presses_in_flight_are_coalesced() -> None:
    nav = PageNav(limit=10)
    nav.total = 1000
    assert nav.step(+1) == Go(10)
    # Nine more presses while page 2 is on its way: no request each, one target.
    moves = [nav.step(+1) for _ in range(9)]
    assert all(m == Stay() for m in moves) and nav.offset == 100
    # Page 2 lands: it is not shown, the page the presses add up to is asked for instead.
    assert nav.landed(10, 20) == Go(100)
    assert nav.landed(100, 110) == Stay()


def test_edges_and_first_last() -> None:
    nav = PageNav(limit=10)
    nav.total = 35
    assert nav.step(-1) == Stay("first")
    assert nav.last() == Go(30)
    nav.landed(30, None)
    assert nav.step(+1) == Stay("last")
    assert nav.step(+5) == Stay("last")
    assert nav.first() == Go(0)
    nav.landed(0, 10)
    assert nav.first() == Stay("first")


def test_unknown_total_queues_next_until_the_page_says_where_it_goes() -> None:
    nav = PageNav(limit=10)
    assert nav.reload() == Go(0)
    assert nav.step(+1) == Stay() and nav.step(+1) == Stay()  # queued behind page 1
    assert nav.landed(0, 10) == Go(10)
    assert nav.landed(10, 20) == Go(20)  # the second queued press
    assert nav.landed(20, None) == Stay()
    assert nav.step(+1) == Stay("last")
    assert isinstance(nav.last(), Stay) and "not counted" in (nav.last().note or "")  # type: ignore[union-attr]


def test_walked_pages_go_back_to_where_they_began() -> None:
    nav = PageNav(limit=10, walked=True)
    nav.reload()
    nav.landed(0, 37)  # the first page of the view ended at server offset 37
    assert nav.step(+1) == Go(37)
    nav.landed(37, 90)
    assert nav.step(+1) == Go(90)
    nav.landed(90, None)
    assert nav.step(+1) == Stay("last")
    assert nav.step(-2) == Go(0)  # two back: where the first page began
    nav.landed(0, 37)
    assert nav.step(-1) == Stay("first")
    assert "not known" in (nav.last().note or "")  # type: ignore[union-attr]


# -- the query ---------------------------------------------------------------------------------------------
def test_filters_sent_and_rechecked() -> None:
    q = PickerQuery("c-1", "nlp", "LLaMa", attention=True)
    filters = q.filters()
    assert filters[:3] == ["clusterId==c-1", "projectName==nlp", "name=@llama"]
    assert filters[3:] == [f"phase!={phase}" for phase in QUIET_PHASES]
    assert q.matches("my-llama-ft", "nlp", "c-1", "Failed")
    assert not q.matches("my-llama-ft", "nlp", "c-1", "Completed")
    assert not q.matches("bert", "nlp", "c-1", "Failed")
    assert PickerQuery().describe() == "workloads in any project on all clusters"


def test_a_comma_in_the_name_says_what_to_do() -> None:
    with pytest.raises(NameFilterError) as caught:
        PickerQuery(name="a,b").filters()
    message = str(caught.value)
    assert "comma" in message and "before or after" in message
    assert "UNVERIFIED" not in message and "client side" not in message


def test_sort_cycle_and_header_clicks() -> None:
    assert Sort().describe() == "newest first"
    assert next_sort(Sort()) == Sort("name", False)
    assert next_sort(Sort("name", False)).field == "projectName"
    assert sort_for_column("name", Sort()) == Sort("name", False)
    assert sort_for_column("name", Sort("name", False)) == Sort("name", True)
    assert sort_for_column("updated", Sort("name", False)) == Sort("phaseUpdatedAt", True)
    assert sort_for_column("message", Sort()) is None
    assert Sort("name", True).describe() == "by name Z→A"


# -- needs attention ---------------------------------------------------------------------------------------
def _workload(phase: str, message: str | None = None) -> Workload:
    return Workload.model_validate({"id": "w", "name": "n", "phase": phase, "phaseMessage": message})


def _event(reason: str, message: str) -> WorkloadEvent:
    return WorkloadEvent.model_validate(
        {"createdAt": "2026-11-30T10:00:00Z", "type": "Warning", "clusterId": "c", "reason": reason, "message": message}
    )


def test_attention_judgement() -> None:
    assert judge_listed(_workload("Failed")).keep  # type: ignore[union-attr]
    assert judge_listed(_workload("Stopped")).keep  # type: ignore[union-attr]
    assert not judge_listed(_workload("Completed")).keep  # type: ignore[union-attr]
    assert judge_listed(_workload("Pending")) is None  # its events decide
    pending = _workload("Pending")
    pull = _event("Failed", 'Failed to pull image "x:1": not found')
    assert judge_events(pending, [pull]).keep
    waiting = _event("FailedScheduling", "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.")
    assert not judge_events(pending, [waiting]).keep
    running = _workload("Running")
    assert judge_events(running, [_event("BackOff", "Back-off restarting failed container main")]).keep
    assert not judge_events(running, [pull]).keep  # a pull problem does not make a Running workload crash


# -- the memory chart --------------------------------------------------------------------------------------
def test_plot_spec_scales_marks_and_shades() -> None:
    samples = [(T0 + timedelta(minutes=m), (10 + m) * GIB) for m in range(0, 61)]
    failures = [T0 + timedelta(minutes=59), T0 - timedelta(days=1)]  # the second is outside the samples
    windows = [(T0 + timedelta(minutes=30), T0 + timedelta(hours=2), "failed run")]
    spec = plot_spec(samples, 72 * GIB, 64 * GIB, failures, windows)
    assert spec is not None and spec.unit == "GiB"
    assert spec.limit == 72 and spec.request == 64
    assert spec.peak == (3600.0, 70.0)
    assert spec.failures == [59 * 60.0]
    assert [(s.start, s.end) for s in spec.shaded] == [(1800.0, 3600.0)]
    assert spec.top > 72  # the limit line is inside the frame
    assert spec.x_labels[0] == "10:00" and spec.x_labels[-1] == "11:00"
    assert spec.y_labels[0] == "0" and spec.y_labels[-1] == "72 GiB"
    # A request equal to the limit is one line, not two; no samples is no chart.
    same = plot_spec(samples, 72 * GIB, 72 * GIB)
    assert same is not None and same.request is None
    assert plot_spec([], 72 * GIB, 64 * GIB) is None
    # A run that spans the whole axis is not shaded (it would say nothing).
    whole = plot_spec(samples, None, None, (), [(T0 - timedelta(hours=1), T0 + timedelta(hours=3), "run")])
    assert whole is not None and whole.shaded == [] and whole.limit is None


def test_failure_marks_one_per_occurrence_and_windows_read_tolerantly() -> None:
    history = [
        HistoryEntry(at=T0 + timedelta(seconds=6), kind="phase", text="Failed", failure=True, occurrence=0),
        HistoryEntry(at=T0, kind="event", text="OOMKilled", failure=True, occurrence=0),
        HistoryEntry(at=T0 + timedelta(hours=1), kind="event", text="OOMKilled", failure=True, occurrence=1),
        HistoryEntry(at=T0, kind="phase", text="Running", failure=False),
    ]
    assert failure_times(history) == [T0, T0 + timedelta(hours=1)]
    spans = run_spans([{"start": T0.isoformat(), "end": "2026-11-30T11:00:00+00:00", "run": "failed run"},
                       {"start": "garbage"}, {"end": "x"}])
    assert spans == [(T0, T0 + timedelta(hours=1), "failed run")]


# -- advice in the app's terms -----------------------------------------------------------------------------
def _report(*sentences: Said, notes: tuple[str, ...] = ()) -> Report:
    return Report(
        outcome="running",
        workload=WorkloadRef(id="w"),
        recurrence=Recurrence(lookback="24h"),
        recommendations=[s.text for s in sentences],
        notes=list(notes),
        actions=[ActionText.of(s) for s in sentences],
    )


@pytest.mark.parametrize(
    ("sentence", "app_words", "gone"),
    [
        (said("Did you mean a past run? ", Do(Action.GIVE_WORKLOAD_ID, "that run's"), ", or ",
              Do(Action.WIDEN_LOOKBACK, "the window"), "."),
         "Did you mean a past run? Choose that run in the picker (esc, then enter on its row), or press b to widen "
         "the lookback.", "--lookback"),
        (said("it is not in the recurrence count; ", Do(Action.WIDEN_LOOKBACK), " to count it"),
         "it is not in the recurrence count; widen the lookback (press b) to count it", "--lookback"),
        (said(Do(Action.USE_ACTIVE), ", or ", Do(Action.GIVE_WORKLOAD_ID), "."),
         "For a current crash loop or start failure, choose its Running or Pending row in the picker (a lists the "
         "ones that need attention), or choose that run in the picker (esc, then enter on its row).", "--active"),
        (said(Do(Action.GIVE_WORKLOAD_ID, "meant"), ", or ", Do(Action.DROP_ACTIVE), "."),
         "Choose that run in the picker (esc, then enter on its row), or choose its last failed run in the picker.",
         "--active"),
    ],
)
def test_advice_says_what_to_press(sentence: Said, app_words: str, gone: str) -> None:
    report = _report(sentence)
    assert gone in sentence.text  # the command line's words name the flag ...
    said_in_app = for_the_app(report, sentence.text)
    assert said_in_app == app_words and gone not in said_in_app  # ... the app's the key


def test_advice_read_back_from_json_is_still_data() -> None:
    sentence = said("Nothing failed. If a different run failed, ", Do(Action.GIVE_WORKLOAD_ID, "its"), ".")
    data = _report(sentence).to_json_dict()
    assert data["actions"][0]["keys"] == ["give_workload_id"] and data["recommendations"] == [sentence.text]
    again = Report.model_validate(data)
    assert for_the_app(again, sentence.text) == (
        "Nothing failed. If a different run failed, choose that run in the picker (esc, then enter on its row)."
    )


def test_advice_leaves_other_text_alone() -> None:
    text = "Fix the code behind the failing log line: \"KeyError: 'labels'\"; widen --lookback to count it."
    # Words that only read like an action are not one: the report holds its actions as data.
    report = _report(said("Did you mean a past run? ", Do(Action.GIVE_WORKLOAD_ID, "its"), "."), notes=(text,))
    assert for_the_app(report, text) == text


# -- settings ----------------------------------------------------------------------------------------------
def test_settings_round_trip_and_xdg(tmp_path: Path) -> None:
    assert config_dir({"XDG_CONFIG_HOME": str(tmp_path)}) == tmp_path / "runai-triage"
    directory = tmp_path / "runai-triage"
    assert load_settings(directory) == (Settings(), None)  # nothing saved yet: defaults, no complaint
    assert save_settings(directory, Settings(theme="nord")) is None
    assert load_settings(directory) == (Settings(theme="nord"), None)
    assert json.loads((directory / "settings.json").read_text())["theme"] == "nord"


@pytest.mark.parametrize(
    ("body", "complains"), [("{not json", True), ("[1, 2]", True), ("\udcff", True), ('{"theme": 7}', False)]
)
def test_a_broken_settings_file_gives_defaults(tmp_path: Path, body: str, complains: bool) -> None:
    (tmp_path / "settings.json").write_text(body, encoding="utf-8", errors="surrogateescape")
    settings, problem = load_settings(tmp_path)
    assert settings == Settings()  # a theme that is not a name is ignored like a broken file
    assert (problem is not None and "settings.json" in problem) is complains


def test_saving_where_it_cannot_says_why(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    problem = save_settings(blocker / "runai-triage", Settings(theme="nord"))
    assert problem is not None and "could not be saved" in problem


def test_plural() -> None:
    assert plural(1, "submission") == "1 submission"
    assert plural(2, "submission") == "2 submissions"
    assert plural(1, "line") == "1 line"
    assert plural(3, "event read") == "3 event reads"
    assert plural(2, "match") == "2 matches"
    assert plural(1_200, "row") == "1,200 rows"
