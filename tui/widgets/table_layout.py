"""The picker table's column widths for a terminal width and the page on screen: each column gets what its
longest cell needs (within bounds), so the words go to the columns that need them: the Verdict column whole
where it fits, names whole, and on a wide terminal everything left to the phase message rather than to a name
column far wider than any name. Pure: tested without a terminal.

Tiers, widest first: with Type, Submitted by and Message (`wide`), with Type alone (`typed`), then the base
columns. An extra column is added only where every name stays whole, or at least _NAME_TYPED wide.
"""

from __future__ import annotations

from collections.abc import Mapping

from tui.widgets.verdict_line import VERDICT_WIDTH

Column = tuple[str, str, int]  # key, label, width

NAME_MIN = 16
NAME_MAX = 48
NAME_TYPED = 24  # a name is never cut shorter than this to make room for the Type or Submitted by column
NAME_SQUEEZED = 11
MESSAGE_MIN = 20
VERDICT_NARROW = 15
# (least, most) width of each column, its cells' natural width taken between them.
BOUNDS: dict[str, tuple[int, int]] = {
    "phase": (9, 14),
    "project": (7, 12),
    "cluster": (7, 14),
    "updated": (9, 9),
    "created": (9, 9),
    "type": (4, 11),
    "submitted": (12, 22),
}
SQUEEZED_MIN = {"project": 7, "cluster": 9}
ORDER = ("phase", "name", "verdict", "project", "cluster", "type", "updated", "created", "submitted", "message")


def _fit(key: str, natural: Mapping[str, int]) -> int:
    least, most = BOUNDS[key]
    return max(least, min(most, natural.get(key, most)))


def layout(width: int, natural: Mapping[str, int], labels: Mapping[str, str], *, cluster: bool,
           when: str = "updated") -> list[Column]:
    """The columns for `width`: `natural` is each column's longest cell (header included); `when` is the
    time column ("updated", or "created" when the list is sorted by creation)."""
    for tier in ("wide", "typed", "base"):
        columns = _tier(tier, width, natural, cluster, when)
        if columns is not None:
            ordered = sorted(columns.items(), key=lambda kv: ORDER.index(kv[0]))
            return [(key, labels.get(key, key), w) for key, w in ordered]
    return []


def _tier(tier: str, width: int, natural: Mapping[str, int], cluster: bool, when: str) -> dict[str, int] | None:
    keys = ["phase", "project", *(["cluster"] if cluster else []), when]
    if tier in ("wide", "typed"):
        keys.append("type")
    if tier == "wide":
        keys.append("submitted")
    fixed = {key: _fit(key, natural) for key in keys}
    fixed["verdict"] = VERDICT_WIDTH
    # Cell padding is one column on each side of every column (name, message included), plus the scrollbar gap.
    count = len(fixed) + 1 + (1 if tier == "wide" else 0)
    spare = width - sum(fixed.values()) - 2 * count - 1
    need = max(4, min(NAME_MAX, natural.get("name", NAME_MAX)))
    if tier != "base":
        if spare < min(need, NAME_TYPED):
            return None
        name = min(need, spare) if tier == "wide" else spare
        if tier == "wide":
            if spare - name < MESSAGE_MIN:
                return None
            fixed["message"] = spare - name
        return {**fixed, "name": name}
    floor = min(need, NAME_MIN)
    if spare < need:
        # The verdict gives up what the names need, down to VERDICT_NARROW (`v` shows a cut one whole).
        give = min(need - spare, VERDICT_WIDTH - VERDICT_NARROW)
        fixed["verdict"] -= give
        spare += give
    if spare < floor:
        # Too narrow for every column (80 columns with the Cluster column): Project and Cluster give up width,
        # then the name goes down to its own floor, so no column is pushed off the screen.
        for key, least in SQUEEZED_MIN.items():
            if key in fixed and spare < floor:
                give = min(floor - spare, fixed[key] - least)
                fixed[key] -= give
                spare += give
        floor = min(floor, max(NAME_SQUEEZED, spare + 1))  # the scrollbar gap is given up first
    return {**fixed, "name": max(floor, spare)}
