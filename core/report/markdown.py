"""A report as Markdown for a ticket or a chat: the same short body as the text, then every line in a collapsed
`<details>` block (GitHub shows it folded; where HTML is not read, it is two tag lines around the same list).

Cluster text is made literal (no link, image, HTML, emphasis, heading, list or mention can come out of it);
a quoted message or log line is an inline code span, whatever backticks it holds. Nothing is put in a fenced
block or a table, which do not wrap: long unbroken strings wrap as the rest of the text does.
"""

from __future__ import annotations

import re

from core.models.evidence_text import quoted
from core.models.report import Report
from core.report.evidence_view import EvidenceLine
from core.report.layout import Layout, layout
from core.report.parts import NO_FINDINGS, finding_head, findings_title, headline, other_pods, safe, when
from core.usage import Namer

# The ASCII punctuation that CommonMark or GitHub-flavoured Markdown gives a meaning to anywhere in a line
# (links, images, HTML and entities, emphasis, code, tables, strikethrough, math). Characters that only
# matter at the start of a line are handled by _LINE_START, since line breaks are flattened first.
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~&$])")
# Renderers turn more than `http://...` into links: GitHub links `www.` hosts, chat tools and linkify
# libraries link bare domains (`evil.io/login`) and e-mail addresses, and escaping does not stop them all.
# A word that could be taken for one is shown as inline code instead, which no renderer links.
_LINKABLE = re.compile(r"://|^www\.|[\w-]\.[A-Za-z]{2}")
_EDGE_PUNCT = "\"'()[]<>{},.;:!?"
_WORDS = re.compile(r"(\s+)")
_BREAKS = re.compile(r"[\r\n\f\v\x1c-\x1e\x85\u2028\u2029]")
_LINE_START = re.compile(r"^(\d+[.)]|[-=])")


