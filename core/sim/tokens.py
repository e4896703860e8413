"""Bearer tokens the simulated control plane hands out and checks.

Tokens are JWT-shaped so clients can read the `exp` claim the way they would with a real tenant. The signature
is an HMAC with a per-instance random key; validity is decided by the issuer's own table, so revoking is
simple.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
import secrets
from collections.abc import Callable


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
        self._valid[token] = expires
        return token

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
