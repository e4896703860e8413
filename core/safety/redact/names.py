"""Credentials found by the name they are stored under: env variables, flags, KEY=VALUE, JSON/YAML fields.

Two strengths of name:
- sensitive (`API_KEY`, `clientSecret`, `PGPASSWORD`): in a structured place (KEY=VALUE, --flag, a JSON or
  YAML field) the value is always hidden, with its length kept; after a loose separator (`token: x` in the
  middle of a line, `password x`) only a value that could be a credential is hidden, so `token: expired`
  stays readable;
- loose (`signature`, `sig`, `access`, `private`, `hmac`): the value is hidden only when it is key-like
  (high entropy, see entropy.py), e.g. `X-Amz-Signature=...`.

The word lists follow kubernetes-facts.md, gitleaks' generic-api-key identifiers and detect-secrets'
KeywordDetector denylist. Every rule is confined to one line.
"""

from __future__ import annotations

import functools
import itertools
import re

from core.safety.redact.base import REDACTED, Replace, Rule, already_redacted, sized, unquote
from core.safety.redact.entropy import credential_like, looks_random

_SENSITIVE_WORDS = frozenset(
    {
        "SECRET", "SECRETS", "TOKEN", "PASSWORD", "PASSWORDS", "PASSWD", "PWD", "PASS", "PASSPHRASE",
        "PASSCODE", "KEY", "KEYS", "CREDENTIAL", "CREDENTIALS", "CREDS", "AUTH", "COOKIE", "COOKIES",
        "SESSION", "DSN",
        # Run-together spellings seen in real configs (docker's `identitytoken`, `apikey`, ...).
        "APIKEY", "ACCESSKEY", "SECRETKEY", "PRIVATEKEY", "AUTHTOKEN", "ACCESSTOKEN", "REFRESHTOKEN",
        "IDTOKEN", "IDENTITYTOKEN", "REGISTRYTOKEN", "CLIENTSECRET", "APITOKEN", "BEARERTOKEN",
        # A Secret's registry credentials (`.dockerconfigjson: <base64>` decodes to a registry password).
        "DOCKERCONFIGJSON", "DOCKERCFG",
    }
)
# One run-together word ending in one of these holds a credential too (PGPASSWORD, MYSQLPASSWD, GHTOKEN).
# KEY and PASS are left out on purpose: MONKEY, TURKEY, BYPASS, COMPASS.
_SENSITIVE_ENDINGS = ("PASSWORD", "PASSWD", "SECRET", "TOKEN", "APIKEY")
_SENSITIVE_PAIRS = frozenset({("CONNECTION", "STRING"), ("CERTIFICATE", "DATA")})  # kubeconfig client cert
# A name ending in one of these describes a credential rather than holding it: `KeyError: 'labels'` is a
# Python exception, `TOKEN_FILE=/var/run/token` a path, `AUTH_TYPE=basic` a mode.
_DESCRIBING_SUFFIXES = frozenset(
    {
        "ERROR", "ERRORS", "EXCEPTION", "WARNING", "FILE", "PATH", "DIR", "NAME", "TYPE", "FORMAT",
        "LENGTH", "SIZE", "ENABLED", "MODE", "METHOD", "PROVIDER", "COUNT", "TIMEOUT", "TTL",
    }
)
# `pad_token_id`, `eos_token_id`, `token_type_ids`: vocabulary indices in every ML training log.
_INDEX_WORDS = frozenset({"ID", "IDS"})
_INDEXED = frozenset({"TOKEN", "TYPE"})
_LOOSE_WORDS = frozenset({"SIGNATURE", "SIG", "ACCESS", "PRIVATE", "HMAC", "OTP"})
_WORD_BREAK = re.compile(
    r"[^A-Za-z0-9]+|(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])"
)


def _words(name: str) -> list[str]:
    return [word.upper() for word in _WORD_BREAK.split(name) if word]


def _describes(words: list[str]) -> bool:
    if words[-1] in _DESCRIBING_SUFFIXES:
        return True
    return len(words) >= 2 and words[-1] in _INDEX_WORDS and words[-2] in _INDEXED


