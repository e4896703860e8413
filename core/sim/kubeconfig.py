"""A kubeconfig pointing the real `kubernetes` client at the simulated API server.

Written as JSON, which is valid YAML, so no YAML writer is needed; the file is created owner-only since it
holds a bearer token."""

from __future__ import annotations

import json
import os
from pathlib import Path


def kubeconfig_dict(
    server_url: str, token: str, *, context: str = "runai-triage-sim", namespace: str | None = None
) -> dict:
    ctx: dict[str, str] = {"cluster": context, "user": context}
    if namespace:
        ctx["namespace"] = namespace
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "preferences": {},
        "clusters": [{"name": context, "cluster": {"server": server_url}}],
        "users": [{"name": context, "user": {"token": token}}],
        "contexts": [{"name": context, "context": ctx}],
        "current-context": context,
    }


def write_kubeconfig(
    path: str | Path,
    server_url: str,
    token: str,
    *,
    context: str = "runai-triage-sim",
    namespace: str | None = None,
) -> Path:
    target = Path(path)
    text = (
        json.dumps(kubeconfig_dict(server_url, token, context=context, namespace=namespace), indent=2) + "\n"
    )
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    return target