def md_code(text: str) -> str:
    """`text` as an inline code span, whatever backticks it holds (the fence is longer than any run)."""
    # Blocks are parsed before code spans, so a line break inside one could still start an HTML block.
    text = _BREAKS.sub(" ", text)
    runs = [len(r) for r in re.findall(r"`+", text)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


# Mentions: `@here`, `@channel`, `@everyone`, `@user`, `@org/team`. Pasted into GitHub, Slack or Jira they
# notify people. Each is shown as inline code: GitHub does not resolve mentions inside code, Slack does not
# notify for them inside code formatting, and Jira's editor turns a code span into monospace text, not a
# mention. It stays readable and copyable, with no invisible character inserted. An `@` that follows a
# letter or digit (`alice@example.com`, `user@host`) is not a mention on any of them and stays as it is;
# e-mail addresses are code already, as linkable words.
_MENTION = re.compile(
    r"(?<![A-Za-z0-9_])@[A-Za-z0-9](?:[A-Za-z0-9_-]|\.(?=[A-Za-z0-9_-]))*"
    r"(?:/[A-Za-z0-9](?:[A-Za-z0-9_-]|\.(?=[A-Za-z0-9_-]))*)?"
)


def _md_plain(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", text)


def _md_word(word: str) -> str:
    core = word.strip(_EDGE_PUNCT)
    if core and _LINKABLE.search(core):
        lead = word[: word.index(core)]
        trail = word[len(lead) + len(core) :]
        return _md_plain(lead) + md_code(core) + _md_plain(trail)
    if "@" not in word:
        return _md_plain(word)
    pieces: list[str] = []
    pos = 0
    for mention in _MENTION.finditer(word):
        pieces += [_md_plain(word[pos : mention.start()]), md_code(mention[0])]
        pos = mention.end()
    pieces.append(_md_plain(word[pos:]))
    return "".join(pieces)


def md_escape(text: str) -> str:
    """Cluster text as literal Markdown: no links, images, HTML, emphasis, headings, lists or mentions.

    Line breaks become spaces (inside a list item a new line could start a heading or a table), and leading
    blanks go (four of them would start a code block).
    """
    words = _WORDS.split(text.strip())
    out = "".join(_BREAKS.sub(" ", w) if i % 2 else _md_word(w) for i, w in enumerate(words))
    # "1." or "-" at the start of an item would open a list inside it; "=" or "-" could underline a heading.
    return _LINE_START.sub(lambda m: m.group(0)[:-1] + "\\" + m.group(0)[-1], out)


# A quotation inside prose: from a `"` to the first `"` that ends a word (a blank, a stop or a bracket after it);
# a quote inside it (`image "x"` within a pull error) does not end it.
_QUOTATION = re.compile(r'(?<![\w"])"(?P<q>[^"\n]*(?:"[^"\n]*)*?)"(?=[.,;)]?(?:\s|$))')


def md_prose(text: str) -> str:
    """Words that quote a log line, a message or a command (a recommendation, the reason): each quotation one
    code span, as the evidence shows it, never cut into code and escaped pieces; the rest escaped."""
    out: list[str] = []
    at = 0
    for m in _QUOTATION.finditer(text):
        out += [_keep_blanks(text[at : m.start()]), md_code(m["q"])]
        at = m.end()
    out.append(_keep_blanks(text[at:]))
    return "".join(out)


def _keep_blanks(part: str) -> str:
    """A piece between code spans, escaped, with the blank before and after it kept (escaping trims them)."""
    if not part.strip():
        return " " if part else ""
    lead = " " if part[0].isspace() else ""
    trail = " " if part[-1].isspace() else ""
    return lead + md_escape(part) + trail


def md_evidence(text: str) -> str:
    """An evidence line's words: a quoted message or log line as a code span, the rest escaped."""
    text = safe(text)
    found = quoted(text)
    if found is None:
        return md_escape(text)
    head, message, tail = found
    gap = " " if head.endswith(" ") else ""  # escaping trims the blank before the quote
    return f"{md_escape(head)}{gap}{md_code(message)}{md_escape(tail) if tail else ''}"


def _cite(line: EvidenceLine) -> str:
    label = "source" if len(line.sources) == 1 else "sources"
    return f"_({label}: {', '.join(md_code(s) for s in line.sources)})_"


def _evidence_items(lines: tuple[EvidenceLine, ...] | list[EvidenceLine]) -> list[str]:
    return [f"- {md_evidence(line.text)} {_cite(line)}" for line in lines] or ["- none recorded"]


def _every_line(report: Report, short: Layout, name: Namer | None) -> list[str]:
    """The collapsed block: every evidence line, and what the short body left out (each pod in order, memory,
    the other submissions, the notes)."""
    every = layout(report, verbose=True, how="", name=name)
    lines = every.evidence.shown
    summary = [f"{len(lines)} evidence line{'s' if len(lines) != 1 else ''}"]
    out = ["#### All evidence", "", *_evidence_items(lines)]
    if short.order_folded:
        summary.append("every pod in order")
        out += ["", "#### All pods, in the order they ended", ""] + [f"- {md_escape(ln)}" for ln in every.order]
    if every.memory:
        summary.append("the memory figures")
        out += ["", "#### Memory", ""] + [f"- {md_escape(m)}" for m in every.memory]
    out += [line for other in every.history[len(short.history) :] for line in ("", md_escape(other))]
    if every.say_no_findings:
        out += ["", md_escape(NO_FINDINGS)]
    if every.notes:
        summary.append(f"{len(every.notes)} note{'s' if len(every.notes) != 1 else ''}")
        out += ["", "#### Notes", ""] + [f"- {md_escape(n)}" for n in every.notes]
    said = summary[0] if len(summary) == 1 else f"{', '.join(summary[:-1])} and {summary[-1]}"
    return ["<details>", f"<summary>Every line: {said}</summary>", "", *out, "", "</details>"]


def to_markdown(report: Report, verbose: bool = False, name: Namer | None = None) -> str:
    """The short body and, folded, every line; `verbose` puts every line in the body instead. `name` names an
    option a line mentions (the command line: its flag; None, plain words)."""
    lay = layout(report, verbose, "under “Every line” below", name)
    out = [f"## {md_escape(headline(report))}", ""]
    workload = " | ".join(f"**{label}:** {md_escape(value)}" for label, value in lay.workload)
    out.append(workload + ("  " if lay.ids else ""))
    if lay.ids:
        out.append(", ".join(f"{label} {md_code(value)}" for label, value in lay.ids))
    if lay.reason:
        out += ["", f"**Reason:** {md_prose(lay.reason)}"]
    if lay.findings:
        out += ["", f"### {md_escape(findings_title(lay.findings))}", ""]
        for f in lay.findings:
            out.append(f"- **{md_escape(finding_head(f))}**: {md_evidence(f.text)} _(source: {md_code(f.source)})_")
            out += [f"  - {md_escape(line)}" for line in other_pods(f)]
    elif lay.say_no_findings:
        out += ["", md_escape(NO_FINDINGS)]
    out += ["", "### Evidence", "", *_evidence_items(lay.evidence.shown)]
    if lay.more:
        out.append(f"- {md_escape(lay.more)}")
    if lay.order:
        out += ["", "### Pods, in the order they ended", ""] + [f"- {md_escape(line)}" for line in lay.order]
    if lay.memory:
        out += ["", "### Memory", ""] + [f"- {md_escape(m)}" for m in lay.memory]
    out += ["", "### History", "", md_escape(lay.history[0].removeprefix("History: "))]
    out += [line for other in lay.history[1:] for line in ("", md_escape(other))]
    if lay.missing:
        out += ["", "### Missing evidence", ""]
        out += [f"- **{md_escape(what)}**: {md_prose(why)}" for what, why in lay.missing]
    if lay.notes:
        out += ["", "### Notes", ""] + [f"- {md_escape(n)}" for n in lay.notes]
    out += ["", "### Recommendation", ""] + ([f"- {md_prose(r)}" for r in lay.recommendations] or ["- none"])
    if not verbose:
        out += ["", *_every_line(report, lay, name)]
    out += [
        "",
        f"_runai-triage, {md_escape(report.schema_)}, generated {md_escape(when(report.generated_at))}_",
    ]
    return "\n".join(out) + "\n"