@functools.lru_cache(maxsize=4096)  # logs repeat the same few names (step=, loss=) on every line
def is_sensitive_name(name: str) -> bool:
    """True when `name` holds a credential word as a whole word (API_KEY, clientSecret; not MONKEY, TOKENIZER)."""
    words = _words(name)
    if not words or _describes(words):
        return False
    if any(word in _SENSITIVE_WORDS or word.endswith(_SENSITIVE_ENDINGS) for word in words):
        return True
    return any(pair in _SENSITIVE_PAIRS for pair in itertools.pairwise(words))


@functools.lru_cache(maxsize=4096)
def is_loose_name(name: str) -> bool:
    """True for a name that holds a credential only sometimes (`X-Amz-Signature`, `access`): judge the value."""
    words = _words(name)
    return bool(words) and not _describes(words) and any(word in _LOOSE_WORDS for word in words)


def _bare_key(name: str) -> bool:
    # A bare `key` in Kubernetes JSON/YAML names something (a toleration or label key, the key of a
    # secretKeyRef): `key: nvidia.com/gpu` must stay. It is a loose name there: only a key-like value goes
    # (`Invalid API key: 0123...cdef`).
    return name.lower() == "key"


def _credential_name(name: str, *, field: bool) -> bool:
    """A name worth looking at the value of; most names (`step`, `loss`, `lr`) are not, and are judged first."""
    return is_sensitive_name(name) or is_loose_name(name) or (field and _bare_key(name))


def _hide_structured(name: str, value: str, *, field: bool) -> bool:
    """Whether a value stored under `name` in a structured place (=, flag, JSON, YAML) is hidden."""
    if already_redacted(value) or value.lower() in ("true", "false", "none", "null"):
        return False
    if field and _bare_key(name):
        return looks_random(value)
    if is_sensitive_name(name):
        return True
    return is_loose_name(name) and looks_random(value)


# A leading dot for a Secret's own keys (`.dockerconfigjson`).
_NAME = r"\.?[A-Za-z_][A-Za-z0-9_.-]{0,127}+"
_DQ_VALUE = r'"(?:[^"\\\n]|\\.)*+"'
_SQ_VALUE = r"'[^'\n]*+'"

