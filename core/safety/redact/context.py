"""Credentials recognised by what stands next to them: headers, URLs, command lines, netrc, vendor names.

None of these values has a shape of its own (a password is any string, an AWS secret key is 40 base64
characters), so each rule names the context that makes it one: `Authorization:`, `scheme://user:pw@`,
`mysql -p<pw>`, `machine h login u password p`, `wandb login <key>`, `aws` next to a 40-character key, a
vendor's name next to its key. Every rule stays within one line.
"""

from __future__ import annotations

import re

from core.safety.redact.base import REDACTED, LazyPattern, Rule, already_redacted, hide_group, unquote
from core.safety.redact.entropy import credential_like, looks_random, shannon


def _token_like(value: str) -> bool:
    """Heuristic for values after a bare `Bearer`/`Authorization:`: real tokens are long and mixed.

    It keeps prose such as "Bearer authentication failed" readable.
    """
    has_digit = any(c.isdigit() for c in value)
    has_upper = any(c.isupper() for c in value)
    return len(value) >= 8 and (has_digit or has_upper or len(value) >= 24)


# -- HTTP ---------------------------------------------------------------------------------------------------
_AUTH_HEADER = LazyPattern(
    r"(?i)\b(?P<name>(?:proxy-)?authorization)(?P<sep>\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?)"
    r"(?:(?P<scheme>bearer|basic|token|digest|negotiate|ntlm|apikey|aws4-hmac-sha256)[ \t]+)?"
    r"(?P<value>[^\s\"'\\,;]+)"
)
_BARE_BEARER = LazyPattern(r"(?i)\b(?P<scheme>bearer)(?P<sep>[ \t]+)(?P<value>[A-Za-z0-9._~+/=-]+)")
_URL_USERINFO = LazyPattern(
    r"(?<![A-Za-z0-9+.-])(?P<scheme>[A-Za-z][A-Za-z0-9+.-]{0,31}://)(?P<user>[^\s:/?#@]{0,256}):"
    r"(?P<password>[^\s/?#]{1,512})@"
)


def _sub_auth_header(match: re.Match[str]) -> str:
    value = match["value"]
    if already_redacted(value) or (match["scheme"] is None and not _token_like(value)):
        return match[0]
    scheme = f"{match['scheme']} " if match["scheme"] else ""
    return f"{match['name']}{match['sep']}{scheme}{REDACTED}"


def _sub_bare_bearer(match: re.Match[str]) -> str:
    if not _token_like(match["value"]):
        return match[0]
    return f"{match['scheme']}{match['sep']}{REDACTED}"


def _sub_url_userinfo(match: re.Match[str]) -> str:
    if already_redacted(match["password"]):
        return match[0]
    # `https://<token>:x-oauth-basic@github.com`: the token is the user name, the password a fixed word.
    user = REDACTED if looks_random(match["user"]) else match["user"]
    return f"{match['scheme']}{user}:{REDACTED}@"


# A token as the user name with no password (`https://<40 hex>@github.com/org/repo.git`, git's own way of
# passing an OAuth token): only a user name that looks like a key goes, `ssh://git@host` and `alice@` stay.
_URL_USER_TOKEN = LazyPattern(
    r"(?<![A-Za-z0-9+.-])(?P<scheme>[A-Za-z][A-Za-z0-9+.-]{0,31}://)(?P<user>[^\s:/?#@<>\"']{16,256})@"
)


def _sub_url_user_token(match: re.Match[str]) -> str:
    user = match["user"]
    if already_redacted(user) or not looks_random(user):
        return match[0]
    return f"{match['scheme']}{REDACTED}@"


# -- incoming webhooks on any host -------------------------------------------------------------------------
# Whoever holds an incoming webhook's URL can post to the channel: the part after `/hooks/` is the secret
# (Mattermost `/hooks/<26 characters>`, Rocket.Chat `/hooks/<id>/<token>`, Zapier `/hooks/catch/<n>/<id>`,
# Webex `/webhooks/incoming/<id>`, any self-hosted chat). Only the scheme, host and path up to that segment are
# kept. A path whose rest is a number or words (`/repos/o/r/hooks/12`, `/webhooks/getting-started`) names a
# page or a hook's settings, not a secret.
_WEBHOOK_PATH = LazyPattern(
    r"(?i)(?P<prefix>\b[a-z][a-z0-9+.-]{0,15}://[^\s/?#\"'<>]{1,253}(?:/[^\s/?#\"'<>]{1,128}){0,6}?"
    r"/(?:web)?hooks?/)(?P<secret>[^\s?#\"'<>(),;]{1,1024})"
)


