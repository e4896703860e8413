"""Writing a diagnosis report to a file: `runai-triage-<workload>-<time>.md`, `.json` or `.txt` (the text the
copy key puts on the clipboard, kept as a file too, since a terminal may silently drop a clipboard request).

Kept free of Textual so it can be tested and reused without a terminal. The workload name comes from the
cluster, so it is reduced to a safe file-name fragment: no path separators, no dot-files, no control or
shell-special characters, bounded length. Files are created exclusively and never overwrite an earlier export.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import platformdirs

from core.models.report import Report
from core.report.render import to_json, to_markdown, to_text
from tui.commands.start import flag

ExportFormat = Literal["markdown", "json", "text"]
EXPORT_DIR_ENV = "RUNAI_TRIAGE_EXPORT_DIR"
APP_NAME = "runai-triage"
SUFFIX: dict[ExportFormat, str] = {"markdown": ".md", "json": ".json", "text": ".txt"}
MAX_NAME = 60
MAX_ATTEMPTS = 100

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class ExportError(Exception):
    """The report could not be written; the message names the path and the reason."""


@dataclass(frozen=True, slots=True)
class Exported:
    path: Path
    format: ExportFormat
    bytes_written: int


def safe_fragment(text: str | None, fallback: str = "workload") -> str:
    """A file-name piece made only of letters, digits, `.`, `_` and `-`, never starting with a dot."""
    cleaned = _UNSAFE.sub("-", text or "").strip("-.")
    cleaned = re.sub(r"-{2,}", "-", cleaned)[:MAX_NAME].strip("-.")
    return cleaned or fallback


def export_stamp(at: datetime) -> str:
    """`20261130T120000Z`: sortable, and free of characters some file systems refuse (`:`)."""
    moment = at if at.tzinfo is not None else at.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def export_name(report: Report, fmt: ExportFormat, at: datetime) -> str:
    workload = report.workload.name or report.workload.id
    return f"runai-triage-{safe_fragment(workload)}-{export_stamp(at)}{SUFFIX[fmt]}"


def reports_dir(env: Mapping[str, str] | None = None) -> Path:
    """The platform's data directory for runai-triage's reports (`$XDG_DATA_HOME/runai-triage/reports` when
    that is set, else `~/.local/share/runai-triage/reports` on Linux, `~/Library/Application Support/...` on
    macOS): never the working directory, where a report would show up in a git clone's status."""
    environ = os.environ if env is None else env
    xdg = (environ.get("XDG_DATA_HOME") or "").strip()
    base = Path(xdg).expanduser() if xdg else Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)).parent
    return base / APP_NAME / "reports"


def export_dir(env: Mapping[str, str] | None = None, default: Path | None = None) -> Path:
    """Where exports go: $RUNAI_TRIAGE_EXPORT_DIR when set, else `default`, else `reports_dir` (made when
    missing; the notice after each export names the file)."""
    environ = os.environ if env is None else env
    configured = (environ.get(EXPORT_DIR_ENV) or "").strip()
    if configured:
        return Path(configured).expanduser()
    if default is not None:
        return default
    chosen = reports_dir(environ)
    with contextlib.suppress(OSError):  # not made: the export then says it cannot write there, and why
        chosen.mkdir(parents=True, exist_ok=True)
    return chosen


def render(report: Report, fmt: ExportFormat) -> str:
    """The report as a copy or an export holds it: in the command line's words, as `diagnose` prints it (the
    options it names as flags, `--verbose` for every line), like its advice (tui/next_steps.py): a ticket is read
    by someone who will run the command, not press the app's keys."""
    if fmt == "text":
        return to_text(report, name=flag)
    return to_markdown(report, name=flag) if fmt == "markdown" else to_json(report)


def write_export(report: Report, fmt: ExportFormat, directory: Path, at: datetime) -> Exported:
    """Write the report; a second export in the same second gets `-2`, `-3`, ... rather than replacing one."""
    name = export_name(report, fmt, at)
    return write_document(render(report, fmt), fmt, directory, name.removesuffix(SUFFIX[fmt]))


def write_document(text: str, fmt: ExportFormat, directory: Path, stem: str) -> Exported:
    """Write `text` as `<stem><suffix>` in `directory`, never over an earlier file (`-2`, `-3`, ... instead)."""
    body = text.encode("utf-8")
    suffix = SUFFIX[fmt]
    name = stem + suffix
    if not directory.is_dir():
        raise ExportError(f"cannot export to {directory}: it is not an existing directory")
    for attempt in range(1, MAX_ATTEMPTS + 1):
        path = directory / (name if attempt == 1 else f"{stem}-{attempt}{suffix}")
        try:
            with path.open("xb") as handle:
                handle.write(body)
        except FileExistsError:
            continue
        except OSError as exc:
            raise ExportError(f"cannot write {path}: {exc.strerror or exc}") from None
        return Exported(path, fmt, len(body))
    raise ExportError(f"cannot export to {directory}: {MAX_ATTEMPTS} files named {stem}* already exist")
