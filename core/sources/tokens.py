"""Bearer tokens for API calls.

`StaticTokens` hands out a ready token (an env token or the CLI session); it cannot refresh, so a 401 is
final. `ClientCredentialTokens` exchanges an access key at the token endpoint (v2 OAuth2 form first, v1 JSON
when v2 is missing), remembers which version worked, refreshes shortly before expiry, and refreshes at most
once per rejected token however many calls saw the 401 at the same time (single flight behind one lock).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import httpx

from core.models import safe_json
from core.sources.credentials import BearerToken, ClientCredentials, CliSession, jwt_expiry
from core.sources.errors import (
    ApiError,
    AuthError,
    MalformedResponse,
    NotFoundError,
    RunaiError,
    error_fields,
    transport_failure,
)
from core.sources.retry import Clock, Rand, RetryPolicy, Sleep, run_with_retry

V2_TOKEN_PATH = "/api/v2/token"
V1_TOKEN_PATH = "/api/v1/token"
DEFAULT_REFRESH_MARGIN_S = 60.0

BEARER_ADVICE = (
    "the token was refused; get a new one with `runai auth get-token` "
    "or set RUNAI_CLIENT_ID/RUNAI_CLIENT_SECRET"
)
CLI_SESSION_ADVICE = (
    "the Run:ai CLI session token was refused (it may have expired); log in again with `runai login`, "
    "or set RUNAI_CLIENT_ID/RUNAI_CLIENT_SECRET"
)


class TokenSource(Protocol):
    """What the client needs from a token provider."""

    @property
    def refreshable(self) -> bool: ...

    async def token(self) -> str: ...

    async def refresh(self, rejected: str) -> str: ...

    def refused(self, method: str, target: str) -> AuthError: ...

    def secrets(self) -> tuple[str, ...]: ...


class StaticTokens:
    """A token that was handed to us; when the API refuses it there is nothing to refresh."""

    def __init__(self, credentials: BearerToken | CliSession) -> None:
        self._credentials = credentials

    @property
    def refreshable(self) -> bool:
        return False

    async def token(self) -> str:
        return self._credentials.token.get_secret_value()

    async def refresh(self, rejected: str) -> str:
        raise self.refused("GET", "(token refresh)")

    def refused(self, method: str, target: str) -> AuthError:
        advice = CLI_SESSION_ADVICE if isinstance(self._credentials, CliSession) else BEARER_ADVICE
        return AuthError(method, target, 401, advice)

    def secrets(self) -> tuple[str, ...]:
        return (self._credentials.token.get_secret_value(),)


@dataclass(frozen=True)
class IssuedToken:
    value: str
    # Epoch seconds; None when neither `expires_in` nor the JWT `exp` said.
    expires_at: float | None
    issued_at: float


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) and number > 0 else None


class ClientCredentialTokens:
    """Tokens from an access key, fetched lazily, refreshed proactively and after a 401."""

    def __init__(
        self,
        http: httpx.AsyncClient,
        base_url: str,
        credentials: ClientCredentials,
        *,
        clock: Clock,
        sleep: Sleep,
        rand: Rand,
        retry: RetryPolicy,
        refresh_margin_s: float = DEFAULT_REFRESH_MARGIN_S,
        read_timeout_s: Callable[[], float | None] = lambda: None,
    ) -> None:
        self._http = http
        self._base_url = base_url
        self._credentials = credentials
        self._clock = clock
        self._sleep = sleep
        self._rand = rand
        self._retry = retry
        self._margin = refresh_margin_s
        self._read_timeout_s = read_timeout_s
        self._lock = asyncio.Lock()
        self._current: IssuedToken | None = None
        self._issued: list[str] = []
        self._failure: tuple[str | None, RunaiError] | None = None
        self.version: str | None = None
        self.token_requests = 0

    @property
    def refreshable(self) -> bool:
        return True

    def secrets(self) -> tuple[str, ...]:
        return (self._credentials.client_secret.get_secret_value(), *self._issued)

    def refused(self, method: str, target: str) -> AuthError:
        return AuthError(
            method,
            target,
            401,
            "credentials refused: the API rejected a freshly issued token; check that the access key "
            f"{self._credentials.client_id!r} is still valid for this tenant",
        )

    def _fresh(self, token: IssuedToken | None) -> bool:
        if token is None:
            return False
        if token.expires_at is None:
            return True
        # A token shorter-lived than twice the margin would otherwise be refreshed on every call.
        margin = min(self._margin, max(0.0, (token.expires_at - token.issued_at) / 2))
        return token.expires_at - self._clock() >= margin

    async def token(self) -> str:
        if self._fresh(self._current):
            assert self._current is not None
            return self._current.value
        async with self._lock:
            if self._fresh(self._current):
                assert self._current is not None
                return self._current.value
            self._current = await self._fetch()
            self._failure = None
            return self._current.value

    async def refresh(self, rejected: str) -> str:
        """A new token after `rejected` got a 401; calls that saw the same 401 share one token request."""
        async with self._lock:
            if self._current is not None and self._current.value != rejected:
                return self._current.value
            if self._failure is not None and self._failure[0] == rejected:
                raise self._failure[1]
            self._current = None
            try:
                self._current = await self._fetch()
            except RunaiError as exc:
                self._failure = (rejected, exc)
                raise
            self._failure = None
            return self._current.value

    async def _fetch(self) -> IssuedToken:
        """v2 first, then v1. An old tenant may answer v2 with 400, 401, 404, 405 or its web UI's HTML page:
        anything but a token sends us on to v1, and only a refusal by v1 as well ends the attempt."""
        if self.version is not None:
            path = V2_TOKEN_PATH if self.version == "v2" else V1_TOKEN_PATH
            response = await self._post(self.version, path)
            if response.status_code not in (200, 201):
                raise self._status_error(path, response)
            return self._parse(self.version, path, response)
        response = await self._post("v2", V2_TOKEN_PATH)
        v2_problem: RunaiError
        if response.status_code in (200, 201):
            try:
                token = self._parse("v2", V2_TOKEN_PATH, response)
            except MalformedResponse as exc:
                v2_problem = exc
            else:
                self.version = "v2"
                return token
        else:
            v2_problem = self._status_error(V2_TOKEN_PATH, response)
        response = await self._post("v1", V1_TOKEN_PATH)
        if response.status_code in (200, 201):
            token = self._parse("v1", V1_TOKEN_PATH, response)
            self.version = "v1"
            return token
        v1_problem = self._status_error(V1_TOKEN_PATH, response)
        if response.status_code == 404 and isinstance(v2_problem, NotFoundError):
            raise NotFoundError(
                "POST",
                V1_TOKEN_PATH,
                404,
                f"neither {V2_TOKEN_PATH} nor {V1_TOKEN_PATH} exists at {self._base_url}; "
                "is the base URL the tenant URL (e.g. https://<tenant>.run.ai)?",
            )
        # Both said no: v1's answer decides, and v2's is kept beside it so neither is hidden.
        v1_problem.message = f"{v1_problem.message} (before it, {V2_TOKEN_PATH} answered: {_short(v2_problem)})"
        raise v1_problem

    async def _post(self, version: str, path: str) -> httpx.Response:
        client_id = self._credentials.client_id
        secret = self._credentials.client_secret.get_secret_value()

        async def send() -> httpx.Response:
            self.token_requests += 1
            if version == "v2":
                form = {"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret}
                return await self._http.post(path, data=form, headers={"Accept": "application/json"})
            body = {"grantType": "client_credentials", "clientID": client_id, "clientSecret": secret}
            return await self._http.post(path, json=body, headers={"Accept": "application/json"})

        outcome = await run_with_retry(
            send, method="POST", policy=self._retry, sleep=self._sleep, rand=self._rand, clock=self._clock
        )
        if outcome.response is None:
            assert outcome.error is not None
            raise transport_failure(
                "POST", path, self._base_url, outcome.error, outcome.attempts, self._read_timeout_s()
            ) from outcome.error
        return outcome.response

    def _status_error(self, path: str, response: httpx.Response) -> ApiError:
        message, details = error_fields(response.content, self.secrets())
        status = response.status_code
        if status == 404:
            return NotFoundError("POST", path, 404, message, details)
        if status in (400, 401, 403):
            return AuthError(
                "POST",
                path,
                status,
                f"credentials refused: the token endpoint rejected access key "
                f"{self._credentials.client_id!r}: {message}",
                details,
            )
        return ApiError("POST", path, status, message, details)

    def _parse(self, version: str, path: str, response: httpx.Response) -> IssuedToken:
        try:
            data = safe_json.loads(response.content)
        except ValueError:
            raise MalformedResponse("POST", path, "expected a JSON token response, got non-JSON") from None
        if not isinstance(data, dict):
            raise MalformedResponse("POST", path, f"expected a JSON object, got a JSON {type(data).__name__}")
        # Each version has its own spelling; accepting both survives a server that mixes them.
        keys = ("access_token", "accessToken") if version == "v2" else ("accessToken", "access_token")
        value = next((data[k] for k in keys if isinstance(data.get(k), str) and data[k].strip()), None)
        if value is None:
            raise MalformedResponse("POST", path, f"expected a token string in {keys[0]!r}, got none")
        value = value.strip()
        now = self._clock()
        lifetime = _number(data.get("expires_in", data.get("expiresIn")))
        expires_at = now + lifetime if lifetime is not None else jwt_expiry(value)
        self._issued = [*self._issued[-7:], value]
        return IssuedToken(value=value, expires_at=expires_at, issued_at=now)


def _short(problem: RunaiError) -> str:
    return problem.message[:200]


def token_source(
    credentials: BearerToken | ClientCredentials | CliSession,
    http: httpx.AsyncClient,
    base_url: str,
    *,
    clock: Clock,
    sleep: Sleep,
    rand: Rand,
    retry: RetryPolicy,
    refresh_margin_s: float = DEFAULT_REFRESH_MARGIN_S,
    read_timeout_s: Callable[[], float | None] = lambda: None,
) -> StaticTokens | ClientCredentialTokens:
    """The provider that fits the kind of credentials."""
    if isinstance(credentials, ClientCredentials):
        return ClientCredentialTokens(
            http,
            base_url,
            credentials,
            clock=clock,
            sleep=sleep,
            rand=rand,
            retry=retry,
            refresh_margin_s=refresh_margin_s,
            read_timeout_s=read_timeout_s,
        )
    return StaticTokens(credentials)
