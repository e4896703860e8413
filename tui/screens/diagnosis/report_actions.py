"""Copy and export of a finished diagnosis, for the diagnosis screen (a mixin: it reads the screen's `report`,
`failure`, clock and export settings). Files are written off the UI thread and answered with one message.

`c` sends the text report to the terminal's clipboard with OSC 52 and, because nothing tells the app whether
the terminal accepted it, also keeps the same text in a file; the notice says both, and where the file is.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

from textual import work
from textual.message import Message
from textual.screen import Screen

from core.diagnosis.request import DiagnosisRequest
from core.models.report import Report
from tui.clock import Clock, system_clock
from tui.export import Exported, ExportError, ExportFormat, export_dir, write_export
from tui.export import render as as_filed
from tui.words import plural


class CopyFinished(Message):
    """The copy key's file fall-back was written (path) or not (problem)."""

    def __init__(self, lines: int, path: Path | None, problem: str | None) -> None:
        super().__init__()
        self.lines = lines
        self.path = path
        self.problem = problem


class ExportFinished(Message):
    def __init__(self, exported: Exported | None, problem: str | None) -> None:
        super().__init__()
        self.exported = exported
        self.problem = problem


class ReportActions(Screen[None]):
    """`c` copy, `e` / `j` export: mixed into the diagnosis screen."""

    report: Report | None
    failure: object | None
    base_request: DiagnosisRequest
    exports: list[Path]
    copies: list[Path]
    _env: Mapping[str, str] | None
    _export_to: Path | None
    _clock: Clock | None

    def _need_report(self, what: str) -> Report | None:
        if self.report is None:
            state = "the diagnosis failed" if self.failure else "the diagnosis is still running"
            self.notify(f"Nothing to {what} yet: {state}.", severity="warning", markup=False)
        return self.report

    def action_copy_report(self) -> None:
        report = self._need_report("copy")
        if report is None:
            return
        text = as_filed(report, "text")  # the words the .txt copy keeps
        # OSC 52 asks the terminal to set its clipboard. Nothing answers back, and tmux (without
        # `set-clipboard on`), screen and some SSH clients drop it silently: the same text goes to a file.
        self.app.copy_to_clipboard(text)
        directory = export_dir(self._env, self._export_to)
        clock = self._clock or system_clock
        self._write_copy(report, directory, clock(), len(text.splitlines()))

    @work(thread=True, group="diagnosis-copy", exit_on_error=False)
    def _write_copy(self, report: Report, directory: Path, at: datetime, lines: int) -> None:
        try:
            kept = write_export(report, "text", directory, at)
        except ExportError as exc:
            self.post_message(CopyFinished(lines, None, str(exc)))
            return
        self.post_message(CopyFinished(lines, kept.path, None))

    def on_copy_finished(self, message: CopyFinished) -> None:
        said = (
            f"Sent the report ({plural(message.lines, 'line')}) to the terminal's clipboard with OSC 52. "
            "Terminals that do not allow it (tmux without set-clipboard on, some SSH clients) drop it without "
            "a word, "
        )
        if message.path is not None:
            self.copies.append(message.path)
            said += f"so it is also in {message.path}"
            self.notify(said, title="copied", timeout=10, markup=False)
        else:
            said += f"and keeping it in a file failed too: {message.problem}"
            self.notify(said, title="copied, not kept", severity="warning", timeout=10, markup=False)

    def action_export(self, fmt: str) -> None:
        report = self._need_report("export")
        if report is None:
            return
        chosen: ExportFormat = "json" if fmt == "json" else "markdown"
        directory = export_dir(self._env, self._export_to)
        clock = self._clock or system_clock
        self._write_export(report, chosen, directory, clock())

    @work(thread=True, group="diagnosis-export", exit_on_error=False)
    def _write_export(self, report: Report, fmt: ExportFormat, directory: Path, at: datetime) -> None:
        # A file system can be slow (network home directories): written off the UI thread.
        try:
            exported = write_export(report, fmt, directory, at)
        except ExportError as exc:
            self.post_message(ExportFinished(None, str(exc)))
            return
        self.post_message(ExportFinished(exported, None))

    def on_export_finished(self, message: ExportFinished) -> None:
        if message.exported is None:
            self.notify(
                message.problem or "export failed", title="export failed", severity="error", markup=False
            )
            return
        self.exports.append(message.exported.path)
        kind = "Markdown" if message.exported.format == "markdown" else "JSON"
        self.notify(f"{kind} report written to {message.exported.path}", title="exported", markup=False)