# KEY=VALUE in commands, env dumps, query strings, helm `--set a.password=x`. The name must not continue a
# longer word or flag (`--api-key=` is the flag rule's job). A scheme word after `=` belongs to the value.
_KEY_VALUE = re.compile(
    rf"(?<![A-Za-z0-9_.-])(?P<name>{_NAME})(?P<sep>[ \t]*=(?![=>])[ \t]*)"
    rf"(?P<value>{_DQ_VALUE}|{_SQ_VALUE}|(?i:(?:bearer|basic|token)[ \t]+)?[^\s\"'&;,]*)"
)
# --flag=value / --flag value for any flag with a sensitive name (--password, --hf-token, --api-key, ...).
# Single-dash flags are left alone: `-p 8080` is a port far more often than a password.
_FLAG = re.compile(
    rf"(?<![A-Za-z0-9_-])--(?P<name>[A-Za-z][A-Za-z0-9_.-]{{0,63}}+)(?P<sep>=|[ \t]+)"
    rf"(?P<value>{_DQ_VALUE}|{_SQ_VALUE}|[^\s\"']+)"
)
# "name": "value" / 'name': 'value' (JSON, Python reprs, docker config.json `"auth": "<base64>"`).
_JSON_PAIR = re.compile(
    rf"(?P<q>[\"'])(?P<name>{_NAME})(?P=q)(?P<sep>[ \t]*:[ \t]*)"
    rf"(?P<value>{_DQ_VALUE}|{_SQ_VALUE})"
)
# The same inside a JSON string that was itself JSON-encoded: \"password\": \"value\".
_ESCAPED_JSON_PAIR = re.compile(
    rf"\\\"(?P<name>{_NAME})\\\"(?P<sep>[ \t]*:[ \t]*)\\\"(?P<value>(?:[^\"\\\n]|\\[^\"\n]){{0,8192}}+)\\\""
)
# The name/value pair of a Kubernetes env var (and of Run:ai's `environmentVariables[]` and `annotations[]`)
# printed: JSON `{"name": "HF_TOKEN", "value": "x"}`, a Python repr, flow YAML `{name: HF_TOKEN, value: x}`,
# kwargs `EnvVar(name="HF_TOKEN", value="x")`, Go's `{Name:HF_TOKEN Value:x}`, and block YAML over two lines
# (`kubectl get pod -o yaml`). The name is a value there, not a key, so the key rules above never see it.
_QUOTE = r"(?:\\?[\"'])?"  # none, a quote, or a quote escaped inside a JSON string
# Between the name and the value: blanks, and in block YAML (`- name: HF_TOKEN` / `  value: x`) a line break,
# real or escaped inside a JSON string.
_GAP = r"(?:[ \t]|\r?\n|\\[nr])*+"
_NAME_VALUE_PAIR = re.compile(
    # The lookahead names every first character a match can have, which lets the scan skip the other positions
    # at once (half the time of this rule on a log dense with credential words).
    rf"(?=[\\\"'nN])(?<![A-Za-z0-9_.-])"
    rf"(?P<k1>{_QUOTE})(?i:name)(?P=k1)[ \t]*[:=][ \t]*(?P<q>{_QUOTE})(?P<name>{_NAME})(?P=q)"
    rf"{_GAP},?{_GAP}(?P<k2>{_QUOTE})(?i:value)(?P=k2)(?P<sep>[ \t]*[:=][ \t]*)"
    rf"(?P<value>\\\"(?:[^\"\\\n]|\\[^\"\n])*+\\\"|{_DQ_VALUE}|{_SQ_VALUE}|[^\s,;}}\])\\]+)"
)
# name: value at the start of a line (YAML dumps such as a Hydra config printed at start-up).
_YAML_LINE = re.compile(rf"(?m)^(?P<lead>[ \t]*(?:-[ \t]+)?)(?P<name>{_NAME})(?P<sep>:[ \t]+)(?P<value>[^\n]*)$")
# name: value in the middle of a line: a kubeconfig or YAML fragment flattened into one message
# (`user: client-key-data: LS0t... token: abc`), an HTTP header quoted in an error, Go's `token := x`.
# Not after `/` (`https://token:x@host` is URL userinfo, whose rule keeps the host) nor `<` (a marker).
# A value ending right before `<` is a value an earlier rule already cut short; leave it.
_COLON_PAIR = re.compile(
    rf"(?<![A-Za-z0-9_./<-])(?P<name>{_NAME})(?P<sep>[ \t]*:=?[ \t]*)"
    rf"(?P<value>{_DQ_VALUE}|{_SQ_VALUE}|[^\s\"'<>,;]++)(?!<)"
)
# A credential-ish name, blanks (and an optional `is`, `=>` or `->`), then a key-like value:
# `using api key Ab3..`, `token => 'Zx9..'`. Only a high-entropy value counts here.
_NEAR_NAME = re.compile(
    r"(?<![A-Za-z0-9_.-])(?P<name>[A-Za-z][A-Za-z0-9_.-]{0,63}+)"
    r"(?P<sep>[ \t]+(?:(?:is|was|=>|->)[ \t]+)?[\"'`]?)(?P<value>[A-Za-z0-9+/_.~=-]{16,}+)"
)


def _sub_key_value(match: re.Match[str]) -> str:
    if not _credential_name(match["name"], field=False):
        return match[0]
    value = unquote(match["value"])
    if not _hide_structured(match["name"], value, field=False):
        return match[0]
    return f"{match['name']}{match['sep']}{sized(value)}"


def _sub_flag(match: re.Match[str]) -> str:
    if not _credential_name(match["name"], field=False):
        return match[0]
    value = match["value"]
    if not _hide_structured(match["name"], unquote(value), field=False):
        return match[0]
    if match["sep"] != "=" and value.startswith("-"):
        return match[0]  # `--use-auth-token --model x`: the next word is another flag, not a value
    return f"--{match['name']}{match['sep']}{REDACTED}"


