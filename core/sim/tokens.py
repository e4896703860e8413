"""Bearer tokens the simulated control plane hands out and checks, and its two token endpoints.

Tokens are JWT-shaped so clients can read the `exp` claim the way they would with a real tenant. The signature
is an HMAC with a per-instance random key; validity is decided by the issuer's own table, so revoking is
simple. The table is bounded: a token one lifetime past its expiry is forgotten, and past `MAX_LIVE_TOKENS` the
oldest goes (a client asking for a token per request must not grow the simulator without bound).

The endpoints answer as Run:ai's SDK (runapy 1.224.0) expects: `POST /api/v2/token` takes the OAuth2 form
(`client_credentials`), `POST /api/v1/token` the JSON body (`client_credentials` with `clientID`/`clientSecret`,
or the SDK's own `app_token` with `appID`/`appSecret`, which its client sends as `AppId`/`AppSecret`); both
answer an error with the OAuth2 body `{"error", "error_description"}` (RFC 6749 5.2, the SDK's `OAuth2Error`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
import secrets
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl

from core.sim.bundle import show
from core.sim.exchange import SimResponse, json_response

# Live tokens held at most; a real identity provider keeps none, the simulator needs them to check and revoke.
MAX_LIVE_TOKENS = 10_000


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def decode_claims(token: str) -> dict[str, object] | None:
    """The payload of a JWT-shaped token, or None when it is not one (for tests and tools, not for trust)."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        payload = base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4))
        claims = json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        return None
    return claims if isinstance(claims, dict) else None


class TokenIssuer:
    def __init__(self, ttl_s: float, clock: Callable[[], float]) -> None:
        self.ttl_s = ttl_s
        self._clock = clock
        self._key = secrets.token_bytes(32)
        # token -> exact expiry instant (the `exp` claim is rounded down to whole seconds)
        self._valid: dict[str, float] = {}

    def issue(self, subject: str, ttl_s: float | None = None) -> str:
        now = self._clock()
        expires = now + (self.ttl_s if ttl_s is None else ttl_s)
        header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
        claims = {
            "sub": subject,
            "iat": math.floor(now),
            "exp": math.floor(expires),
            "jti": secrets.token_hex(8),
        }
        payload = b64url(json.dumps(claims, separators=(",", ":")).encode())
        signing_input = f"{header}.{payload}".encode()
        signature = b64url(hmac.new(self._key, signing_input, hashlib.sha256).digest())
        token = f"{header}.{payload}.{signature}"
        self._forget_expired(now)
        self._valid[token] = expires
        return token

    def _forget_expired(self, now: float) -> None:
        """Drop expired tokens, and the oldest past MAX_LIVE_TOKENS (the table keeps issue order)."""
        # Tokens of one issuer expire in the order they were issued: the oldest are first in the table. One
        # lifetime past its expiry a token is still told apart as "expired" from a forged one; then it goes.
        forget_before = now - self.ttl_s
        while self._valid and (
            len(self._valid) >= MAX_LIVE_TOKENS or next(iter(self._valid.values())) <= forget_before
        ):
            del self._valid[next(iter(self._valid))]

    def check(self, token: str) -> str | None:
        """None when the token is valid now, else a short reason for the 401 message."""
        expires = self._valid.get(token)
        if expires is None:
            return "invalid or revoked token"
        if self._clock() >= expires:
            return "token expired"
        return None

    def revoke_all(self) -> None:
        self._valid.clear()

    @property
    def expires_in(self) -> int:
        return max(int(self.ttl_s), 0)


def oauth2_error(status: int, error: str, description: str, headers: dict[str, str] | None = None) -> SimResponse:
    """An OAuth2 error body (RFC 6749 5.2): `error` one of the standard codes, `error_description` the detail."""
    return json_response(status, {"error": error, "error_description": description}, headers)


# v1's grants and the keys each takes its credentials from, in the spellings clients send.
_V1_GRANTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "client_credentials": (("clientID", "clientId"), ("clientSecret",)),
    "app_token": (("appID", "appId", "AppId", "AppID"), ("appSecret", "AppSecret")),
}


def _first(data: dict[str, Any], keys: tuple[str, ...]) -> Any:
    return next((data[k] for k in keys if k in data), None)


def token_answer(version: str, body: bytes, issuer: TokenIssuer) -> SimResponse:
    """The answer to a token request of `version` ("v1" JSON, "v2" form); errors in OAuth2's shape."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return oauth2_error(400, "invalid_request", "token request body is not UTF-8 text")
    if version == "v2":
        try:
            form = dict(parse_qsl(text, keep_blank_values=True, strict_parsing=True))
        except ValueError:
            return oauth2_error(
                400, "invalid_request", "token request body is not form-encoded (grant_type=client_credentials&...)"
            )
        grant, grant_key = form.get("grant_type"), "grant_type"
        grants = {"client_credentials": (("client_id",), ("client_secret",))}
        data: dict[str, Any] = form
    else:
        try:
            parsed = json.loads(text)
        except ValueError:
            return oauth2_error(400, "invalid_request", "token request body is not JSON")
        if not isinstance(parsed, dict):
            return oauth2_error(400, "invalid_request", "token request body must be a JSON object")
        grant, grant_key, grants, data = parsed.get("grantType"), "grantType", _V1_GRANTS, parsed
    if grant is None:
        return oauth2_error(400, "invalid_request", f"missing {grant_key}")
    if not isinstance(grant, str) or grant not in grants:
        accepted = " or ".join(sorted(grants))
        return oauth2_error(
            400, "unsupported_grant_type", f"unsupported {grant_key} '{show(grant)}'; this server accepts {accepted}"
        )
    id_keys, secret_keys = grants[grant]
    client_id, secret = _first(data, id_keys), _first(data, secret_keys)
    if not isinstance(client_id, str) or not client_id or not isinstance(secret, str) or not secret:
        return oauth2_error(
            401, "invalid_client", f"client authentication failed: {id_keys[0]} and {secret_keys[0]} are required"
        )
    token = issuer.issue(client_id)
    if version == "v2":
        return json_response(200, {"access_token": token, "token_type": "Bearer", "expires_in": issuer.expires_in})
    return json_response(200, {"accessToken": token, "expiresIn": issuer.expires_in})
