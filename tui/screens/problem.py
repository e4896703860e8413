"""The screen shown when the app cannot start: no credentials, an unusable URL, a broken case bundle.

`describe_error` also turns a failed read into words (what happened, how to fix or retry) for the picker's
error state, so a 401 says the same thing wherever it shows up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from core.safety.untrusted import clean
from core.sources.errors import (
    ApiError,
    ApiTimeout,
    AuthError,
    ForbiddenError,
    MalformedResponse,
    NotFoundError,
    RunaiError,
    UnreachableError,
)
from tui.commands.start import StartProblem
from tui.widgets.footer import KeysFooter
from tui.widgets.top_bar import TopBar


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    title: str
    detail: str
    hint: str


def describe_error(error: BaseException, what: str = "workloads") -> ErrorInfo:
    """What a failed read means for the user. The error text is cluster-influenced, so it is sanitised."""
    detail = clean(str(error), max_len=600)
    if isinstance(error, AuthError):
        return ErrorInfo(
            "Credentials refused (401)",
            detail,
            "Check RUNAI_CLIENT_ID / RUNAI_CLIENT_SECRET or RUNAI_BEARER_TOKEN; a CLI session may have "
            "expired (run `runai login`). Press r to retry.",
        )
    if isinstance(error, ForbiddenError):
        return ErrorInfo(
            "Access denied (403)",
            detail,
            f"The access key is valid but no role lets it read {what}; ask an administrator for a viewer "
            "role on this cluster or project. Press r to retry.",
        )
    if isinstance(error, UnreachableError):
        return ErrorInfo(
            "Control plane unreachable",
            detail,
            "Check RUNAI_BASE_URL, the VPN and proxies. Press r to retry.",
        )
    if isinstance(error, ApiTimeout):
        return ErrorInfo(
            "The control plane did not answer in time", detail, "It may be overloaded. Press r to retry."
        )
    if isinstance(error, MalformedResponse):
        return ErrorInfo("The control plane sent an unexpected answer", detail, "Press r to retry.")
    if isinstance(error, NotFoundError):
        return ErrorInfo("Not found (404)", detail, "Check the base URL points at the Run:ai control plane.")
    if isinstance(error, ApiError):
        status = f" ({error.status})" if error.status is not None else ""
        return ErrorInfo(f"The control plane answered with an error{status}", detail, "Press r to retry.")
    if isinstance(error, RunaiError):
        return ErrorInfo("Reading from the control plane failed", detail, "Press r to retry.")
    if isinstance(error, ValueError):
        return ErrorInfo("The filter cannot be sent", detail, "Change the filter (press / to edit the name).")
    return ErrorInfo(f"Unexpected error ({type(error).__name__})", detail, "Press r to retry.")


class ProblemScreen(Screen[None]):
    """What went wrong at start-up and what to set; `r` tries again, `q` quits with status 1."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "app.restart", "retry"),
        Binding("q", "quit_app", "quit"),
        Binding("question_mark", "app.help", "help", key_display="?"),
    ]

    def __init__(self, problem: StartProblem, context: str = "") -> None:
        super().__init__()
        self.problem = problem
        self._context_label = context

    def compose(self) -> ComposeResult:
        yield TopBar(self._context_label)
        with VerticalScroll(id="problem-body"):
            yield Static(Text(self.problem.title), id="problem-title")
            # The detail can quote a file path or a server's words: plain text only.
            yield Static(Text(clean(self.problem.detail, max_len=4000)), id="problem-detail")
            if self.problem.hints:
                hints = Text("What to do\n", style="bold")
                hints.append("\n".join(self.problem.hints))
                yield Static(hints, id="problem-hints")
        yield KeysFooter()

    def action_quit_app(self) -> None:
        self.app.exit(return_code=1)
