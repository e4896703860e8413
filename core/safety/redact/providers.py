"""Credentials recognised by their own shape, wherever they appear: a provider's token format.

Each format was learnt from the public rule lists of gitleaks (config/gitleaks.toml and
cmd/generate/config/rules/*.go, rule id given as `gl:<id>`) and Yelp detect-secrets (plugins, `ds:<plugin>`),
or from the vendor's own documentation; the patterns here are written for this project. They are anchored on
a literal prefix or a boundary and use no nested unbounded repetition, so run time stays linear. Lengths are
floors rather than exact counts where a vendor may lengthen its tokens: a longer token is still a token.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from core.safety.redact.base import REDACTED, LazyPattern, Rule, already_redacted, hide_group

# The character before a token must not continue it; `_` and `-` count, since many prefixes end in them.
_B = r"(?<![A-Za-z0-9_-])"


def token(
    name: str,
    keywords: tuple[str, ...],
    regex: str,
    source: str,
    check: Callable[[str], bool] | None = None,
) -> Rule:
    """A rule that hides the `secret` group of `regex` (or the whole match when it has none)."""
    pattern = LazyPattern(regex)
    if pattern.has_group("secret"):
        return Rule(name, keywords, pattern, hide_group("secret", check), source)

    def replace(match: re.Match[str]) -> str:
        value = match[0]
        if already_redacted(value) or (check is not None and not check(value)):
            return value
        return REDACTED

    return Rule(name, keywords, pattern, replace, source)


def _upper_and_digit(value: str) -> bool:
    # OpenAI/Anthropic style keys are mixed case with digits. Kubernetes names are lower-case, so this keeps
    # a workload called `sk-hynix-llm-pretrain-7b` readable.
    body = value.split("-", 1)[-1]
    return any(c.isupper() for c in body) and any(c.isdigit() for c in body)


_GITLAB_PREFIXES = tuple(
    f"gl{kind}-" for kind in ("pat", "dt", "rt", "ptt", "cbt", "oas", "ft", "imt", "agent", "ffct", "soat")
)

PROVIDER_RULES: tuple[Rule, ...] = (
    token("jwt", ("eyj",), rf"{_B}eyJ[A-Za-z0-9_-]{{4,}}\.eyJ[A-Za-z0-9_-]{{4,}}\.[A-Za-z0-9_-]*", "gl:jwt; ds:jwt"),
    token("grafana-api-key", ("eyjrijoi",), rf"{_B}eyJrIjoi[A-Za-z0-9]{{40,}}={{0,3}}", "gl:grafana-api-key"),
    # No boundary after the id: one more character (e.g. a zero-width space removed) must not hide it.
    token(
        "aws-access-key-id",
        ("akia", "asia", "abia", "acca", "a3t"),
        r"(?<![A-Za-z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}",
        "gl:aws-access-token; ds:aws",
    ),
    token("aws-bedrock-key", ("absk",), rf"{_B}ABSK[A-Za-z0-9+/]{{100,}}={{0,2}}", "gl:aws-amazon-bedrock-api-key"),
    token(
        "github",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})",
        "gl:github-pat, github-fine-grained-pat, github-oauth, github-app-token; ds:github_token",
    ),
    token(
        "gitlab",
        _GITLAB_PREFIXES,
        rf"{_B}gl(?:pat|dt|rt|ptt|cbt|oas|ft|imt|agent|ffct|soat)-[A-Za-z0-9_-]{{16,}}",
        "gl:gitlab-*; ds:gitlab_token",
    ),
    token("slack-token", ("xox",), rf"{_B}xox[abeoprs]-[A-Za-z0-9-]{{10,}}", "gl:slack-bot-token, slack-user-token"),
    token("slack-app-token", ("xapp-",), rf"{_B}xapp-\d-[A-Za-z0-9-]{{10,}}", "gl:slack-app-token"),
    token(
        "slack-webhook",
        ("hooks.slack.com",),
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9_/+-]{8,})",
        "gl:slack-webhook-url; ds:slack",
    ),
    token(
        "discord-webhook",
        ("discord",),
        r"discord(?:app)?\.com/api/webhooks/(?P<secret>[0-9]{5,}/[A-Za-z0-9_-]{20,})",
        "Discord webhook URL (vendor docs)",
    ),
    token(
        "teams-webhook",
        ("webhook.office.com",),
        r"webhook\.office\.com/webhookb2/(?P<secret>[^\s\"'<>]{20,})",
        "gl:microsoft-teams-webhook",
    ),
    token(
        "stripe",
        ("sk_", "rk_", "whsec_"),
        rf"{_B}(?:(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{{10,}}|whsec_[A-Za-z0-9]{{24,}})",
        "gl:stripe-access-token; ds:stripe",
    ),
    token(
        "sendgrid",
        ("sg.",),
        rf"{_B}SG\.[A-Za-z0-9_-]{{16,32}}\.[A-Za-z0-9_-]{{16,64}}",
        "gl:sendgrid-api-token; ds:sendgrid",
    ),
    token("npm", ("npm_",), rf"{_B}npm_[A-Za-z0-9]{{30,}}", "gl:npm-access-token; ds:npm"),
    token("pypi", ("pypi-age",), rf"{_B}pypi-AgE[A-Za-z0-9_-]{{40,}}", "gl:pypi-upload-token; ds:pypi_token"),
    token("docker-hub", ("dckr_",), rf"{_B}dckr_(?:pat|jti|oat)_[A-Za-z0-9_=-]{{8,}}", "Docker Hub PAT (vendor docs)"),
    token(
        "huggingface",
        ("hf_", "api_org_"),
        r"(?<![A-Za-z0-9_])(?:hf_|api_org_)[A-Za-z0-9]{30,}",
        "gl:huggingface-access-token, huggingface-organization-api-token",
    ),
    token(
        "nvidia", ("nvapi-",), rf"{_B}nvapi-[A-Za-z0-9_-]{{20,}}", "NVIDIA NGC / build.nvidia.com API key (vendor docs)"
    ),
    token(
        "openai-anthropic",
        ("sk-",),
        rf"{_B}sk-(?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{{20,}}",
        "gl:openai-api-key, anthropic-api-key, anthropic-admin-api-key; ds:openai",
        _upper_and_digit,
    ),
    token("perplexity", ("pplx-",), rf"{_B}pplx-[A-Za-z0-9]{{40,}}", "gl:perplexity-api-key"),
    token("gcp-api-key", ("aiza",), rf"{_B}AIza[0-9A-Za-z_-]{{30,}}", "gl:gcp-api-key"),
    token(
        "google-oauth-secret",
        ("gocspx-",),
        rf"{_B}GOCSPX-[A-Za-z0-9_-]{{20,}}",
        "Google OAuth client secret (vendor docs)",
    ),
    token(
        "google-oauth-token", ("ya29.",), rf"{_B}ya29\.[A-Za-z0-9_-]{{20,}}", "Google OAuth access token (vendor docs)"
    ),
    token(
        "databricks",
        ("dapi",),
        r"(?<![A-Za-z0-9_])dapi[a-f0-9]{32}(?:-[0-9])?(?![A-Za-z0-9])",
        "gl:databricks-api-token",
    ),
    token(
        "mailgun",
        ("key-",),
        r"(?<![A-Za-z0-9_])(?:pub)?key-[a-f0-9]{32}(?![A-Za-z0-9])",
        "gl:mailgun-private-api-token, mailgun-pub-key",
    ),
    token("shopify", ("shp",), rf"{_B}shp(?:at|ca|pa|ss)_[a-fA-F0-9]{{32}}", "gl:shopify-*"),
    token("digitalocean", ("_v1_",), rf"{_B}do[opr]_v1_[a-f0-9]{{64}}", "gl:digitalocean-*"),
    token(
        "vault",
        ("hvs.", "hvb.", "hvr."),
        rf"{_B}hv[sbr]\.[A-Za-z0-9_-]{{24,}}",
        "gl:vault-service-token, vault-batch-token",
    ),
    token(
        "grafana",
        ("glc_", "glsa_"),
        rf"{_B}(?:glc_[A-Za-z0-9+/]{{32,}}={{0,3}}|glsa_[A-Za-z0-9]{{32}}_[A-Fa-f0-9]{{8}})",
        "gl:grafana-cloud-api-token, grafana-service-account-token",
    ),
    token("sentry", ("sntry",), rf"{_B}sntry[su]_[A-Za-z0-9+/=_]{{40,}}", "gl:sentry-org-token, sentry-user-token"),
    token("linear", ("lin_api_",), rf"{_B}lin_api_[A-Za-z0-9]{{40}}", "gl:linear-api-key"),
    token("postman", ("pmak-",), rf"{_B}PMAK-[a-fA-F0-9]{{24}}-[a-fA-F0-9]{{34}}", "gl:postman-api-token"),
    token("age", ("age-secret-key-",), r"AGE-SECRET-KEY-1[0-9A-Z]{58}", "gl:age-secret-key"),
    token(
        "1password", ("ops_eyj",), rf"{_B}ops_eyJ[A-Za-z0-9+/]{{100,}}={{0,3}}", "gl:1password-service-account-token"
    ),
    token("artifactory", ("akcp",), rf"{_B}AKCp[A-Za-z0-9]{{60,}}", "gl:jfrog-api-key; ds:artifactory"),
    token("openshift", ("sha256~",), rf"{_B}sha256~[A-Za-z0-9_-]{{43}}", "gl:openshift-user-token"),
    token("prefect", ("pnu_",), rf"{_B}pnu_[A-Za-z0-9]{{36}}", "gl:prefect-api-token"),
    token("pulumi", ("pul-",), rf"{_B}pul-[a-f0-9]{{40}}", "gl:pulumi-api-token"),
    token("doppler", ("dp.pt.",), rf"{_B}dp\.pt\.[A-Za-z0-9]{{40,}}", "gl:doppler-api-token"),
    token("planetscale", ("pscale_",), rf"{_B}pscale_(?:pw|tkn|oauth)_[A-Za-z0-9_=.-]{{32,}}", "gl:planetscale-*"),
    token("rubygems", ("rubygems_",), rf"{_B}rubygems_[a-f0-9]{{48}}", "gl:rubygems-api-token"),
    token("heroku", ("hrku-",), rf"{_B}HRKU-AA[A-Za-z0-9_-]{{58}}", "gl:heroku-api-key-v2"),
    token(
        "sourcegraph",
        ("sgp_",),
        rf"{_B}sgp_(?:[a-fA-F0-9]{{16}}_|local_)?[a-fA-F0-9]{{40}}",
        "gl:sourcegraph-access-token",
    ),
    token(
        "azure-ad-client-secret",
        ("q~",),
        r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])",
        "gl:azure-ad-client-secret",
    ),
    # Azure shared access signature: the `sig` query parameter is the HMAC that grants the access.
    token(
        "azure-sas", ("sig=",), r"(?i)(?<=[?&;\s\"'])sig=(?P<secret>[A-Za-z0-9%+/=_-]{8,})", "Azure SAS (vendor docs)"
    ),
)

# Formats with no literal to look for: Twilio ids are `SK`/`AC` and 32 hex digits, and those two letters are
# everywhere. This one pattern runs over the whole text; its literal first characters keep that quick.
TWILIO = token(
    "twilio",
    (),
    r"(?<![A-Za-z0-9])(?:SK|AC)[0-9a-fA-F]{32}(?![A-Za-z0-9])",
    "gl:twilio-api-key; ds:twilio",
)
