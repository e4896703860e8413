"""A recorded bundle redacted with the reports' own redactor, every string of it, before it is written.

Free text goes through `core.safety.untrusted.redacted` (the redactor that also sees through colour codes and
invisible characters splitting a token). Named values are judged by their name as the reports judge them:
an env variable, annotation or map entry under a credential name (`API_KEY`, `clientSecret`) is hidden with
its length kept, `kubectl.kubernetes.io/last-applied-configuration` is dropped whole, and in a list of
command-line words the word after a credential flag (`--password`, `--token`) is hidden. Nothing is
sanitised here: the bundle keeps the text as the API sent it, minus its secrets, and whoever replays it
cleans it where it enters, as for any tenant.

A Kubernetes `key` (a taint's, a toleration's, a secret reference's) names something and stays.
"""

from __future__ import annotations

import re
from typing import Any

from core.safety.redact import DROPPED_LAST_APPLIED, LAST_APPLIED, is_sensitive_name
from core.safety.redact.base import sized
from core.safety.untrusted import redacted

_FLAG = re.compile(r"^-{1,2}([A-Za-z][A-Za-z0-9_.-]*)$")


def _named(name: str) -> bool:
    return name.lower() != "key" and is_sensitive_name(name)


def _value(name: str, value: str) -> str:
    if name == LAST_APPLIED:
        return DROPPED_LAST_APPLIED
    return sized(value) if _named(name) else redacted(value)


def _words(items: list[Any]) -> list[Any]:
    out: list[Any] = []
    hide_next = False
    for item in items:
        if isinstance(item, str):
            flag = _FLAG.match(item)
            out.append(sized(item) if hide_next else redacted(item))
            hide_next = flag is not None and _named(flag.group(1))
        else:
            out.append(redact_tree(item))
            hide_next = False
    return out


def redact_tree(value: Any, key: str | None = None) -> Any:
    """A copy of a JSON value with every credential hidden (keys included; numbers and booleans as they are)."""
    if isinstance(value, str):
        return _value(key, value) if key is not None else redacted(value)
    if isinstance(value, list):
        return _words(value)
    if isinstance(value, dict):
        name = value.get("name")
        out: dict[Any, Any] = {}
        for k, v in value.items():
            shown = redacted(k) if isinstance(k, str) else k
            if k == "value" and isinstance(name, str) and isinstance(v, str):
                out[shown] = _value(name, v)  # {name, value}: an env variable or an annotation
            elif isinstance(v, str) and isinstance(k, str):
                out[shown] = _value(k, v)
            else:
                out[shown] = redact_tree(v)
        return out
    return value
