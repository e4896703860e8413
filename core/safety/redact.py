"""Hide credentials in untrusted cluster text: by the name they are stored under, and by their shape anywhere.

Two complementary nets:
- by name: an env variable, flag, `KEY=VALUE` pair, JSON/YAML field or annotation whose name contains a
  sensitive word (see is_sensitive_name) has its value replaced, with the length kept where it helps tell
  "set but wrong" from "empty";
- by shape: well-known token formats (JWT, AWS, GitHub, GitLab, Slack, Hugging Face, NVIDIA, OpenAI, GCP,
  Docker), URL passwords, Authorization headers and PEM private keys are replaced wherever they appear.

Every replacement starts with `<redacted` (or `<empty>`), and every rule leaves such a value alone, so running
redact() on its own output changes nothing. All patterns are anchored on a literal or a word boundary and use
no nested unbounded repetition, so run time stays linear in the input.

Docker Hub rate-limit messages (`toomanyrequests: ...`) can name the account that hit the limit (`as 'alice'`,
`user alice`) and carry a `dckr_jti_...` request id; the account name is personal data and the id is tied to
the account, so both are hidden. The rest of the message stays: it is the diagnosis.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable

from core.safety.sanitize import sanitize

__all__ = [
    "DROPPED_LAST_APPLIED",
    "describe_secret_ref",
    "is_sensitive_name",
    "redact",
    "redact_annotation",
    "redact_env_value",
]

REDACTED = "<redacted>"
EMPTY = "<empty>"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
DROPPED_LAST_APPLIED = "<dropped: last-applied-configuration may hold inline secrets>"

# ---------------------------------------------------------------------------------------------- names

_SENSITIVE_WORDS = frozenset(
    {
        "SECRET", "SECRETS", "TOKEN", "PASSWORD", "PASSWORDS", "PASSWD", "PWD", "PASS", "PASSPHRASE",
        "KEY", "KEYS", "CREDENTIAL", "CREDENTIALS", "CREDS", "AUTH", "COOKIE", "COOKIES", "SESSION", "DSN",
        # Run-together spellings seen in real configs (docker's `identitytoken`, `apikey`, ...); the word rule
        # alone would miss them because they have no separator or case change.
        "APIKEY", "ACCESSKEY", "SECRETKEY", "PRIVATEKEY", "AUTHTOKEN", "ACCESSTOKEN", "REFRESHTOKEN",
        "IDTOKEN", "IDENTITYTOKEN", "REGISTRYTOKEN", "CLIENTSECRET", "APITOKEN", "BEARERTOKEN",
    }
)  # fmt: skip
_SENSITIVE_PAIRS = frozenset({("CONNECTION", "STRING")})
# A name ending in one of these describes a credential rather than holding it: `KeyError: 'labels'` is a
# Python exception, `TOKEN_FILE=/var/run/token` a path, `AUTH_TYPE=basic` a mode. Their values stay visible
# (any token inside them is still caught by the pattern rules).
_DESCRIBING_SUFFIXES = frozenset(
    {
        "ERROR", "ERRORS", "EXCEPTION", "WARNING", "FILE", "PATH", "DIR", "NAME", "TYPE", "FORMAT",
        "LENGTH", "SIZE", "ENABLED", "MODE", "METHOD", "PROVIDER", "COUNT", "TIMEOUT", "TTL",
    }
)  # fmt: skip
# Word boundaries: any non-alphanumeric, lower->Upper (apiKey), the end of an acronym (APIKey) and
# letter<->digit (S3KEY, TOKEN2).
_WORD_BREAK = re.compile(
    r"[^A-Za-z0-9]+|(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])"
)


def _words(name: str) -> list[str]:
    return [word.upper() for word in _WORD_BREAK.split(name) if word]


@functools.lru_cache(maxsize=4096)  # logs repeat the same few names (step=, loss=) on every line
def is_sensitive_name(name: str) -> bool:
    """True when `name` holds a credential word as a whole word (API_KEY, clientSecret; not MONKEY, TOKENIZER)."""
    words = _words(name)
    if words and words[-1] in _DESCRIBING_SUFFIXES:
        return False
    if any(word in _SENSITIVE_WORDS for word in words):
        return True
    return any(pair in _SENSITIVE_PAIRS for pair in itertools.pairwise(words))


def _is_secret_field(name: str) -> bool:
    # A bare `key` field in Kubernetes JSON/YAML names something (a toleration or label key, the key of a
    # secretKeyRef), it does not hold a secret; redacting it would hide `nvidia.com/gpu` from a diagnosis.
    return name.lower() != "key" and is_sensitive_name(name)


# ---------------------------------------------------------------------------------------------- helpers


def _sized(value: str) -> str:
    return f"<redacted: {len(value)} chars>" if value else EMPTY


def _already_redacted(value: str) -> bool:
    return value.startswith(("<redacted", EMPTY, "<dropped"))


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _token_like(value: str) -> bool:
    """Heuristic for values after a bare `Bearer`/`Authorization:`: real tokens are long and mixed.

    It keeps prose such as "Bearer authentication failed" readable.
    """
    has_digit = any(c.isdigit() for c in value)
    has_upper = any(c.isupper() for c in value)
    return len(value) >= 8 and (has_digit or has_upper or len(value) >= 24)


# ---------------------------------------------------------------------------------------------- PEM

_PEM_BEGIN = re.compile(r"-----BEGIN (?:[A-Z0-9]{1,20} ){0,4}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = re.compile(r"-----END (?:[A-Z0-9]{1,20} ){0,4}PRIVATE KEY(?: BLOCK)?-----")
_PEM_REDACTED = "<redacted: PEM private key>"


def _redact_pem(text: str) -> str:
    """Replace each private-key block; one without an END line is hidden to the end of the text.

    A key cut short (a truncated log, a clipped field) is still a secret, so losing the rest of the text is
    the lesser harm. Plain find/search calls keep this linear however many BEGIN lines there are.
    """
    if "PRIVATE KEY" not in text:
        return text
    out: list[str] = []
    pos = 0
    while (begin := _PEM_BEGIN.search(text, pos)) is not None:
        out.append(text[pos : begin.start()])
        out.append(_PEM_REDACTED)
        end = _PEM_END.search(text, begin.end())
        if end is None:
            return "".join(out)
        pos = end.end()
    out.append(text[pos:])
    return "".join(out)


# ---------------------------------------------------------------------------------------------- by name

_NAME = r"[A-Za-z_][A-Za-z0-9_.-]{0,127}"
_DQ_VALUE = r'"(?:[^"\\\n]|\\.)*"'
_SQ_VALUE = r"'[^'\n]*'"

# KEY=VALUE in commands, env dumps, query strings, helm `--set a.password=x`. The name must not continue a
# longer word or flag (`--api-key=` is the flag rule's job). A scheme word after `=` belongs to the value.
_KEY_VALUE = re.compile(
    rf"(?<![A-Za-z0-9_.-])(?P<name>{_NAME})(?P<sep>[ \t]*=(?!=)[ \t]*)"
    rf"(?P<value>{_DQ_VALUE}|{_SQ_VALUE}|(?i:(?:bearer|basic|token)[ \t]+)?[^\s\"'&;,]*)"
)
# --flag=value / --flag value for any flag with a sensitive name (--password, --hf-token, --api-key, ...).
# Single-dash flags are left alone: `-p 8080` is a port far more often than a password.
_FLAG = re.compile(
    rf"(?<![A-Za-z0-9_-])--(?P<name>[A-Za-z][A-Za-z0-9_.-]{{0,63}})(?P<sep>=|[ \t]+)"
    rf"(?P<value>{_DQ_VALUE}|{_SQ_VALUE}|[^\s\"']+)"
)
# "name": "value" / 'name': 'value' (JSON, Python reprs, docker config.json `"auth": "<base64>"`).
_JSON_PAIR = re.compile(
    rf"(?P<q>[\"'])(?P<name>{_NAME})(?P=q)(?P<sep>[ \t]*:[ \t]*)"
    rf"(?P<value>{_DQ_VALUE}|{_SQ_VALUE})"
)
# The same inside a JSON string that was itself JSON-encoded: \"password\": \"value\".
_ESCAPED_JSON_PAIR = re.compile(
    rf"\\\"(?P<name>{_NAME})\\\"(?P<sep>[ \t]*:[ \t]*)\\\"(?P<value>(?:[^\"\\\n]|\\[^\"\n]){{0,8192}})\\\""
)
# name: value at the start of a line (YAML dumps such as a Hydra config printed at start-up).
_YAML_LINE = re.compile(rf"(?m)^(?P<lead>[ \t]*(?:-[ \t]+)?)(?P<name>{_NAME})(?P<sep>:[ \t]+)(?P<value>[^\n]*)$")


def _sub_key_value(match: re.Match[str]) -> str:
    value = match["value"]
    if not is_sensitive_name(match["name"]) or _already_redacted(_unquote(value)):
        return match[0]
    return f"{match['name']}{match['sep'].strip()}{_sized(_unquote(value))}"


def _sub_flag(match: re.Match[str]) -> str:
    value = match["value"]
    if not is_sensitive_name(match["name"]) or _already_redacted(_unquote(value)):
        return match[0]
    if match["sep"] != "=" and value.startswith("-"):
        return match[0]  # `--use-auth-token --model x`: the next word is another flag, not a value
    return f"--{match['name']}{match['sep']}{REDACTED}"


def _sub_json_pair(match: re.Match[str]) -> str:
    value = match["value"]
    inner = value[1:-1]
    if not _is_secret_field(match["name"]) or _already_redacted(inner):
        return match[0]
    return f"{match['q']}{match['name']}{match['q']}{match['sep']}{value[0]}{_sized(inner)}{value[0]}"


def _sub_escaped_json_pair(match: re.Match[str]) -> str:
    value = match["value"]
    if not _is_secret_field(match["name"]) or _already_redacted(value):
        return match[0]
    return f'\\"{match["name"]}\\"{match["sep"]}\\"{_sized(value)}\\"'


def _sub_yaml_line(match: re.Match[str]) -> str:
    value = match["value"].rstrip()
    bare = _unquote(value)
    if not _is_secret_field(match["name"]) or not value or _already_redacted(bare):
        return match[0]
    if value in ("|", ">", "|-", ">-", "{}", "[]", "null", "~"):
        return match[0]  # a block marker or an empty value: nothing secret on this line
    return f"{match['lead']}{match['name']}{match['sep']}{_sized(bare)}"


# ---------------------------------------------------------------------------------------------- by shape

_AUTH_HEADER = re.compile(
    r"(?i)\b(?P<name>(?:proxy-)?authorization)(?P<sep>\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?)"
    r"(?:(?P<scheme>bearer|basic|token|digest|negotiate|ntlm|apikey|aws4-hmac-sha256)[ \t]+)?"
    r"(?P<value>[^\s\"'\\,;]+)"
)
_BARE_BEARER = re.compile(r"(?i)\b(?P<scheme>bearer)(?P<sep>[ \t]+)(?P<value>[A-Za-z0-9._~+/=-]+)")
_URL_USERINFO = re.compile(
    r"(?<![A-Za-z0-9+.-])(?P<scheme>[A-Za-z][A-Za-z0-9+.-]{0,31}://)(?P<user>[^\s:/?#@]{0,256}):"
    r"(?P<password>[^\s/?#]{1,512})@"
)


def _sub_auth_header(match: re.Match[str]) -> str:
    value = match["value"]
    if _already_redacted(value) or (match["scheme"] is None and not _token_like(value)):
        return match[0]
    scheme = f"{match['scheme']} " if match["scheme"] else ""
    return f"{match['name']}{match['sep']}{scheme}{REDACTED}"


def _sub_bare_bearer(match: re.Match[str]) -> str:
    if not _token_like(match["value"]):
        return match[0]
    return f"{match['scheme']}{match['sep']}{REDACTED}"


def _sub_url_userinfo(match: re.Match[str]) -> str:
    if _already_redacted(match["password"]):
        return match[0]
    return f"{match['scheme']}{match['user']}:{REDACTED}@"


def _has_upper_and_digit(match: re.Match[str]) -> bool:
    body = match["body"]
    return any(c.isupper() for c in body) and any(c.isdigit() for c in body)


# Each entry: pattern, and an optional check on the match (False keeps the text).
_TOKEN_SHAPES: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], bool] | None], ...] = (
    (re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"), None),
    (re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}"), None),
    (re.compile(r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"), None),
    (re.compile(r"(?<![A-Za-z0-9_-])gl(?:pat|dt|rt|ptt|cbt|oas)-[A-Za-z0-9_-]{16,}"), None),
    (re.compile(r"(?<![A-Za-z0-9_-])xox[abeprs]-[A-Za-z0-9-]{10,}"), None),
    (re.compile(r"(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}"), None),
    (re.compile(r"(?<![A-Za-z0-9_-])nvapi-[A-Za-z0-9_-]{20,}"), None),
    # OpenAI/Anthropic style. Kubernetes names are lower-case, so requiring an upper-case letter and a
    # digit keeps a workload called `sk-hynix-llm-pretrain-7b` from being hidden.
    (
        re.compile(r"(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-|ant-)?(?P<body>[A-Za-z0-9_-]{20,})"),
        _has_upper_and_digit,
    ),
    (re.compile(r"(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{30,}"), None),
    (re.compile(r"(?<![A-Za-z0-9_-])dckr_(?:pat|jti|oat)_[A-Za-z0-9_=-]{8,}"), None),
)

_DOCKER_LIMIT_USER = re.compile(
    r"(?i)(?P<lead>toomanyrequests:[^\n]{0,200}?(?:\bas|\buser|\busername|\baccount))"
    r"(?P<sep>[ \t]+)(?P<user>'[^'\n]{1,256}'|\"[^\"\n]{1,256}\"|[^\s:,.'\"]{1,256})"
)


def _sub_docker_limit_user(match: re.Match[str]) -> str:
    user = match["user"]
    if _already_redacted(_unquote(user)):
        return match[0]
    quote = user[0] if user[0] in "'\"" else ""
    return f"{match['lead']}{match['sep']}{quote}{REDACTED}{quote}"


def _sub_token(check: Callable[[re.Match[str]], bool] | None) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        return REDACTED if check is None or check(match) else match[0]

    return replace


_Rule = tuple[re.Pattern[str], Callable[[re.Match[str]], str]]

# Rules that find a value by the name it is stored under. All of them are confined to one line. They run
# first, because they know a value's full extent and so report its real length
# (`GITHUB_TOKEN=<redacted: 40 chars>` rather than a token rule shrinking the value first).
_NAME_RULES: tuple[_Rule, ...] = (
    (_KEY_VALUE, _sub_key_value),
    (_FLAG, _sub_flag),
    (_JSON_PAIR, _sub_json_pair),
    (_ESCAPED_JSON_PAIR, _sub_escaped_json_pair),
    (_YAML_LINE, _sub_yaml_line),
)
# Every sensitive word contains one of these, so a line without any of them cannot hold a named secret.
_NAME_HINT_LOWER = re.compile(r"secret|token|pass|pwd|key|cred|auth|cookie|session|dsn|connection")
# Case-insensitive matching is several times slower, so it is only the fallback for text lower() reshapes.
_NAME_HINT = re.compile(_NAME_HINT_LOWER.pattern, re.IGNORECASE)

# Rules that find a credential by its shape, each with the lower-case literals it cannot match without;
# skipping a rule whose literals are absent keeps a multi-megabyte log from paying for twenty full scans.
_SHAPE_RULES: tuple[tuple[tuple[str, ...], re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    (("authorization",), _AUTH_HEADER, _sub_auth_header),
    (("bearer",), _BARE_BEARER, _sub_bare_bearer),
    (("://",), _URL_USERINFO, _sub_url_userinfo),
    *(
        (hints, pattern, _sub_token(check))
        for hints, (pattern, check) in zip(
            (
                ("eyj",),
                ("akia", "asia", "abia", "acca"),
                ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
                ("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "gloas-"),
                ("xox",),
                ("hf_",),
                ("nvapi-",),
                ("sk-",),
                ("aiza",),
                ("dckr_",),
            ),
            _TOKEN_SHAPES,
            strict=True,
        )
    ),
    (("toomanyrequests",), _DOCKER_LIMIT_USER, _sub_docker_limit_user),
)


# Lines near one another are handled as one block, so text dense with hints costs a few regex calls per
# few kilobytes instead of several per line.
_BLOCK_REACH = 2048


def _redact_by_name(text: str) -> str:
    """Apply the name rules to blocks of lines that contain a sensitive-word fragment; skip the rest."""
    lowered = text.lower()
    if len(lowered) == len(text):  # lower() only ever grows a character, so equal length means aligned
        hints, search = lowered, _NAME_HINT_LOWER.search
    else:
        hints, search = text, _NAME_HINT.search
    out: list[str] = []
    pos = 0  # end of the text already copied to out
    while (hint := search(hints, pos)) is not None:
        start = text.rfind("\n", pos, hint.start()) + 1 or pos
        end = text.find("\n", min(hint.end() + _BLOCK_REACH, len(text)))
        end = len(text) if end == -1 else end
        block = text[start:end]
        for pattern, replace in _NAME_RULES:
            block = pattern.sub(replace, block)
        out.append(text[pos:start])
        out.append(block)
        pos = end
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)


def redact(text: str) -> str:
    """Replace every credential found in `text` by name or by shape; everything else is kept as is."""
    if not text:
        return text
    text = _redact_by_name(_redact_pem(text))
    lowered = text.lower()
    for hints, pattern, replace in _SHAPE_RULES:
        if any(hint in lowered for hint in hints):
            text = pattern.sub(replace, text)
    return text


# ---------------------------------------------------------------------------------------------- fields


def redact_env_value(name: str, value: str | None) -> str | None:
    """An env value for display: hidden (length kept) under a sensitive name, else pattern-redacted.

    None (a variable whose value comes from elsewhere, e.g. a secretKeyRef) stays None.
    """
    if value is None:
        return None
    if is_sensitive_name(name):
        return _sized(value)
    return redact(value)


def redact_annotation(name: str, value: str | None) -> str | None:
    """An annotation value for display; the last-applied configuration is dropped whole.

    An annotation whose own name is sensitive (`example.com/api-token`) is hidden like an env variable.

    That annotation is a full copy of the submitted object, so it can carry inline env values and tokens in
    any shape; nothing in it is needed for a diagnosis that the live object does not already show.
    """
    if name == LAST_APPLIED:
        return DROPPED_LAST_APPLIED
    return redact_env_value(name, value)


def describe_secret_ref(name: str | None, key: str | None = None) -> str:
    """How a reference to a Secret is shown: its name (and key), never its content, which is never read."""
    shown = sanitize(name, max_len=253, keep_newlines=False) if name else "<unnamed>"
    if key is None:
        return f'secret "{shown}"'
    return f'secret "{shown}", key "{sanitize(key, max_len=253, keep_newlines=False)}"'
