"""The README's words on the picker's columns (issue 34, point 9), held against the layout the table uses: the
longest verdict whole at 80 columns while the names are short, at most 13 of its columns given to long names, and
the Type, Submitted by and Message columns added only while every name is whole or shows 24 characters."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tui.widgets.table_layout import NAME_TYPED, VERDICT_NARROW, layout
from tui.widgets.verdict_line import VERDICT_WIDTH

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
NATURAL = {"phase": 11, "project": 9, "cluster": 10, "updated": 9, "created": 9, "type": 12, "submitted": 19,
           "message": 80}


def widths(width: int, name: int, *, cluster: bool = False) -> dict[str, int]:
    return {key: w for key, _, w in layout(width, {**NATURAL, "name": name}, {}, cluster=cluster)}


def test_the_readme_says_what_the_layout_does() -> None:
    said = re.search(r"long names take up to (\d+) of its columns", README)
    assert said is not None and int(said.group(1)) == VERDICT_WIDTH - VERDICT_NARROW
    assert f"at least its first {NAME_TYPED} characters" in README


def test_at_80_columns_the_longest_verdict_is_whole_beside_short_names() -> None:
    assert widths(80, 12)["verdict"] >= VERDICT_WIDTH


@pytest.mark.parametrize("name", range(4, 60, 3))
@pytest.mark.parametrize("cluster", [False, True])
def test_long_names_take_at_most_what_the_readme_says_from_the_verdict(name: int, cluster: bool) -> None:
    assert widths(80, name, cluster=cluster)["verdict"] >= VERDICT_NARROW


@pytest.mark.parametrize("name", range(4, 60, 3))
@pytest.mark.parametrize("width", range(80, 241, 7))
def test_extra_columns_leave_every_name_whole_or_24_wide(name: int, width: int) -> None:
    shown = widths(width, name)
    if "type" in shown or "submitted" in shown or "message" in shown:
        assert shown["name"] >= min(name, NAME_TYPED)
