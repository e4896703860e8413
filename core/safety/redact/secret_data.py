"""A Kubernetes Secret printed whole: its `data` values are base64 of the secret, its `stringData` the secret.

`kubectl get secret -o yaml` (or `-o json`) pasted into a log or an annotation, or a Secret printed by a Go
program (`data:map[...]`), carries every value of the Secret. The keys (`.dockerconfigjson`, `tls.crt`,
`password`) stay; each value under `data:` that is base64, and every value under `stringData:`, becomes
`<redacted: N chars>`, block scalars (`key: |` and the indented lines under it) included.

Only where the text shows it is a Secret (`kind: Secret`, a `kubernetes.io/...` Secret type, `type: Opaque`, a
`.dockerconfigjson`/`.dockercfg` key): a ConfigMap's `data:` is configuration, shown as it is. The shapes follow
the gitleaks `kubernetes-secret-yaml` rule and the Kubernetes Secret documentation.
"""

from __future__ import annotations

import re

from core.safety.redact.base import already_redacted, sized, unquote

# What shows a text is a Secret: its type or a docker key, anywhere; or `kind: Secret` / `type: Opaque` (YAML,
# JSON, escaped inside a JSON string), found from each `Secret`/`Opaque` word back to its key, so a long log
# costs a few substring searches rather than a regex at every position.
_TYPES = (
    "kubernetes.io/dockerconfigjson", "kubernetes.io/dockercfg", "kubernetes.io/basic-auth",
    "kubernetes.io/ssh-auth", "kubernetes.io/tls", "kubernetes.io/service-account-token",
    ".dockerconfigjson", ".dockercfg", "&Secret{",
)
_VALUE_WORDS = ("ecret", "ECRET", "paque", "PAQUE")  # Secret / Opaque without their first letter
_KEY_BEFORE = re.compile(r"(?i)(?:(?<![A-Za-z0-9_])|(?<=\\[nrt]))(?:kind|type)\\?[\"']?[ \t]*:[ \t]*\\?[\"']?$")
_WORD_GOES_ON = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._")


def _is_a_secret(text: str) -> bool:
    if any(literal in text for literal in _TYPES):
        return True
    for word in _VALUE_WORDS:
        at = text.find(word)
        while at != -1:
            start, end = at - 1, at + len(word)
            if (
                start >= 0
                and text[start] in "SsOo"
                and (end == len(text) or text[end] not in _WORD_GOES_ON)
                and _KEY_BEFORE.search(text, max(0, start - 48), start) is not None
            ):
                return True
            at = text.find(word, end)
    return False


_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")
_BLOCK_MARKERS = frozenset({"|", ">", "|-", ">-", "|+", ">+"})

# YAML: a `data:` or `stringData:` line, its entries below it (more indented), and a docker key anywhere.
_LINE_BREAK = re.compile(r"(\r?\n|\\n)")
_YAML_HEADER = re.compile(r"(?m)(?:^|(?<=\\n))[ \t]*(?:-[ \t]+)?(?P<kind>data|stringData):[ \t]*(?=$|\\n)")
_YAML_ENTRY = re.compile(r"(?P<indent>[ \t]*)(?P<key>[-._A-Za-z0-9]{1,253}):(?P<sep>[ \t]*)(?P<value>.*)")
_YAML_DOCKER_KEY = re.compile(r"[ \t]*(?:\.dockerconfigjson|\.dockercfg):[ \t]*[|>][-+]?[ \t]*")
# JSON (also inside a JSON string, quotes escaped): `"data": {"key": "value", ...}`.
_JSON_BLOCK = re.compile(r"(?P<q>\\?\")(?P<kind>data|stringData)(?P=q)[ \t]*:[ \t]*\{(?P<body>[^{}]{0,262144})\}")
_JSON_ENTRY = re.compile(
    r"(?P<q>\\?\")(?P<key>[-._A-Za-z0-9]{1,253})(?P=q)(?P<sep>[ \t]*:[ \t]*)(?P=q)(?P<value>[^\"\\]*)(?P=q)"
)
# Go's %v of a Secret's maps: `data:map[password:cGFzcw== username:YWRtaW4=]`.
_GO_BLOCK = re.compile(r"(?i)\b(?P<kind>data|stringdata):map\[(?P<body>[^\[\]\n]{0,262144})\]")
_GO_ENTRY = re.compile(r"(?P<key>[-._A-Za-z0-9]{1,253}):(?P<value>[^\s\]\[]+)")