def _hook_secret(rest: str) -> bool:
    segments = [s for s in rest.split("/") if s]
    return any(
        (len(s) >= 16 or (len(s) >= 6 and any(c.isdigit() for c in s))) and any(c.isalpha() for c in s)
        for s in segments
    )


# -- AWS secret access key ---------------------------------------------------------------------------------
# 40 characters of base64 with nothing key-like on either side (detect-secrets `aws` plugin; the AWS docs'
# credential format). Only on a line that says aws/secret or carries an access key id.
_AWS_SECRET = LazyPattern(r"(?<![A-Za-z0-9/+=])(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])")
_AWS_CONTEXT = LazyPattern(r"(?i)aws|secret|akia|asia")


def _sub_aws_secret(match: re.Match[str]) -> str:
    value = match["secret"]
    has_classes = (
        any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value)
    )
    if not has_classes or value.startswith("/") or shannon(value) < 4.0:
        return match[0]
    text = match.string
    line = text[text.rfind("\n", 0, match.start()) + 1 : (text.find("\n", match.end()) + 1 or len(text) + 1) - 1]
    return REDACTED if _AWS_CONTEXT.search(line) else match[0]


# -- netrc -------------------------------------------------------------------------------------------------
# `machine h login u password p` (curl, git and ftp read ~/.netrc) hides the password whatever it is. The
# looser forms, `login u password p` and a `password p` line on its own (the multi-line layout), only take a
# credential-like value, so "login attempt, password incorrect" stays readable.
_NETRC_MACHINE = LazyPattern(
    r"(?i)\b(?:machine[ \t]+[^\s]+|default)(?:[ \t]+(?:login|account|port)[ \t]+[^\s]+)*"
    r"[ \t]+password[ \t]+(?P<secret>[^\s]+)"
)
_NETRC_LOGIN = LazyPattern(r"(?i)\blogin[ \t]+[^\s]+[ \t]+password[ \t]+(?P<secret>[^\s]+)")
_NETRC_LINE = LazyPattern(r"(?im)^[ \t]*password[ \t]+(?P<secret>[^\s]+)[ \t]*$")


# -- command lines -----------------------------------------------------------------------------------------
# Tools whose short password option is not `--password`: the MySQL family takes `-p<pw>` glued on (so
# `-p 8080` with a blank stays a port), sshpass and `docker login` take `-p <pw>`, redis-cli `-a <pw>`,
# curl `-u user:pw` (gl:curl-auth-user). The option is looked for within 160 characters of the command (256
# for curl, whose headers come first): far enough for real command lines, short enough that a text repeating
# the command word thousands of times stays cheap.
# An argument as a shell passes it: quoted (blanks allowed inside) or one word that is not another flag.
_ARG = r"(?:'[^'\n]{0,256}'|\"[^\"\n]{0,256}\"|[^\s'\"-][^\s]*)"
_MYSQL_P = LazyPattern(
    r"(?i)\b(?:mysql(?:dump|admin|import|show|check|slap|sh)?|mariadb(?:-dump|-admin)?)\b[^\n;&|]{0,160}?"
    rf"[ \t]-p(?P<secret>{_ARG})"
)
_SSHPASS_P = LazyPattern(rf"\bsshpass\b[^\n;&|]{{0,160}}?[ \t]-p[ \t]*(?P<secret>{_ARG})")
_DOCKER_LOGIN_P = LazyPattern(
    r"\b(?:docker|podman|nerdctl|buildah|skopeo|helm(?:[ \t]+registry)?)[ \t]+login\b[^\n;&|]{0,160}?"
    rf"[ \t]-p[ \t]+(?P<secret>{_ARG})"
)
_REDIS_A = LazyPattern(rf"\bredis-cli\b[^\n;&|]{{0,160}}?[ \t]-a[ \t]+(?P<secret>{_ARG})")
_CURL_U = LazyPattern(
    r"\bcurl\b[^\n;&|]{0,256}?[ \t](?:-u|--user)(?:=|[ \t]*)[\"']?[^\s:\"']{1,128}:(?P<secret>[^\s\"']+)"
)
# `wandb login <key>` (also after `--relogin` or `--host <url>`): the API key is the one bare word that is
# not a flag and not a URL.
_WANDB_LOGIN = LazyPattern(
    r"(?i)\bwandb[ \t]+login\b(?P<flags>(?:[ \t]+--?[A-Za-z-]+(?:[= \t]+https?://[^\s]+)?)*)"
    r"[ \t]+(?P<secret>[^\s-][^\s]*)"
)


# -- vendor name next to a key (gitleaks' "semi-generic" rules) ---------------------------------------------
def _near(vendor: str, value: str) -> LazyPattern:
    return LazyPattern(rf"(?i)(?:{vendor})[^\n]{{0,80}}?(?<![A-Za-z0-9_-])(?P<secret>{value})(?![A-Za-z0-9_-])")


