"""When to retry a request, how long to wait, and the loop that does it.

Only GET is retried on error statuses and broken connections, because a GET cannot change anything. The token
POST is retried only when the connection was never made (the server cannot have seen it). Waits are
exponential backoff with full jitter, or the server's `Retry-After` when it sends one, and a per-call time
budget stops the loop before it would overrun. `sleep`, `rand` and `clock` are injected so tests measure the
waits without sleeping.
"""

from __future__ import annotations

import dataclasses
import email.utils
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime

import httpx

Sleep = Callable[[float], Awaitable[None]]
Rand = Callable[[], float]
Clock = Callable[[], float]

# Failures where the connection was never established, so even a POST is safe to send again.
CONNECT_ERRORS: tuple[type[httpx.TransportError], ...] = (httpx.ConnectError, httpx.ConnectTimeout)
# Failures worth another try for an idempotent request.
RETRYABLE_ERRORS: tuple[type[httpx.TransportError], ...] = (
    *CONNECT_ERRORS,
    httpx.ReadTimeout,
    httpx.RemoteProtocolError,
    httpx.ReadError,
)


@dataclass(frozen=True)
class RetryPolicy:
    """Retry settings for one call. Defaults follow the project's foundation issue."""

    max_attempts: int = 4
    base_delay_s: float = 0.2
    max_delay_s: float = 5.0
    retry_after_cap_s: float = 10.0
    budget_s: float = 30.0
    retry_statuses: frozenset[int] = frozenset({429, 502, 503, 504})
    # Off by default: the case bundles (and real tenants) answer 500 for a broken events store, which a retry
    # will not fix and which the diagnosis must see quickly as "events unavailable".
    retry_500: bool = False

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError(f"RetryPolicy.max_attempts must be at least 1, got {self.max_attempts}")
        for name in ("base_delay_s", "max_delay_s", "retry_after_cap_s", "budget_s"):
            if getattr(self, name) < 0:
                raise ValueError(f"RetryPolicy.{name} must not be negative, got {getattr(self, name)}")

    def retries_status(self, method: str, status: int) -> bool:
        if method.upper() != "GET":
            return False
        return status in self.retry_statuses or (status == 500 and self.retry_500)

    def retries_error(self, method: str, error: BaseException) -> bool:
        if method.upper() == "GET":
            return isinstance(error, RETRYABLE_ERRORS)
        return isinstance(error, CONNECT_ERRORS)

    def backoff(self, retry_number: int, rand: float) -> float:
        """Full jitter: uniform in [0, min(cap, base * 2**(n-1))] for the n-th retry (n >= 1)."""
        ceiling = min(self.max_delay_s, self.base_delay_s * (2 ** max(retry_number - 1, 0)))
        return max(0.0, min(1.0, rand)) * ceiling


def parse_retry_after(value: str | None, now: datetime) -> float | None:
    """Seconds to wait from a `Retry-After` header (delta-seconds or an HTTP date); None if absent/invalid."""
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    if value.isdigit():
        return float(int(value))
    try:
        seconds = float(value)
    except ValueError:
        seconds = None
    if seconds is not None:
        # Fractions are not in the RFC but cost nothing to honour; negative or NaN values are nonsense.
        return seconds if seconds >= 0 else None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - now).total_seconds())


@dataclass
class Outcome:
    """What the retry loop ended with: the last response, or the last transport error."""

    response: httpx.Response | None
    error: httpx.RequestError | None
    attempts: int
    waits: list[float] = field(default_factory=list)
    # Why retrying stopped while the failure was still retryable: "attempts" or "budget"; else None.
    gave_up: str | None = None


def next_wait(
    policy: RetryPolicy, retry_number: int, response: httpx.Response | None, rand: Rand, now: datetime
) -> float:
    """The wait before retry `retry_number`: the capped `Retry-After` if the server sent one, else backoff."""
    if response is not None:
        hinted = parse_retry_after(response.headers.get("retry-after"), now)
        if hinted is not None:
            return min(hinted, policy.retry_after_cap_s)
    return policy.backoff(retry_number, rand())


async def run_with_retry(
    send: Callable[[], Awaitable[httpx.Response]],
    *,
    method: str,
    policy: RetryPolicy,
    sleep: Sleep,
    rand: Rand,
    clock: Clock,
) -> Outcome:
    """Call `send` until it gives a non-retryable answer, attempts run out, or the next wait would overrun
    the budget. `clock` is epoch seconds (it also dates `Retry-After` HTTP dates)."""
    started = clock()
    waits: list[float] = []
    attempt = 0
    while True:
        attempt += 1
        response: httpx.Response | None = None
        error: httpx.RequestError | None = None
        try:
            response = await send()
        except httpx.RequestError as exc:
            if not policy.retries_error(method, exc):
                return Outcome(None, exc, attempt, waits)
            error = exc
        if response is not None and not policy.retries_status(method, response.status_code):
            return Outcome(response, None, attempt, waits)
        if attempt >= policy.max_attempts:
            return Outcome(response, error, attempt, waits, gave_up="attempts")
        now = clock()
        wait = next_wait(policy, attempt, response, rand, datetime.fromtimestamp(now, UTC))
        if (now - started) + wait > policy.budget_s:
            return Outcome(response, error, attempt, waits, gave_up="budget")
        waits.append(wait)
        await sleep(wait)


# Reads made inside `single_attempt()` are sent once: a live view that reads the same list every few seconds
# does its own, slower back-off between its reads (core.triage.pacing) instead of retrying within one.
_single: ContextVar[bool] = ContextVar("runai_triage_single_attempt", default=False)


@contextmanager
def single_attempt() -> Iterator[None]:
    """Reads made in this block (and in tasks started from it) get one attempt, whatever their policy."""
    token = _single.set(True)
    try:
        yield
    finally:
        _single.reset(token)


def in_effect(policy: RetryPolicy) -> RetryPolicy:
    """`policy`, or one attempt of it inside `single_attempt()`."""
    return dataclasses.replace(policy, max_attempts=1) if _single.get() else policy
