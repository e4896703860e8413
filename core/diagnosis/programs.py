"""What a container runs, and what its exit code means for that program.

An exit code's meaning depends on who chose it: 1 from Python is an uncaught exception, 1 from the AWS CLI is a
failed S3 transfer, 6 from curl is a host name that did not resolve, 128 from git is a fatal error (not a start
error). The program is read from the container's command and arguments (a shell script's words included:
`sh -c "set -e; aws s3 sync ..."`), else from its image (`amazon/aws-cli`). The meanings are the tools'
documented exit statuses, in our words; a code a tool does not document falls back to the generic reading
(core/diagnosis/exit_codes.py). Nothing here guesses a cause: it says what the code means, not why it happened.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.diagnosis.exit_codes import exit_code_meaning

# Programs we know, by the command word that runs them.
_COMMANDS: dict[str, str] = {
    "aws": "aws", "gsutil": "gsutil", "gcloud": "gcloud", "curl": "curl", "wget": "wget", "git": "git",
    "pip": "pip", "pip3": "pip", "python": "python", "python3": "python", "java": "java", "node": "node",
    "npm": "node", "torchrun": "python", "accelerate": "python", "deepspeed": "python",
}  # fmt: skip
_IMAGES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"aws-cli|awscli", re.I), "aws"),
    (re.compile(r"cloud-sdk|google-cloud-cli|gsutil", re.I), "gsutil"),
    (re.compile(r"curlimages/curl|/curl:", re.I), "curl"),
    (re.compile(r"alpine/git|/git:", re.I), "git"),
)
_WORD_RE = re.compile(r"[A-Za-z0-9_./-]{1,200}")
_NAMES = {
    "aws": "the AWS CLI", "gsutil": "gsutil", "gcloud": "gcloud", "curl": "curl", "wget": "wget", "git": "git",
    "pip": "pip", "python": "Python", "java": "Java", "node": "Node.js",
}  # fmt: skip

# Documented exit statuses, per program.
_CODES: dict[str, dict[int, str]] = {
    "aws": {
        1: "at least one S3 transfer failed",
        2: "the command line could not be parsed, or S3 files marked for transfer were skipped",
        252: "the command syntax was invalid (an unknown or missing parameter)",
        253: "the system environment or configuration was invalid (credentials, region, profile)",
        254: "the request reached AWS and the service returned an error",
        255: "the command failed with an error from the CLI or from the service",
    },
    "gsutil": {1: "the command failed (gsutil exits 1 on any error)"},
    "gcloud": {1: "the command failed (gcloud exits 1 on any error)"},
    "curl": {
        3: "the URL was malformed",
        6: "the host name could not be resolved",
        7: "the connection to the host failed",
        22: "the server answered with an HTTP error (400 or above) and --fail was given",
        28: "the transfer timed out",
        35: "the TLS handshake failed",
        52: "the server sent nothing back",
        56: "receiving data from the network failed",
        60: "the server's TLS certificate could not be verified",
    },
    "wget": {
        1: "generic error",
        2: "the command line could not be parsed",
        3: "a file could not be read or written",
        4: "a network failure",
        5: "the server's TLS certificate could not be verified",
        6: "authentication failed",
        7: "a protocol error",
        8: "the server answered with an error",
    },
    "git": {128: "git stopped on a fatal error (the message above it says which)"},
    "pip": {1: "pip failed (the message above it says which package)"},
    "python": {
        1: "Python ended on an uncaught exception or an explicit failure status",
        2: "bad command-line arguments, or a script file Python could not open",
    },
    "node": {1: "Node.js ended on an uncaught exception"},
    "java": {1: "the Java program ended with a failure status (often an uncaught exception)"},
}


def program_of(command: Sequence[str] | str | None, args: Sequence[str] | str | None, image: str | None) -> str | None:
    """The known program a container runs: the first known command word, else what its image is."""
    parts: list[str] = []
    for value in (command, args):
        if isinstance(value, str):
            parts.append(value[:4000])
        elif value:
            parts += [str(item)[:4000] for item in list(value)[:100]]
    for word in _WORD_RE.findall(" ".join(parts))[:400]:
        base = word.rsplit("/", 1)[-1].lower()
        base = re.sub(r"^(python3)\.\d{1,2}$", r"\1", base)
        if base in _COMMANDS:
            return _COMMANDS[base]
    for pattern, name in _IMAGES:
        if image and pattern.search(image):
            return name
    return None


def exit_note(code: int, program: str | None) -> str:
    """What exit code `code` means, for this program when it documents the code, else in general."""
    documented = _CODES.get(program or "", {}).get(code)
    if documented is not None:
        return f"{documented} ({_NAMES.get(program or '', program)} exit status {code})"
    return exit_code_meaning(code).meaning