# wandb's own line when it stores a key: "wandb: Appending key for api.wandb.ai to your netrc file: <key>" (the
# key, 40 hex characters, may follow where a path would), and any 40-hex key a line about a netrc file names.
_WANDB_KEY = _near(r"\bwandb\b|api\.wandb\.ai|\bnetrc\b", r"[a-f0-9]{40}")
_DATADOG = _near(r"datadog|\bdd[_-](?:api|app)", r"[a-f0-9]{32}|[a-z0-9]{40}")
_TWILIO_AUTH = _near(r"twilio", r"[a-f0-9]{32}")
_MAILGUN_SIGNING = _near(r"mailgun", r"[a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8}")

# -- Docker Hub rate limits --------------------------------------------------------------------------------
# `toomanyrequests: ...` can name the account that hit the limit (`as 'alice'`, `user alice`): personal data.
_DOCKER_LIMIT_USER = LazyPattern(
    r"(?i)(?P<lead>toomanyrequests:[^\n]{0,200}?(?:\bas|\buser|\busername|\baccount))"
    r"(?P<sep>[ \t]+)(?P<user>'[^'\n]{1,256}'|\"[^\"\n]{1,256}\"|[^\s:,.'\"]{1,256})"
)


def _sub_docker_limit_user(match: re.Match[str]) -> str:
    user = match["user"]
    if already_redacted(unquote(user)):
        return match[0]
    quote = user[0] if user[0] in "'\"" else ""
    return f"{match['lead']}{match['sep']}{quote}{REDACTED}{quote}"


CONTEXT_RULES: tuple[Rule, ...] = (
    Rule("authorization-header", ("authorization",), _AUTH_HEADER, _sub_auth_header, "RFC 9110; gl:curl-auth-header"),
    Rule("bearer", ("bearer",), _BARE_BEARER, _sub_bare_bearer, "RFC 6750"),
    Rule("url-userinfo", ("://",), _URL_USERINFO, _sub_url_userinfo, "RFC 3986; ds:basic_auth"),
    Rule("url-user-token", ("://",), _URL_USER_TOKEN, _sub_url_user_token, "RFC 3986; git's token-as-user URLs"),
    Rule(
        "webhook-path",
        ("/hook", "/webhook"),
        _WEBHOOK_PATH,
        hide_group("secret", _hook_secret),
        "Mattermost, Rocket.Chat, Zapier, Webex incoming webhooks (vendor docs)",
    ),
    Rule("netrc-machine", ("password",), _NETRC_MACHINE, hide_group("secret"), "netrc(5)"),
    Rule("netrc-login", ("password",), _NETRC_LOGIN, hide_group("secret", credential_like), "netrc(5)"),
    Rule("netrc-line", ("password",), _NETRC_LINE, hide_group("secret", credential_like), "netrc(5)"),
    Rule("mysql-p", ("mysql", "mariadb"), _MYSQL_P, hide_group("secret"), "mysql(1) -p<password>"),
    Rule("sshpass-p", ("sshpass",), _SSHPASS_P, hide_group("secret"), "sshpass(1)"),
    Rule("registry-login-p", ("login",), _DOCKER_LOGIN_P, hide_group("secret"), "docker login -p"),
    Rule("redis-cli-a", ("redis-cli",), _REDIS_A, hide_group("secret"), "redis-cli -a"),
    Rule("curl-user", ("curl",), _CURL_U, hide_group("secret"), "gl:curl-auth-user"),
    Rule("wandb-login", ("wandb",), _WANDB_LOGIN, hide_group("secret", credential_like), "wandb login (vendor docs)"),
    Rule("wandb-key", ("wandb", "netrc"), _WANDB_KEY, hide_group("secret", looks_random), "wandb netrc message"),
    Rule("aws-secret-key", ("aws", "secret", "akia", "asia"), _AWS_SECRET, _sub_aws_secret, "ds:aws"),
    Rule("datadog", ("datadog", "dd_", "dd-"), _DATADOG, hide_group("secret", looks_random), "gl:datadog-access-token"),
    Rule("twilio-auth-token", ("twilio",), _TWILIO_AUTH, hide_group("secret", looks_random), "ds:twilio"),
    Rule("mailgun-signing-key", ("mailgun",), _MAILGUN_SIGNING, hide_group("secret"), "gl:mailgun-signing-key"),
    Rule("docker-rate-limit-user", ("toomanyrequests",), _DOCKER_LIMIT_USER, _sub_docker_limit_user, "Docker Hub"),
)
