"""What every redaction rule shares: the replacement words, a rule record, and small value helpers.

Every replacement starts with `<redacted` (or is `<empty>`), and every rule leaves such a value alone, so
running the redactor on its own output changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

REDACTED = "<redacted>"
EMPTY = "<empty>"
# Any replacement the redactor writes, wherever it stands in a text.
MARKER = re.compile(r"<redacted[^<>\n]{0,40}>|<empty>|<dropped[^<>\n]{0,80}>")

Replace = Callable[[re.Match[str]], str]


class LazyPattern:
    """A regex compiled the first time a rule needs it.

    Most rules wait for a literal that a run may never meet (a vendor's key prefix), and compiling the ~60 of
    them when the module loads took 8-10 ms of every start-up, before the first rows or the first report.
    """

    __slots__ = ("_compiled", "_source")

    def __init__(self, source: str) -> None:
        self._source = source
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self._source)  # compiling twice from two threads is harmless
        return self._compiled

    @property
    def is_compiled(self) -> bool:
        return self._compiled is not None

    def has_group(self, name: str) -> bool:
        return f"(?P<{name}>" in self._source

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled.search(text, pos)

    def sub(self, replace: Replace, text: str) -> str:
        return self.compiled.sub(replace, text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(text)


@dataclass(frozen=True, slots=True)
class Rule:
    """One way a credential is found: a pattern, how a match is rewritten, and the literals it needs.

    `keywords` are lower-case literals of which at least one occurs in every match (in the lowered text);
    text without any of them is never handed to the pattern, which is what keeps long logs cheap. A rule
    with no keywords always runs. `source` says where the format was learnt (gitleaks rule id,
    detect-secrets plugin, vendor docs).

    `rescan` names a group after which scanning resumes when a match is kept as it is: in `user: token: x`
    the pair `user: token:` is kept, and `token: x` must still be seen, so the scan goes on after `user`.
    """

    name: str
    keywords: tuple[str, ...]
    pattern: re.Pattern[str] | LazyPattern
    replace: Replace
    source: str = ""
    rescan: str | None = None

    def sub(self, text: str) -> str:
        if self.rescan is None:
            return self.pattern.sub(self.replace, text)
        out: list[str] = []
        copied = pos = 0
        while (match := self.pattern.search(text, pos)) is not None:
            new = self.replace(match)
            if new == match[0]:
                pos = max(match.end(self.rescan), match.start() + 1)
                continue
            out.append(text[copied : match.start()])
            out.append(new)
            copied = pos = match.end()
        if not out:
            return text
        out.append(text[copied:])
        return "".join(out)

    def apply(self, text: str, lowered: str) -> str:
        if self.keywords and not any(keyword in lowered for keyword in self.keywords):
            return text
        return self.sub(text)


def sized(value: str) -> str:
    """A hidden value that keeps its length: tells "set but wrong" from "empty" without showing it."""
    return f"<redacted: {len(value)} chars>" if value else EMPTY


def already_redacted(value: str) -> bool:
    return value.startswith(("<redacted", EMPTY, "<dropped"))


def unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def hide_group(group: str, check: Callable[[str], bool] | None = None) -> Replace:
    """A replacement that hides one named group of the match (the rest, e.g. a URL's host, stays).

    With `check`, a group the check rejects is kept as it is (the pattern alone was not proof enough).
    """

    def replace(match: re.Match[str]) -> str:
        value = match[group]
        if value is None or already_redacted(value) or (check is not None and not check(value)):
            return match[0]
        start, end = match.span(group)
        whole = match.string
        return whole[match.start() : start] + REDACTED + whole[end : match.end()]

    return replace
