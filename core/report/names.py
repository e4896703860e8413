"""Names that differ only in a trailing number, written as one (`worker-{0..3,5}`): how the reports fold many
pods, nodes or places into one mention."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

_TRAILING_NUMBER = re.compile(r"^(?P<stem>.*?)(?P<n>\d+)$")


def number_runs(numbers: Iterable[int], to: str = "..", sep: str = ",", width: int = 0) -> str:
    """`0..3,5,7..9` for 0, 1, 2, 3, 5, 7, 8, 9 (each number at least `width` digits)."""
    ordered = sorted(set(numbers))
    parts: list[str] = []
    start = prev = ordered[0]
    for n in [*ordered[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        a, b = f"{start:0{width}d}", f"{prev:0{width}d}"
        parts.append(a if start == prev else f"{a}{to}{b}")
        if n is not None:
            start = prev = n
    return sep.join(parts)


def _one_stem(names: Sequence[str]) -> str:
    matches = [_TRAILING_NUMBER.match(name) for name in names]
    found = [m for m in matches if m is not None]
    stems = {m["stem"] for m in found}
    widths = {len(m["n"]) for m in found}
    padded = any(m["n"].startswith("0") and len(m["n"]) > 1 for m in found)
    if len(names) < 2 or len(found) != len(names) or len(stems) != 1 or (padded and len(widths) != 1):
        return ", ".join(names)
    width = widths.pop() if padded else 0
    runs = number_runs((int(m["n"]) for m in found), width=width)
    stem = stems.pop()
    return f"{stem}{runs}" if "," not in runs else f"{stem}{{{runs}}}"


def name_range(names: Sequence[str]) -> str:
    """Names that differ only in a trailing number as one: `worker-0..6`, `worker-{0..3,5}`, `gpu-d-{04,06}`
    (numbers written with leading zeros keep them); names of several stems one range per stem, in the order
    each stem first comes (`worker-{0..6,8}, master-0`); other names are listed."""
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(stem(name), []).append(name)
    return ", ".join(_one_stem(group) for group in groups.values())


def stem(name: str) -> str:
    """The name without its trailing number (`worker-` of `worker-12`), or the name."""
    m = _TRAILING_NUMBER.match(name)
    return m["stem"] if m else name