def _bare(value: str) -> str:
    value = value.strip()
    if len(value) >= 4 and value.startswith('\\"') and value.endswith('\\"'):
        return value[2:-2]  # quoted inside a JSON string
    return unquote(value)


def _hidden(kind: str, value: str) -> bool:
    """Whether a value of a Secret's `data` (base64) or `stringData` (anything) is hidden."""
    bare = _bare(value)
    if not bare or already_redacted(bare):
        return False
    return kind.lower() == "stringdata" or _BASE64.fullmatch(bare) is not None


class _Lines:
    """The text as lines, each with the break after it (a real one, or `\\n` inside a JSON string)."""

    def __init__(self, text: str) -> None:
        parts = _LINE_BREAK.split(text)
        self.lines = parts[0::2]
        self.breaks = [*parts[1::2], ""]

    def join(self) -> str:
        return "".join(line + brk for line, brk in zip(self.lines, self.breaks, strict=True))

    def collapse(self, first: int, end: int, line: str) -> None:
        """Lines `first`..`end - 1` become the one `line` (with the break that ended the last of them)."""
        self.lines[first:end] = [line]
        self.breaks[first:end] = [self.breaks[end - 1]]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _yaml_block(doc: _Lines, start: int, indent: int, kind: str) -> None:
    """Hide the values of the entries under the header line `start` (indent `indent`), in place."""
    i = start + 1
    while i < len(doc.lines):
        line = doc.lines[i]
        if not line.strip():
            i += 1
            continue
        entry = _YAML_ENTRY.fullmatch(line)
        if entry is None or _indent(line) <= indent:
            return
        i = _yaml_entry(doc, i, entry, kind)


def _yaml_entry(doc: _Lines, i: int, entry: re.Match[str], kind: str) -> int:
    """Hide one entry's value (its block lines too); the index of the line after it."""
    own = _indent(entry[0])
    value = entry["value"].strip()
    head = f"{entry['indent']}{entry['key']}:{entry['sep'] or ' '}"
    if value in _BLOCK_MARKERS:
        j = i + 1
        while j < len(doc.lines) and (not doc.lines[j].strip() or _indent(doc.lines[j]) > own):
            j += 1
        while j > i + 1 and not doc.lines[j - 1].strip():
            j -= 1
        joined = "".join(line.strip() for line in doc.lines[i + 1 : j])
        if joined and not already_redacted(joined):
            doc.collapse(i, j, head + sized(joined))
        return i + 1
    if _hidden(kind, value):
        doc.lines[i] = head + sized(_bare(value))
    return i + 1


def _yaml(text: str) -> str:
    if _YAML_HEADER.search(text) is None and _YAML_DOCKER_KEY.search(text) is None:
        return text
    doc = _Lines(text)
    i = 0
    while i < len(doc.lines):
        line = doc.lines[i]
        header = _YAML_HEADER.fullmatch(line)
        if header is not None:
            _yaml_block(doc, i, _indent(line), header["kind"])
        elif _YAML_DOCKER_KEY.fullmatch(line) is not None and (entry := _YAML_ENTRY.fullmatch(line)) is not None:
            _yaml_entry(doc, i, entry, "data")
        i += 1
    return doc.join()


def _entries(block: re.Match[str], entry: re.Pattern[str], rewrite: object) -> str:
    body = entry.sub(rewrite, block["body"])  # type: ignore[call-overload]
    return block[0][: block.start("body") - block.start()] + body + block[0][block.end("body") - block.start() :]


def _json(text: str) -> str:
    def block(match: re.Match[str]) -> str:
        kind = match["kind"]

        def one(e: re.Match[str]) -> str:
            if not _hidden(kind, e["value"]):
                return e[0]
            q = e["q"]
            return f"{q}{e['key']}{q}{e['sep']}{q}{sized(e['value'])}{q}"

        return _entries(match, _JSON_ENTRY, one)

    return _JSON_BLOCK.sub(block, text)


def _go(text: str) -> str:
    def block(match: re.Match[str]) -> str:
        kind = match["kind"]

        def one(e: re.Match[str]) -> str:
            return f"{e['key']}:{sized(e['value'])}" if _hidden(kind, e["value"]) else e[0]

        return _entries(match, _GO_ENTRY, one)

    return _GO_BLOCK.sub(block, text)


def redact_secret_data(text: str) -> str:
    """`text` with the values of any Kubernetes Secret printed in it hidden (see the module's docstring)."""
    if ("ata" not in text and ".docker" not in text) or not _is_a_secret(text):
        return text
    return _go(_json(_yaml(text)))
