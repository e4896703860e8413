"""The kubeconfig user's login, settled before the kubernetes client sees it, so a failed login is a reason.

The client library logs in while it loads a kubeconfig and again before requests: it runs exec plugins with no
time limit and the user's terminal as their input, refreshes an expired OIDC token over its own client with TLS
verification off when the kubeconfig names no identity-provider CA (sending the refresh token and client secret
there), and lets some of those failures escape as exceptions that stop everything. Here, instead:

- an exec plugin runs non-interactively, with a time limit; its credential replaces the ``exec`` entry in our
  in-memory copy of the kubeconfig (the file is never written), and a token that is about to expire during a
  long session is fetched again the same way (``TokenRefresh``);
- an OIDC or GCP auth-provider token is used as it is while it is valid; an expired one is a reason to skip
  Tier 2, never a refresh;
- anything else that cannot be used is a reason too. A reason becomes "Tier 2 unavailable: <why>" and Tier 1
  carries on.
"""

from __future__ import annotations

import base64
import copy
import json
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.models import safe_json
from core.models.base import parse_timestamp, preview
from core.sources.credentials import decode_jwt_claims
from core.sources.errors import body_excerpt, clean_text

_MAX_EXEC_OUTPUT = 1024 * 1024
_SUPPORTED_PROVIDERS = ("oidc", "gcp")


class LoginProblem(Exception):
    """The kubeconfig's login cannot be used; the message says why and what to do."""


@dataclass(frozen=True)
class ExecCredential:
    """What an exec plugin gave: kubeconfig user entries, and when they expire (epoch seconds) if it said."""

    entries: dict[str, str]
    expires_at: float | None


class TokenRefresh:
    """The kubernetes client's ``refresh_api_key_hook`` for an exec plugin's token.

    Called before each request (from worker threads); once the token is within ``margin_s`` of expiring (half
    its lifetime for a short-lived one), the plugin runs again under the same limits. A failed run keeps the old
    token (the read then reports the 401 with its reason) and is not retried for ``retry_s``, so a broken login
    does not slow every read.
    """

    def __init__(self, run: Callable[[], ExecCredential], expires_at: float | None, *, margin_s: float = 60.0,
                 retry_s: float = 30.0) -> None:
        self._run = run
        self._margin_s = margin_s
        self._expires_at: float | None = None
        self._refresh_at: float | None = None
        self._set_expiry(expires_at)
        self._retry_s = retry_s
        self._next_try = 0.0
        self._lock = threading.Lock()

    def _set_expiry(self, expires_at: float | None) -> None:
        now = time.time()
        self._expires_at = expires_at
        lifetime = (expires_at - now) if expires_at is not None else None
        margin = min(self._margin_s, lifetime / 2) if lifetime is not None else self._margin_s
        self._refresh_at = expires_at - margin if expires_at is not None else None

    def __call__(self, configuration: Any) -> None:
        with self._lock:
            now = time.time()
            if self._refresh_at is None or now < self._refresh_at or now < self._next_try:
                return
            try:
                credential = self._run()
            except LoginProblem:
                self._next_try = now + self._retry_s
                return
            token = credential.entries.get("token")
            if token:
                configuration.api_key["BearerToken"] = f"Bearer {token}"
            self._set_expiry(credential.expires_at)


@dataclass(frozen=True)
class SettledLogin:
    """The kubeconfig to load (a copy), and the hook that keeps an exec token fresh, if there is one."""

    data: dict[str, Any]
    refresh: TokenRefresh | None = None


def settle_login(
    data: dict[str, Any], context: str, base: Path, env: Mapping[str, str], timeout: float
) -> SettledLogin:
    """A copy of the kubeconfig ``data`` whose active user needs no further login step; an exec plugin gets
    ``timeout`` seconds. Raises LoginProblem."""
    settled = copy.deepcopy(data)
    user = _active_user(settled, context)
    if user is None:
        return SettledLogin(settled)  # the loader itself reports a missing user or context
    if "auth-provider" in user:
        _check_provider(user)
    elif "exec" in user and not user.get("token") and not user.get("tokenFile"):
        spec = user.pop("exec")
        credential = run_exec_plugin(spec, base, env, timeout)
        user.update(credential.entries)
        if "token" in credential.entries:
            refresh = TokenRefresh(lambda: run_exec_plugin(spec, base, env, timeout), credential.expires_at)
            return SettledLogin(settled, refresh)
    return SettledLogin(settled)


def _active_user(data: dict[str, Any], context: str) -> dict[str, Any] | None:
    contexts = data.get("contexts")
    entry = next(
        (c for c in contexts if isinstance(c, dict) and c.get("name") == context), None
    ) if isinstance(contexts, list) else None
    inner = entry.get("context") if isinstance(entry, dict) else None
    user_name = inner.get("user") if isinstance(inner, dict) else None
    users = data.get("users")
    if user_name is None or not isinstance(users, list):
        return None
    found = next((u for u in users if isinstance(u, dict) and u.get("name") == user_name), None)
    user = found.get("user") if isinstance(found, dict) else None
    return user if isinstance(user, dict) else None


