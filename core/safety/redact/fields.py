"""Redaction of one named value: an env variable, an annotation, a reference to a Secret."""

from __future__ import annotations

from core.safety.redact.base import sized
from core.safety.redact.names import is_sensitive_name
from core.safety.redact.scan import redact
from core.safety.sanitize import sanitize

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
DROPPED_LAST_APPLIED = "<dropped: last-applied-configuration may hold inline secrets>"


def redact_env_value(name: str, value: str | None) -> str | None:
    """An env value for display: hidden (length kept) under a sensitive name, else pattern-redacted.

    None (a variable whose value comes from elsewhere, e.g. a secretKeyRef) stays None.
    """
    if value is None:
        return None
    if is_sensitive_name(name):
        return sized(value)
    return redact(value)


def redact_annotation(name: str, value: str | None) -> str | None:
    """An annotation value for display; the last-applied configuration is dropped whole.

    An annotation whose own name is sensitive (`example.com/api-token`) is hidden like an env variable.

    That annotation is a full copy of the submitted object, so it can carry inline env values and tokens in
    any shape; nothing in it is needed for a diagnosis that the live object does not already show.
    """
    if name == LAST_APPLIED:
        return DROPPED_LAST_APPLIED
    return redact_env_value(name, value)


def describe_secret_ref(name: str | None, key: str | None = None) -> str:
    """How a reference to a Secret is shown: its name (and key), never its content, which is never read."""
    shown = sanitize(name, max_len=253, keep_newlines=False) if name else "<unnamed>"
    if key is None:
        return f'secret "{shown}"'
    return f'secret "{shown}", key "{sanitize(key, max_len=253, keep_newlines=False)}"'
