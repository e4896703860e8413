"""Advice that follows from the explaining log line itself, when it is a known tool's or runtime's error.

The AWS CLI's `An error occurred (NoSuchBucket) ...` asks for the bucket's name to be checked, not for code to be
fixed; curl's `(6) Could not resolve host` is DNS; `exec format error` is an image built for another CPU. Each
rule reads only what the line says; a line none of them knows gets the category's general advice.
"""

from __future__ import annotations

import re

from core.diagnosis.log_shapes import MISSING_SETTING_RE

# (pattern over the explaining line, what it asks for)
_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (pattern if isinstance(pattern, re.Pattern) else re.compile(pattern, re.IGNORECASE), advice)
    for pattern, advice in (
        (
            r"\((?:NoSuchBucket)\)|BucketNotFoundException|bucket does not exist",
            "The bucket the command names does not exist (or is in another account or region): check the bucket "
            "name and region in the command or its environment.",
        ),
        (
            r"\((?:NoSuchKey|404)\)|No URLs matched|matched no objects|\b404\b.{0,40}(?:not found|does not exist)"
            r"|returned error: 404\b",
            "The object or path the command reads does not exist: check the key, prefix or URL it uses.",
        ),
        (
            r"\((?:AccessDenied|403|Forbidden|InvalidAccessKeyId|SignatureDoesNotMatch|ExpiredToken"
            r"|InvalidToken|AllAccessDisabled)\)|AccessDeniedException|\b403\b.{0,20}Forbidden"
            r"|returned error: 40[13]\b",
            "The storage service refused the credentials the container used: check the secret or environment "
            "that provides them, and that they grant read access to that path.",
        ),
        (
            r"Unable to locate credentials|could not read Username|Authentication failed",
            "No working credentials reached the container: check the secret or environment variables it should "
            "get them from.",
        ),
        (
            r"Could not resolve host|unable to resolve host|Could not connect to the endpoint URL|Name or service "
            r"not known|Temporary failure in name resolution",
            "The host the command contacts could not be resolved or reached: check its name (and region), and DNS "
            "and network access from the cluster to it.",
        ),
        (
            r"curl: \((?:7|28)\)|Failed to connect|Connection timed out|Operation timed out",
            "The connection to the host failed or timed out: check that it is up and reachable from the cluster "
            "(a proxy or firewall rule is a common cause).",
        ),
        (
            r"curl: \((?:35|60)\)|certificate (?:verify failed|problem)|x509:",
            "The server's TLS certificate is not trusted in the container: add the CA to the image, or use the "
            "service's publicly trusted endpoint.",
        ),
        (
            r"fatal: repository .{0,300} not found",
            "The repository the command clones does not exist or is private: check its URL and the credentials "
            "the container uses.",
        ),
        (
            r"Could not find a version that satisfies|No matching distribution found",
            "The package version the command installs does not exist for this Python and platform: pin a version "
            "that exists, or install it into the image at build time.",
        ),
        (
            r"exec format error",
            "The image was built for another CPU architecture than the node's: use an image built for the node "
            "(for example linux/amd64).",
        ),
        (
            # NCCL's watchdog (PyTorch's ProcessGroupNCCL) on a collective that never completed: a rank that
            # never joined it or a stalled network, neither of which a fix to the failing rank's code addresses.
            r"Watchdog caught collective operation timeout|collective operation timeout"
            r"|ProcessGroupNCCL[^\n]{0,200}time(?:d )?out",
            "A collective operation (all-reduce, broadcast, barrier) waited past its timeout: one rank never "
            "reached it, or the network between the ranks stalled. Compare the ranks' logs around that moment to "
            "find the one that fell behind (a data-loader or storage stall, extra work on one rank such as a "
            "checkpoint save, code that takes another path on some ranks); if all of them were waiting, ask the "
            "administrator to check the GPU network between those nodes (NCCL_DEBUG=INFO logs the transport).",
        ),
        (
            MISSING_SETTING_RE,  # case matters: a variable's name is in capitals
            "The program says a setting it needs is missing: set it in the workload's environment (or the secret "
            "or config map it reads), then submit it again.",
        ),
        (
            r"command not found|: not found$|executable file not found",
            "The command (or a program it runs) is not in the image or on its PATH: check its spelling and that "
            "the image installs it.",
        ),
    )
)


def advice_for_line(line: str | None) -> str | None:
    """What the explaining line asks for, when it is a known tool's or runtime's error."""
    if not line:
        return None
    for pattern, advice in _RULES:
        if pattern.search(line[:4000]):
            return advice
    return None
