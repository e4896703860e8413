"""What a container runs, and what its exit code means for that program.

An exit code's meaning depends on who chose it: 1 from Python is an uncaught exception, 1 from the AWS CLI is a
failed S3 transfer, 6 from curl is a host name that did not resolve, 128 from git is a fatal error (not a start
error). The program is the one that ended the container: the command's first known word (past wrappers such as
`env` or `torchrun`'s Python), else what its image is (`amazon/aws-cli`). A shell script (`sh -c "..."`,
`bash run.sh`) ends with the shell's status: the shell's own (2 for a syntax error) or the one its last command
left. So a script of one command (`sh -c "set -e; aws s3 sync ..."`) is that command's, and any other script is
the shell's, whatever words it holds (a script that echoes "Java" runs no Java); which of its commands failed
is for its log to say (log_shapes.program_named). The meanings are the tools' documented exit statuses, in our
words; a code a tool does not document falls back to the generic reading (core/diagnosis/exit_codes.py).
Nothing here guesses a cause: it says what the code means, not why it happened.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

from core.diagnosis.exit_codes import exit_code_meaning

# Programs we know, by the command word that runs them.
_COMMANDS: dict[str, str] = {
    "aws": "aws", "gsutil": "gsutil", "gcloud": "gcloud", "curl": "curl", "wget": "wget", "git": "git",
    "pip": "pip", "pip3": "pip", "python": "python", "python3": "python", "java": "java", "node": "node",
    "npm": "node", "torchrun": "python", "accelerate": "python", "deepspeed": "python",
}
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
}
SHELLS = frozenset({"sh", "bash", "ash", "dash", "zsh", "ksh", "busybox"})
# Separators between a script's commands, and words that make it more than one command.
_SCRIPT_SEPARATORS = frozenset({";", "&&", "||", "|", "&", ";;", "(", ")", "|&"})
_COMPOUND = frozenset({"if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
                       "{", "}", "!", "function", "select"})
# Words that run the command after them: the program is the one they run.
_WRAPPERS = frozenset({"env", "nohup", "time", "timeout", "stdbuf", "nice", "ionice", "taskset", "numactl", "tini",
                       "dumb-init", "sudo", "mpirun", "mpiexec", "srun", "horovodrun", "--"})
_ASSIGNMENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,100}=")
# What a shell's exit status means when the shell ended the container.
_SHELL_CODES: dict[int, str] = {
    1: "the script ended with status 1: its last command failed, or it called exit 1 (its log says which)",
    2: "the shell could not parse its script (a syntax error) or a builtin was misused, unless the last command "
    "it ran exited 2 itself",
    126: "a command of the script was found but could not be run (no execute permission, or not a binary for this "
    "system)",
    127: "a command of the script was not found (in the image or on its PATH)",
}

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


def _argv(command: Sequence[str] | str | None, args: Sequence[str] | str | None) -> list[str]:
    """The words the container starts with: a list as Kubernetes gives it, a string (Run:ai's) split as a shell
    would (or at blanks, when its quotes do not close)."""
    words: list[str] = []
    for value in (command, args):
        if isinstance(value, str):
            text = value[:4000]
            try:
                words += shlex.split(text)
            except ValueError:
                words += text.split()
        elif value:
            words += [str(item)[:4000] for item in list(value)[:100]]
    return words[:400]


def _known(words: Sequence[str]) -> str | None:
    """The first known program among command words (case as written: a command is not a capitalised word)."""
    for word in words:
        for piece in _WORD_RE.findall(word)[:20]:
            base = re.sub(r"^(python3)\.\d{1,2}$", r"\1", piece.rsplit("/", 1)[-1])
            if base in _COMMANDS:
                return _COMMANDS[base]
    return None


def _shell(argv: Sequence[str]) -> tuple[str, str | None] | None:
    """(the shell, its `-c` script or None for a script file) when the container runs a shell."""
    if not argv:
        return None
    name = argv[0].rsplit("/", 1)[-1]
    rest = list(argv[1:])
    if name == "busybox" and rest and rest[0].rsplit("/", 1)[-1] in SHELLS:
        name, rest = "sh", rest[1:]
    if name not in SHELLS:
        return None
    shown = "sh" if name == "busybox" else name
    for index, word in enumerate(rest):
        if word.startswith("-") and not word.startswith("--") and "c" in word[1:]:
            return shown, (rest[index + 1] if index + 1 < len(rest) else "")
        if not word.startswith("-"):
            return shown, None  # a script file, run by the shell
    return shown, None


def _one_command(script: str) -> list[str] | None:
    """The words of a script that is one simple command (`set` lines and `exec` aside), else None."""
    lexer = shlex.shlex(script.replace("\n", ";")[:4000], posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    commands: list[list[str]] = [[]]
    try:
        for token in lexer:
            if token in _SCRIPT_SEPARATORS or (token and set(token) <= set(";&|()")):
                commands.append([])
            else:
                commands[-1].append(token)
    except ValueError:  # an unclosed quote: the shell would stop on it
        return None
    real = []
    for words in commands:
        while words and (_ASSIGNMENT_RE.match(words[0]) or words[0] == "exec"):
            words = words[1:]
        if not words or words[0] == "set":
            continue
        if words[0] in _COMPOUND:
            return None
        real.append(words)
    return real[0] if len(real) == 1 else None


def program_of(command: Sequence[str] | str | None, args: Sequence[str] | str | None, image: str | None) -> str | None:
    """The program that ends the container: for a shell script the shell (or the script's one command), else
    the first known command word, else what its image is."""
    argv = _argv(command, args)
    shell = _shell(argv)
    if shell is not None:
        name, script = shell
        words = _one_command(script) if script else None
        if words is None:
            return name
        if _shell(words) is not None:
            return program_of(words, None, None)
        first = words[0].rsplit("/", 1)[-1]
        return _known(words[1:] if first in _WRAPPERS else words[:1])
    found = _known(argv)
    if found is not None:
        return found
    for pattern, name in _IMAGES:
        if image and pattern.search(image):
            return name
    return None


def exit_note(code: int, program: str | None) -> str:
    """What exit code `code` means, for this program when it documents the code, else in general."""
    if program in SHELLS:
        meaning = _SHELL_CODES.get(code)
        if meaning is None and code != 0 and not 128 < code < 256:
            last = "the status the script's last command ended with"
            meaning = f"{last} (or its own exit {code}), passed on by the shell"
        if meaning is not None:
            return f"{meaning} ({program} exit status {code})"
        return exit_code_meaning(code).meaning
    documented = _CODES.get(program or "", {}).get(code)
    if documented is not None:
        return f"{documented} ({_NAMES.get(program or '', program)} exit status {code})"
    return exit_code_meaning(code).meaning


def documents(program: str | None, code: int) -> bool:
    """The program documents what this exit code means."""
    return code in _CODES.get(program or "", {})
