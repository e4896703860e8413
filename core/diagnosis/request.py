"""What a diagnosis is asked to do: the seed's parameters, checked before any call is made."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from core.usage import Opt, UsageError  # the one usage error, raised here and by the commands and the app

DEFAULT_LOOKBACK = "24h"
# Any count of digits is read (a long number is a window too long, not a malformed one); the length cap only
# keeps int() from chewing on thousands of digits.
_LOOKBACK_RE = re.compile(r"^\s*(\d{1,64})\s*([mhdw])\s*$")
_UNIT = {"m": timedelta(minutes=1), "h": timedelta(hours=1), "d": timedelta(days=1), "w": timedelta(weeks=1)}
MAX_LOOKBACK = timedelta(days=366)


def parse_lookback(text: str, option: str = "lookback") -> timedelta:
    """`90m`, `24h`, `7d`, `2w` -> timedelta. Anything else is a UsageError naming the accepted forms and the
    request's option the window was given as (`lookback`, `since`)."""
    match = _LOOKBACK_RE.match(text or "")
    if not match:
        raise UsageError(
            Opt(option), f" {text!r} is not understood: use a whole number and a unit m, h, d or w (90m, 24h, 7d, 2w)"
        )
    count, unit = int(match.group(1)), _UNIT[match.group(2)]
    if count == 0:
        raise UsageError(Opt(option), f" {text!r} must be longer than zero")
    # Compared before multiplying: a huge count would overflow timedelta.
    if count > MAX_LOOKBACK // unit:
        raise UsageError(Opt(option), f" {text!r} is longer than a year; pick a shorter window")
    return count * unit


# A lookup in a case bundle: it holds only the workloads it was recorded or written with.
IN_CASE_BUNDLE = "in this case bundle (it holds only the workloads it was recorded or written with)"


@dataclass(frozen=True, slots=True)
class DiagnosisRequest:
    """Option A: `workload_id`. Option B: `name` + `project`. `cluster_id` always.

    `active` selects the seed's current-failure intent for Option B (a CrashLoopBackOff or a start failure now);
    otherwise the most recent terminal submission is diagnosed.
    """

    cluster_id: str
    workload_id: str | None = None
    name: str | None = None
    project: str | None = None
    lookback: str = DEFAULT_LOOKBACK
    active: bool = False
    now: datetime | None = None
    # `now` is the user's own (--now, an MCP tool's `now`), not a clock's or a case bundle's capture: a failure
    # later than it is then a question about the past, not two clocks that disagree.
    now_given: bool = False
    # The name's other submissions cost one list read per workload named by id: a verdict among many (the
    # picker's column, a scan) skips it, so the picker's own page reads stay the only workload lists.
    count_others: bool = True
    # Where the workloads are looked up, in words for a lookup that finds none: a case bundle holds only what
    # it was recorded or written with, which is not "no such workload on the cluster".
    where: str = "on this cluster"

    def __post_init__(self) -> None:
        missing: list[tuple[str | Opt, ...]] = []
        if not (self.cluster_id or "").strip():
            missing.append((Opt("cluster_id", "a cluster id"),))
        has_id = bool((self.workload_id or "").strip())
        has_name = bool((self.name or "").strip())
        has_project = bool((self.project or "").strip())
        if has_id and (has_name or has_project):
            raise UsageError("give either a workload id (Option A) or a name and project (Option B), not both")
        if not has_id:
            if not has_name and not has_project:
                missing.append((Opt("workload_id", "a workload id"), ", or ", Opt("name", "a workload name"),
                                " and ", Opt("project", "project")))
            elif not has_name:
                missing.append((Opt("name", "the workload name"), " to go with ", Opt("project", "the project")))
            elif not has_project:
                missing.append((Opt("project", "the project"), " to go with ", Opt("name", "the name")))
        if missing:
            joined = [part for i, parts in enumerate(missing) for part in (("; ",) if i else ()) + parts]
            raise UsageError("missing ", *joined, ". Identifiers are never guessed.")
        if has_id and self.active:
            raise UsageError(Opt("active"), " selects among submissions of a name; it does not apply to a workload id")
        parse_lookback(self.lookback)

    @property
    def option(self) -> str:
        return "A" if self.workload_id else "B"

    @property
    def lookback_delta(self) -> timedelta:
        return parse_lookback(self.lookback)

    def moment(self) -> datetime:
        return self.now if self.now is not None else datetime.now(UTC)