def _check_provider(user: dict[str, Any]) -> None:
    provider = user["auth-provider"]
    name = provider.get("name") if isinstance(provider, dict) else None
    config = provider.get("config") if isinstance(provider, dict) else None
    if name not in _SUPPORTED_PROVIDERS:
        raise LoginProblem(
            f"the kubeconfig user logs in with auth-provider {preview(name)}, which the kubernetes client cannot "
            "use; switch the user to an exec plugin (for example kubelogin) or a token"
        )
    config = config if isinstance(config, dict) else {}
    if name == "oidc":
        token = config.get("id-token")
        claims = decode_jwt_claims(token) if isinstance(token, str) else None
        if claims is None:
            raise LoginProblem("the kubeconfig's OIDC login holds no usable id-token; log in with kubectl first")
        _not_expired(claims.get("exp"), "OIDC id-token")
        # Never refreshed here: that would send the refresh token and client secret to the identity provider.
        for key in ("refresh-token", "client-secret", "idp-issuer-url"):
            config.pop(key, None)
    else:
        if not isinstance(config.get("access-token"), str) or not config["access-token"]:
            raise LoginProblem(
                "the kubeconfig's gcp login holds no access token; runai-triage does not run gcloud for it: "
                "refresh it with kubectl, or use the gke-gcloud-auth-plugin exec login"
            )
        expiry = _timestamp(config.get("expiry"))
        if expiry is not None:
            _not_expired(expiry.timestamp(), "gcp access token")
        config.pop("cmd-path", None)


def _timestamp(raw: Any) -> datetime | None:
    try:
        return parse_timestamp(raw)
    except ValueError:
        return None


def _not_expired(exp: Any, what: str) -> None:
    if isinstance(exp, bool) or not isinstance(exp, int | float):
        return
    if exp <= time.time():
        try:
            when = datetime.fromtimestamp(exp, UTC).strftime("%Y-%m-%d %H:%M UTC")
        except (OverflowError, OSError, ValueError):
            when = "long ago"
        raise LoginProblem(
            f"the kubeconfig's {what} expired ({when}); runai-triage does not refresh logins. Run any kubectl "
            "command to refresh it, then try again"
        )


def run_exec_plugin(spec: Any, base: Path, env: Mapping[str, str], timeout: float) -> ExecCredential:
    """Run a kubeconfig exec plugin once, non-interactively, and return its credential as user entries
    (``token``, or ``client-certificate-data`` and ``client-key-data``). Raises LoginProblem."""
    if not isinstance(spec, dict) or not isinstance(spec.get("command"), str) or not spec["command"]:
        raise LoginProblem("the kubeconfig's exec login names no command")
    command = spec["command"]
    api_version = spec.get("apiVersion")
    if spec.get("interactiveMode") == "Always":
        raise LoginProblem(
            f"the kubeconfig's exec login ({preview(command)}) needs an interactive terminal; log in with "
            "kubectl first so a cached credential exists, then try again"
        )
    args = [command, *[str(a) for a in spec.get("args") or [] if isinstance(a, str | int | float)]]
    child_env = dict(env)
    for item in spec.get("env") or []:
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            child_env[item["name"]] = str(item.get("value", ""))
    info = {"apiVersion": api_version, "kind": "ExecCredential", "spec": {"interactive": False}}
    child_env["KUBERNETES_EXEC_INFO"] = json.dumps(info)
    shown = preview(command)
    try:
        done = subprocess.run(
            args,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            cwd=str(base) if base.is_dir() else None,
            env=child_env,
            timeout=timeout,
            check=False,
        )
    except FileNotFoundError:
        raise LoginProblem(f"the kubeconfig's exec login command {shown} was not found (is it on PATH?)") from None
    except subprocess.TimeoutExpired:
        raise LoginProblem(
            f"the kubeconfig's exec login command {shown} did not finish within {timeout:g} s (it may be "
            "waiting for an interactive login: log in with kubectl first)"
        ) from None
    except OSError as exc:
        raise LoginProblem(f"the kubeconfig's exec login command {shown} could not run: {exc.strerror}") from None
    if done.returncode != 0:
        said = body_excerpt(done.stderr[:4096]) if done.stderr.strip() else "no message"
        raise LoginProblem(f"the kubeconfig's exec login command {shown} failed (exit {done.returncode}): {said}")
    return _credential(done.stdout, api_version, shown)


def _credential(output: bytes, api_version: Any, shown: str) -> ExecCredential:
    def bad(why: str) -> LoginProblem:
        return LoginProblem(f"the kubeconfig's exec login command {shown} printed no usable credential: {why}")

    if len(output) > _MAX_EXEC_OUTPUT:
        raise bad("its output is larger than 1 MiB")
    try:
        data = safe_json.loads(output)
    except ValueError:
        raise bad("its output is not JSON") from None
    if not isinstance(data, dict) or not isinstance(data.get("status"), dict):
        raise bad("expected an ExecCredential object with a status")
    if api_version and data.get("apiVersion") != api_version:
        raise bad(f"apiVersion {preview(data.get('apiVersion'))} does not match {preview(api_version)}")
    status = data["status"]
    expires = _timestamp(status.get("expirationTimestamp"))
    if expires is not None and expires.timestamp() <= time.time():
        raise bad(f"the credential it gave expired at {clean_text(str(status.get('expirationTimestamp')), 40)}")
    expires_at = expires.timestamp() if expires is not None else None
    token = status.get("token")
    if isinstance(token, str) and token:
        return ExecCredential({"token": token}, expires_at)
    cert, key = status.get("clientCertificateData"), status.get("clientKeyData")
    if isinstance(cert, str) and cert and isinstance(key, str) and key:
        # The kubeconfig keeps these base64-encoded; the plugin hands them over as PEM text.
        entries = {
            "client-certificate-data": base64.b64encode(cert.encode()).decode(),
            "client-key-data": base64.b64encode(key.encode()).decode(),
        }
        return ExecCredential(entries, expires_at)
    raise bad("neither a token nor a client certificate and key")