def _sub_json_pair(match: re.Match[str]) -> str:
    if not _credential_name(match["name"], field=True):
        return match[0]
    value = match["value"]
    inner = value[1:-1]
    if not _hide_structured(match["name"], inner, field=True):
        return match[0]
    return f"{match['q']}{match['name']}{match['q']}{match['sep']}{value[0]}{sized(inner)}{value[0]}"


def _sub_escaped_json_pair(match: re.Match[str]) -> str:
    value = match["value"]
    if not _hide_structured(match["name"], value, field=True):
        return match[0]
    return f'\\"{match["name"]}\\"{match["sep"]}\\"{sized(value)}\\"'


def _sub_name_value_pair(match: re.Match[str]) -> str:
    name, value = match["name"], match["value"]
    if not _credential_name(name, field=False):
        return match[0]
    quote = next((q for q in ('\\"', '"', "'") if len(value) >= 2 * len(q) and value.startswith(q)), "")
    bare = value[len(quote) : len(value) - len(quote)] if quote else value
    if not _hide_structured(name, bare, field=False):
        return match[0]
    head = match[0][: match.start("value") - match.start()]
    return f"{head}{quote}{sized(bare)}{quote}"


def _sub_yaml_line(match: re.Match[str]) -> str:
    value = match["value"].rstrip()
    bare = unquote(value)
    if not value or value in ("|", ">", "|-", ">-", "{}", "[]", "~"):
        return match[0]  # a block marker or an empty value: nothing secret on this line
    if not _hide_structured(match["name"], bare, field=True):
        return match[0]
    return f"{match['lead']}{match['name']}{match['sep']}{sized(bare)}"


def _sub_colon_pair(match: re.Match[str]) -> str:
    name, value = match["name"], match["value"]
    if not _credential_name(name, field=True):
        return match[0]
    bare = unquote(value)
    if already_redacted(bare) or value.startswith("//"):
        return match[0]
    if _bare_key(name):
        if not looks_random(bare):
            return match[0]
    elif is_sensitive_name(name):
        if not credential_like(bare):
            return match[0]
    elif not (is_loose_name(name) and looks_random(bare)):
        return match[0]
    quote = value[0] if value != bare else ""
    closing = ""
    if not quote and bare[-1] in ")]}" and "([{"[")]}".index(bare[-1])] not in bare:
        bare, closing = bare[:-1], bare[-1]  # `(id: x, secret: y)`: the bracket closes the phrase
    return f"{name}{match['sep']}{quote}{sized(bare)}{quote}{closing}"


def _sub_near_name(match: re.Match[str]) -> str:
    name = match["name"]
    if not (is_sensitive_name(name) or is_loose_name(name)) or not looks_random(match["value"]):
        return match[0]
    return f"{name}{match['sep']}{REDACTED}"


# Every sensitive or loose word contains one of these, so a text without any of them has no named secret.
_NAME_KEYWORDS = (
    "secret", "token", "pass", "pwd", "key", "cred", "auth", "cookie", "session", "dsn", "connection",
    "certificate", "sig", "access", "private", "hmac", "otp", "dockercfg", "dockerconfigjson",
)


def _rule(name: str, pattern: re.Pattern[str], replace: Replace, rescan: str | None = None) -> Rule:
    return Rule(name, _NAME_KEYWORDS, pattern, replace, "kubernetes-facts.md; gitleaks generic-api-key", rescan)


# Order matters: the structured forms run first, because they know a value's full extent and so report its
# real length (`GITHUB_TOKEN=<redacted: 40 chars>` rather than a token rule shrinking the value first).
NAME_RULES: tuple[Rule, ...] = (
    _rule("name-value-pair", _NAME_VALUE_PAIR, _sub_name_value_pair),
    _rule("yaml-line", _YAML_LINE, _sub_yaml_line),
    _rule("key-value", _KEY_VALUE, _sub_key_value),
    _rule("flag", _FLAG, _sub_flag),
    _rule("json-pair", _JSON_PAIR, _sub_json_pair),
    _rule("escaped-json-pair", _ESCAPED_JSON_PAIR, _sub_escaped_json_pair),
    _rule("colon-pair", _COLON_PAIR, _sub_colon_pair, rescan="name"),
    _rule("near-name", _NEAR_NAME, _sub_near_name, rescan="name"),
)
