"""Which chat a webhook is, and the JSON body each one takes.

- `slack`: Slack's incoming webhooks. `{"text": ..., "metadata": {...}}`; the text is Slack's mrkdwn (no
  headings, no HTML, no backslash escapes: `&`, `<` and `>` are written as Slack asks, `&amp;`, `&lt;`,
  `&gt;`). The key rides in the message metadata, where apps read it.
- `mattermost`: Mattermost's incoming webhooks. `{"text": ..., "props": {...}}`; the text is Markdown, and
  Mattermost shows HTML as text. The key rides in the post's props.
- `markdown`: any other receiver of `{"text": ...}` (Rocket.Chat, a relay, a test receiver): CommonMark, the
  key as a top-level field beside the text.

Every dialect's text also ends with the key, so a person can search for it. The dialect comes from
`--post-format`, else from the URL's host where it says (hooks.slack.com, a host named mattermost...), else
`markdown`.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from core.usage import Opt, UsageError

DIALECTS = ("slack", "mattermost", "markdown")
KEY_FIELD = "runai_triage_key"
EVENT_TYPE = "runai_triage_failure"
# A chat message is short; a body past this is cut (with a note) whatever its dialect.
MAX_TEXT = 8_000
CUT = "\n(cut: the whole report is in the watch's output)"
# The option that gives the dialect, as data: the command line says it as its flag.
POST_FORMAT = Opt("post_format", plainly="the chat's dialect")


def dialect_for(url: str, given: str | None = None) -> tuple[str, bool]:
    """(the dialect, whether the URL said so): `given` when there is one, else what the URL's host says,
    else markdown (not said). A `given` that is none of DIALECTS is a UsageError (a ValueError)."""
    if given is not None:
        if given not in DIALECTS:
            raise UsageError(POST_FORMAT, f" {given!r}: one of {', '.join(DIALECTS)}")
        return given, True
    host = (urlsplit(url).hostname or "").lower()
    if host == "slack.com" or host.endswith(".slack.com"):
        return "slack", True
    if "mattermost" in host:
        return "mattermost", True
    return "markdown", False


def body_of(text: str, dialect: str, key: str) -> bytes:
    """The JSON body of a post: the text (cut at MAX_TEXT), and the stable key where the dialect keeps one."""
    if len(text) > MAX_TEXT:
        text = text[: MAX_TEXT - len(CUT)] + CUT
    body: dict[str, object] = {"text": text}
    if dialect == "slack":
        body["metadata"] = {"event_type": EVENT_TYPE, "event_payload": {"key": key}}
    elif dialect == "mattermost":
        body["props"] = {KEY_FIELD: key}
    else:
        body[KEY_FIELD] = key
    return json.dumps(body, ensure_ascii=False).encode("utf-8")
