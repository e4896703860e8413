"""`runai-triage record`: what a diagnosis read, kept as a redacted `runai-triage/case@1` bundle.

`RecordingTap` (tap.py) sees every answer the tenant's clients read; `build_bundle` (bundle.py) puts each
where a simulated tenant serves it back; `redact_tree` (redact.py) hides every credential with the reports'
redactor; `recorded_bundle` does all three and removes the live secrets of the session by value as well.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from core.record.bundle import build_bundle
from core.record.redact import redact_tree
from core.record.tap import Exchange, RecordingTap

__all__ = ["Exchange", "RecordingTap", "recorded_bundle", "write_bundle"]

_REMOVED = "<redacted>"


def _scrub(value: Any, secrets: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, _REMOVED)
        return value
    if isinstance(value, list):
        return [_scrub(v, secrets) for v in value]
    if isinstance(value, dict):
        return {_scrub(k, secrets): _scrub(v, secrets) for k, v in value.items()}
    return value


def recorded_bundle(
    exchanges: list[Exchange], *, kube: bool, captured_at: datetime, secrets: Iterable[str] = ()
) -> tuple[dict[str, Any], list[str]]:
    """The redacted bundle of `exchanges` (what a tap saw), and notes on anything that could not be kept.
    `kube`: whether Tier 2 was there to be read (a bundle without a kubernetes section means it was not).

    `secrets` are the session's own credentials (the bearer token, the access key's secret): removed wherever
    they appear, whatever the redactor's rules make of them. Only values of 8 characters or more are taken,
    so a short value cannot eat ordinary words.
    """
    bundle, notes = build_bundle(exchanges, captured_at=captured_at, kube=kube)
    clean = redact_tree(bundle)
    live = tuple(sorted({s for s in secrets if s and len(s) >= 8}, key=len, reverse=True))
    return (_scrub(clean, live) if live else clean), [redact_tree(note) for note in notes]


def write_bundle(path: Path, bundle: dict[str, Any], force: bool) -> None:
    """Write a bundle to `path`: never over an existing file unless `force`, never half of one (OSError)."""
    text = json.dumps(bundle, indent=1, ensure_ascii=False) + "\n"
    # Written beside the target first, so a failure never leaves half a bundle under the name asked for.
    partial = path.with_name(path.name + ".partial")
    try:
        partial.write_text(text, encoding="utf-8")
        if force:
            os.replace(partial, path)
        else:
            os.link(partial, path)  # fails if `path` exists: an existing file is never overwritten by surprise
    finally:
        partial.unlink(missing_ok=True)  # gone after a replace; after a failure, no stray file is left
