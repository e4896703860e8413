"""Image pull: ImagePullBackOff, ErrImagePull and the registry's reason, which decides the recommendation.

The pull kind, first match wins: NEVER_PULL and INVALID_NAME (decided before any registry call), RATE_LIMIT
(a 429 body often also talks about authenticating), AUTHORIZATION, NOT_FOUND, TLS, NETWORK, and UNKNOWN_PULL
when nothing more specific is said. Docker Hub's "pull access denied, repository does not exist or may require
authorization" is AUTHORIZATION with ``ambiguous=True``: a wrong name reads the same, so the seed's "do not
assume a credential problem from ImagePullBackOff alone" holds.
"""

from __future__ import annotations

import re

from core.diagnosis.signals.family import Family, example
from core.diagnosis.signals.model import ImagePullKind, SignalKind
from core.diagnosis.signals.text import Collector, Text, canonical_reason, for_matching, rx

K = SignalKind
P = ImagePullKind

_REASONS = frozenset(
    {
        "errimagepull",
        "imagepullbackoff",
        "invalidimagename",
        "errimageneverpull",
        "registryunavailable",
        "imageinspecterror",
        "errimageinspect",
    }
)
_TRIGGER_RE = rx(
    r"failed to pull (?:and unpack )?image|back-off pulling image|\berrimagepull\b|\bimagepullbackoff\b"
    r"|\binvalidimagename\b|\berrimageneverpull\b|pull access denied|couldn't parse image reference"
    r"|failed to apply default image tag|is not present with pull policy of never|failed to resolve reference"
    r"|\bregistryunavailable\b"
)
_IMAGE_NAME_RE = rx(r"\bimage \"([^\"\n]{1,512})\"")
_KIND_PATTERNS: tuple[tuple[ImagePullKind, re.Pattern[str]], ...] = (
    (P.NEVER_PULL, rx(r"errimageneverpull|is not present with pull policy of never")),
    (
        P.INVALID_NAME,
        rx(
            r"invalidimagename|invalid reference format|couldn't parse image reference"
            r"|failed to apply default image tag"
        ),
    ),
    (P.RATE_LIMIT, rx(r"\b429\b|too many requests|toomanyrequests|(?:pull )?rate limit")),
    (
        P.AUTHORIZATION,
        rx(
            r"pull access denied|may require authorization|\bunauthorized\b|authentication required"
            r"|requested access to the resource is denied|\bforbidden\b|insufficient_scope"
            r"|no basic auth credentials|authorization failed|failed to authorize|\bdenied:"
            r"|status(?: code)?:? 40[13]\b"
        ),
    ),
    (
        P.NOT_FOUND,
        rx(
            r"manifest unknown|manifest for \S{1,512} not found|: not found\b|not found: manifest"
            r"|\bname unknown\b|404 not found|repository does not exist"
        ),
    ),
    (
        P.TLS,
        rx(
            r"x509:|tls: failed to verify|certificate signed by unknown authority|certificate has expired"
            r"|certificate is not valid"
        ),
    ),
    (
        P.NETWORK,
        rx(
            r"i/o timeout|no such host|connection refused|tls handshake timeout|dial tcp|connection reset"
            r"|network is unreachable|server misbehaving|temporary failure in name resolution"
            r"|registryunavailable|context deadline exceeded|503 service unavailable|502 bad gateway"
        ),
    ),
)
# A few words for each kind, where a report names it.
PULL_LABELS = {
    P.NOT_FOUND: "image or tag not found",
    P.AUTHORIZATION: "registry refused access",
    P.NETWORK: "registry unreachable",
    P.TLS: "registry certificate not trusted",
    P.RATE_LIMIT: "registry rate limit",
    P.INVALID_NAME: "invalid image reference",
    P.NEVER_PULL: "pull policy Never",
}
_AMBIGUOUS_RE = rx(r"pull access denied|repository does not exist|may require authorization")
_NOTES: dict[ImagePullKind, str] = {
    P.AUTHORIZATION: "the registry refused the credentials (or none were sent)",
    P.RATE_LIMIT: "registry rate limit: retry later or pull with an authenticated account",
    P.UNKNOWN_PULL: "the message does not say why the pull failed",
}
_AMBIGUOUS_NOTE = (
    "ambiguous: the registry answers the same for a private image without the right pull secret and for an "
    "image name or repository that does not exist"
)


def image_pull_kind(message: str) -> tuple[ImagePullKind, bool]:
    """The pull failure kind a registry/kubelet message shows, and whether that reading is ambiguous."""
    text = for_matching(message)
    for kind, pattern in _KIND_PATTERNS:
        if pattern.search(text):
            return kind, kind is P.AUTHORIZATION and bool(_AMBIGUOUS_RE.search(text))
    return P.UNKNOWN_PULL, False


def match(t: Text, out: Collector) -> None:
    if K.SANDBOX_FAILED in out.items:  # the node's own pause image: the sandbox family's
        return
    if not (t.r in _REASONS or _TRIGGER_RE.search(t.m)):
        return
    pull_kind, ambiguous = image_pull_kind(f"{t.r} {t.m}")
    image = _IMAGE_NAME_RE.search(t.m)
    out.add(
        K.IMAGE_PULL,
        pull_kind=pull_kind,
        ambiguous=ambiguous,
        reason=canonical_reason(t.r),
        resource=image.group(1) if image else None,
        container=t.container,
        note=_AMBIGUOUS_NOTE if ambiguous else _NOTES.get(pull_kind),
    )


def _failed(tail: str) -> str:
    return f'Failed to pull image "registry.example.com/acme/x:1": {tail}'


