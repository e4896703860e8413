"""Where Run:ai credentials come from: a ready bearer token, an access key (client id + secret), or
the session the Run:ai CLI v2 left on disk.

Secret values live in `pydantic.SecretStr`, so `repr()`/`str()` of every credential object shows stars only.
Reading the environment or the CLI files is best effort: anything missing or garbled gives `None` and, when
the caller passes a `problems` list, a `CredentialsProblem` saying what was wrong and where. Nothing here
raises on bad input.
"""

from __future__ import annotations

import base64
import binascii
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from core.models import safe_json
from core.sources.errors import clean_text

DEFAULT_CLI_DIR = Path("~/.runai")
DEFAULT_CLI_CONFIG_FILE = "config.json"
CLI_AUTH_FILE = "authentication.json"
# The CLI files are small; anything far bigger is not a CLI session and is not read into memory.
_MAX_FILE_BYTES = 1_000_000


@dataclass(frozen=True)
class CredentialsProblem:
    """Why a credential source gave nothing: `where` names the file or variable, `message` what was wrong."""

    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


@dataclass(frozen=True)
class BearerToken:
    """A ready token (e.g. from `runai auth get-token`). It cannot be refreshed."""

    token: SecretStr

    def __init__(self, token: str | SecretStr) -> None:
        object.__setattr__(self, "token", token if isinstance(token, SecretStr) else SecretStr(token))


@dataclass(frozen=True)
class ClientCredentials:
    """An access key of a service account or user: exchanged for tokens at the token endpoint."""

    client_id: str
    client_secret: SecretStr

    def __init__(self, client_id: str, client_secret: str | SecretStr) -> None:
        object.__setattr__(self, "client_id", client_id)
        secret = client_secret if isinstance(client_secret, SecretStr) else SecretStr(client_secret)
        object.__setattr__(self, "client_secret", secret)


@dataclass(frozen=True)
class CliSession:
    """The token the Run:ai CLI v2 stored, with the control plane and cluster it was logged in to."""

    token: SecretStr
    base_url: str | None = None
    cluster_uuid: str | None = None
    # `exp` claim of the JWT (epoch seconds), None when the token does not say.
    expires_at: float | None = None
    config_dir: Path | None = field(default=None, compare=False)


Credentials = BearerToken | ClientCredentials | CliSession


def secret_values(credentials: Credentials | None) -> tuple[str, ...]:
    """The raw secret strings of a credential, so error messages can be scrubbed of them."""
    if isinstance(credentials, BearerToken | CliSession):
        return (credentials.token.get_secret_value(),)
    if isinstance(credentials, ClientCredentials):
        return (credentials.client_secret.get_secret_value(),)
    return ()


def _note(problems: list[CredentialsProblem] | None, where: str, message: str) -> None:
    if problems is not None:
        problems.append(CredentialsProblem(where, message))


def _env_value(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name)
    if value is None:
        return None
    value = value.strip()
    return value or None


def credentials_from_env(
    env: Mapping[str, str] = os.environ, *, problems: list[CredentialsProblem] | None = None
) -> Credentials | None:
    """Credentials from the conventional variables; a ready token wins over an access key."""
    for name in ("RUNAI_BEARER_TOKEN", "RUNAI_API_TOKEN"):
        token = _env_value(env, name)
        if token is not None:
            if token.lower().startswith("bearer "):
                token = token[7:].strip()
            return BearerToken(token)
    client_id = _env_value(env, "RUNAI_CLIENT_ID")
    client_secret = _env_value(env, "RUNAI_CLIENT_SECRET")
    if client_id and client_secret:
        return ClientCredentials(client_id, client_secret)
    if client_id and not client_secret:
        _note(problems, "RUNAI_CLIENT_SECRET", "RUNAI_CLIENT_ID is set but RUNAI_CLIENT_SECRET is not")
    elif client_secret and not client_id:
        _note(problems, "RUNAI_CLIENT_ID", "RUNAI_CLIENT_SECRET is set but RUNAI_CLIENT_ID is not")
    else:
        _note(
            problems,
            "environment",
            "none of RUNAI_BEARER_TOKEN, RUNAI_API_TOKEN, RUNAI_CLIENT_ID/RUNAI_CLIENT_SECRET is set",
        )
    return None


def base_url_from_env(
    env: Mapping[str, str] = os.environ, *, problems: list[CredentialsProblem] | None = None
) -> str | None:
    """`RUNAI_BASE_URL` without a trailing slash, when it is an http(s) URL."""
    value = _env_value(env, "RUNAI_BASE_URL")
    if value is None:
        _note(problems, "RUNAI_BASE_URL", "not set")
        return None
    if not value.lower().startswith(("https://", "http://")):
        _note(problems, "RUNAI_BASE_URL", "must start with https:// or http://")
        return None
    return value.rstrip("/")


def decode_jwt_claims(token: str) -> dict[str, Any] | None:
    """The payload of a JWT, unverified (only used to read `exp`); None when it is not a JWT."""
    parts = token.split(".")
    if len(parts) != 3 or not parts[1]:
        return None
    try:
        raw = base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4))
        claims = safe_json.loads(raw)
    except (ValueError, binascii.Error):
        return None
    return claims if isinstance(claims, dict) else None


def jwt_expiry(token: str) -> float | None:
    """The `exp` claim (epoch seconds) of a JWT, None when absent or not a number."""
    claims = decode_jwt_claims(token)
    if claims is None:
        return None
    exp = claims.get("exp")
    if isinstance(exp, bool) or not isinstance(exp, int | float):
        return None
    try:
        seconds = float(exp)
    except OverflowError:  # an integer claim too large for a float is no expiry anyone can use
        return None
    return seconds if math.isfinite(seconds) else None


def _read_json(path: Path, problems: list[CredentialsProblem] | None) -> dict[str, Any] | None:
    where = str(path)
    try:
        if path.stat().st_size > _MAX_FILE_BYTES:
            _note(problems, where, f"larger than {_MAX_FILE_BYTES} bytes; not a CLI session file")
            return None
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        _note(problems, where, "not found (is the Run:ai CLI logged in?)")
        return None
    except (OSError, UnicodeDecodeError) as exc:
        _note(problems, where, f"cannot be read: {clean_text(type(exc).__name__ + ': ' + str(exc), 160)}")
        return None
    try:
        data = safe_json.loads(text)
    except ValueError as exc:
        _note(problems, where, f"is not valid JSON ({clean_text(str(exc), 120)})")
        return None
    if not isinstance(data, dict):
        _note(problems, where, f"expected a JSON object, got {type(data).__name__}")
        return None
    return data


def _dotted(data: dict[str, Any], dotted: str) -> Any:
    """Look up `a.b` as nested objects, or as one flat key spelt `a.b`."""
    if dotted in data:
        return data[dotted]
    node: Any = data
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _token_from_stored(stored: str) -> str | None:
    """The CLI stores the JWT URL-safe base64 encoded; a raw JWT (another CLI layout) is accepted too."""
    stored = stored.strip()
    try:
        decoded = base64.urlsafe_b64decode(stored + "==").decode("utf-8").strip()
    except (ValueError, binascii.Error, UnicodeDecodeError):
        decoded = ""
    if decoded and decode_jwt_claims(decoded) is not None:
        return decoded
    if decode_jwt_claims(stored) is not None:
        return stored
    # Not a JWT either way: an opaque token still works as a bearer token, if it decoded to printable text.
    if decoded and decoded.isprintable() and " " not in decoded:
        return decoded
    return None


def cli_config_dir(env: Mapping[str, str] = os.environ) -> Path:
    """The CLI's configuration directory: `RUNAI_CLI_CONFIG_PATH`, else `~/.runai`."""
    override = _env_value(env, "RUNAI_CLI_CONFIG_PATH")
    return Path(override).expanduser() if override else DEFAULT_CLI_DIR.expanduser()


def load_cli_session(
    config_dir: Path | None = None,
    env: Mapping[str, str] = os.environ,
    *,
    problems: list[CredentialsProblem] | None = None,
) -> CliSession | None:
    """Borrow the Run:ai CLI v2 login: the token from `authentication.json`, the URL and cluster from the
    config file. None (with a problem noted) when there is no usable token."""
    directory = config_dir if config_dir is not None else cli_config_dir(env)
    config_name = _env_value(env, "RUNAI_CLI_CONFIG_FILE") or DEFAULT_CLI_CONFIG_FILE
    config_path = Path(config_name).expanduser()
    if not config_path.is_absolute():
        config_path = directory / config_path

    base_url: str | None = None
    cluster_uuid: str | None = None
    config = _read_json(config_path, problems)
    if config is not None:
        url = _dotted(config, "control_plane.url")
        if isinstance(url, str) and url.lower().startswith(("https://", "http://")):
            base_url = url.strip().rstrip("/")
        else:
            _note(problems, str(config_path), "control_plane.url is missing or not an http(s) URL")
        uuid = _dotted(config, "cluster.uuid")
        if isinstance(uuid, str) and uuid.strip():
            cluster_uuid = uuid.strip()
        else:
            _note(problems, str(config_path), "cluster.uuid is missing or not a string")

    auth_path = directory / CLI_AUTH_FILE
    auth = _read_json(auth_path, problems)
    if auth is None:
        return None
    stored = auth.get("accessToken")
    if not isinstance(stored, str) or not stored.strip():
        _note(problems, str(auth_path), "accessToken is missing or not a string")
        return None
    token = _token_from_stored(stored)
    if token is None:
        _note(problems, str(auth_path), "accessToken is neither base64 of a token nor a JWT")
        return None
    return CliSession(
        token=SecretStr(token),
        base_url=base_url,
        cluster_uuid=cluster_uuid,
        expires_at=jwt_expiry(token),
        config_dir=directory,
    )