_IMAGE = "registry.example.com/acme/x:1"
EXAMPLES = (
    example(
        "Failed",
        'Failed to pull image "acme/x:1": rpc error: code = NotFound desc = failed to pull and unpack '
        'image "docker.io/acme/x:1": failed to resolve reference "docker.io/acme/x:1": '
        "docker.io/acme/x:1: not found",
        K.IMAGE_PULL,
        pull_kind=P.NOT_FOUND,
        resource="acme/x:1",
    ),
    example("BackOff", 'Back-off pulling image "docker.io/acme/x:1"', K.IMAGE_PULL, pull_kind=P.UNKNOWN_PULL),
    example("Failed", "Error: ErrImagePull", K.IMAGE_PULL),
    example("Failed", "Error: ImagePullBackOff", K.IMAGE_PULL),
    example("ImagePullBackOff", None, K.IMAGE_PULL, pull_kind=P.UNKNOWN_PULL),
    example("ErrImagePull", None, K.IMAGE_PULL),
    example(
        "InvalidImageName",
        'Failed to apply default image tag "Acme/X": couldn\'t parse image reference "Acme/X": '
        "invalid reference format: repository name must be lowercase",
        K.IMAGE_PULL,
        pull_kind=P.INVALID_NAME,
    ),
    example("InvalidImageName", None, K.IMAGE_PULL, pull_kind=P.INVALID_NAME),
    example(
        "ErrImageNeverPull",
        'Container image "acme/x:1" is not present with pull policy of Never',
        K.IMAGE_PULL,
        pull_kind=P.NEVER_PULL,
    ),
    example("ErrImageNeverPull", None, K.IMAGE_PULL, pull_kind=P.NEVER_PULL),
    example(
        "Failed",
        _failed('failed to resolve reference "docker.io/acme/x:1": docker.io/acme/x:1: not found'),
        K.IMAGE_PULL,
        pull_kind=P.NOT_FOUND,
        resource=_IMAGE,
    ),
    example("Failed", _failed("manifest unknown: manifest unknown"), K.IMAGE_PULL, pull_kind=P.NOT_FOUND),
    example(
        "Failed",
        _failed("Error response from daemon: manifest for acme/x:2 not found: manifest unknown"),
        K.IMAGE_PULL,
        pull_kind=P.NOT_FOUND,
    ),
    example(
        "Failed",
        _failed(
            "pull access denied for acme/private, repository does not exist or may require 'docker login': "
            "denied: requested access to the resource is denied"
        ),
        K.IMAGE_PULL,
        pull_kind=P.AUTHORIZATION,
    ),
    example(
        "Failed",
        'Failed to pull image "acme/privat": rpc error: code = Unknown desc = Error response from daemon: '
        "pull access denied for acme/privat, repository does not exist or may require authorization",
        K.IMAGE_PULL,
        pull_kind=P.AUTHORIZATION,
        ambiguous=True,
    ),
    example(
        "Failed",
        _failed("failed to authorize: failed to fetch anonymous token: unexpected status: 401 Unauthorized"),
        K.IMAGE_PULL,
        pull_kind=P.AUTHORIZATION,
        ambiguous=False,
    ),
    example(
        "Failed",
        _failed("unexpected status code [manifests 1]: 403 Forbidden"),
        K.IMAGE_PULL,
        pull_kind=P.AUTHORIZATION,
    ),
    example("Failed", _failed("unauthorized: authentication required"), K.IMAGE_PULL, pull_kind=P.AUTHORIZATION),
    example(
        "Failed", _failed("denied: requested access to the resource is denied"), K.IMAGE_PULL, pull_kind=P.AUTHORIZATION
    ),
    example("Failed", _failed("insufficient_scope: authorization failed"), K.IMAGE_PULL, pull_kind=P.AUTHORIZATION),
    example("Failed", _failed("dial tcp 10.1.2.3:443: i/o timeout"), K.IMAGE_PULL, pull_kind=P.NETWORK),
    example(
        "Failed",
        _failed("dial tcp: lookup registry.internal on 10.96.0.10:53: no such host"),
        K.IMAGE_PULL,
        pull_kind=P.NETWORK,
    ),
    example(
        "Failed", _failed("dial tcp 10.1.2.3:5000: connect: connection refused"), K.IMAGE_PULL, pull_kind=P.NETWORK
    ),
    example("Failed", _failed("net/http: TLS handshake timeout"), K.IMAGE_PULL, pull_kind=P.NETWORK),
    example(
        "Failed",
        _failed("tls: failed to verify certificate: x509: certificate signed by unknown authority"),
        K.IMAGE_PULL,
        pull_kind=P.TLS,
    ),
    example(
        "Failed",
        _failed(
            "429 Too Many Requests - Server message: toomanyrequests: You have reached your pull rate limit. "
            "You may increase the limit by authenticating and upgrading"
        ),
        K.IMAGE_PULL,
        pull_kind=P.RATE_LIMIT,
    ),
    example("Failed", _failed("invalid reference format"), K.IMAGE_PULL, pull_kind=P.INVALID_NAME),
    example("Failed", _failed("something unexpected happened"), K.IMAGE_PULL, pull_kind=P.UNKNOWN_PULL),
    # Routine pulls are not failures.
    example("Pulled", 'Successfully pulled image "acme/x:1" in 2.1s (2.1s including waiting)', None),
    example("Pulled", 'Container image "acme/x:1" already present on machine', None),
    example("Pulling", 'Pulling image "acme/x:1"', None),
)

FAMILY = Family(
    name="image-pull",
    kinds=frozenset({K.IMAGE_PULL}),
    match=match,
    examples=EXAMPLES,
    rows={K.IMAGE_PULL: "image-pull"},
)
