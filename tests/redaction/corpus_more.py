"""The redaction corpus' later forms: incoming webhooks on any host, tokens a log wrapped over two lines, a
Kubernetes Secret printed whole, a token as a URL's user name (each with its neighbours). Every value SYNTHETIC."""

from __future__ import annotations

import base64
import string
from collections.abc import Callable

from tests.redaction.corpus_gen import LOWER_ALNUM, URLSAFE, Gen, jwt, url_secret

Add = Callable[[str, Callable[[Gen], tuple[str, str]]], None]
Same = Callable[[str, Callable[[Gen], str]], Callable[[Gen], tuple[str, str]]]


def more(add: Add, same: Same) -> None:
    """Incoming webhooks on any host, tokens a log wrapped over two lines, a Secret printed whole, a token as a
    URL's user name."""
    # -- incoming webhooks: the path after the hook's segment is the secret, whatever the host -------------
    add("mattermost-webhook", lambda g: url_secret(g, "https://chat.example.com/hooks/", g.of(LOWER_ALNUM, 26)))
    add(
        "rocketchat-webhook",
        lambda g: url_secret(g, "https://rocket.example.org/hooks/", f"{g.alnum(24)}/{g.alnum(48)}"),
    )
    add(
        "zapier-webhook",
        lambda g: url_secret(
            g, "https://hooks.zapier.com/hooks/catch/", f"{g.digits(7)}/b{g.digits(3)}{g.of(string.ascii_lowercase, 3)}"
        ),
    )
    add("webex-webhook", lambda g: url_secret(g, "https://webexapis.com/v1/webhooks/incoming/", g.of(URLSAFE, 76)))
    add(
        "discordapp-webhook",
        lambda g: url_secret(g, "https://discordapp.com/api/webhooks/", f"{g.digits(18)}/{g.of(URLSAFE, 68)}"),
    )
    add(
        "slack-workflow-webhook",
        lambda g: url_secret(g, "https://hooks.slack.com/triggers/", f"T{g.digits(9)}/{g.digits(13)}/{g.hex(32)}"),
    )
    add("google-chat-webhook", _google_chat)
    add("teams-workflow-webhook", _teams_workflow)
    # -- a token a log wrapped over two lines (cut where the width ran out) ----------------------------------
    add("jwt-bearer-wrapped", lambda g: _wrapped("curl -H 'Authorization: Bearer {}' https://api", jwt(g)[1], 0.45))
    add("jwt-wrapped-in-signature", lambda g: _wrapped("service account token {} mounted", jwt(g)[1], 0.8))
    add("bearer-opaque-wrapped", lambda g: _wrapped("Authorization: Bearer {}", g.of(URLSAFE, 48), 0.5))
    add(
        "basic-auth-wrapped",
        lambda g: _wrapped("Authorization: Basic {}", base64.b64encode(g.alnum(40).encode()).decode(), 0.5),
    )
    add(
        "github-pat-wrapped",
        lambda g: _wrapped("git clone https://github.com/acme/x.git using {}", "ghp_" + g.alnum(36), 0.2),
    )
    add("huggingface-wrapped", lambda g: _wrapped("huggingface-cli login --token {}", "hf_" + g.alnum(34), 0.3))
    add(
        "openai-wrapped",
        lambda g: _wrapped("client = OpenAI({})", "sk-proj-" + g.of(URLSAFE, 74) + "T3BlbkFJ" + g.of(URLSAFE, 74), 0.6),
    )
    add(
        "slack-bot-wrapped",
        lambda g: _wrapped("slack client init {}", f"xoxb-{g.digits(12)}-{g.digits(13)}-{g.alnum(24)}", 0.5),
    )
    add("aws-secret-wrapped", lambda g: _wrapped("aws_secret_access_key = {}", g.alnum(39) + "/", 0.55))
    add("env-key-wrapped", lambda g: _wrapped("export WANDB_API_KEY={}", g.hex(40), 0.5))
    add("api-key-near-name-wrapped", lambda g: _wrapped("using api key {} for requests", g.alnum(40), 0.5))
    # -- a Kubernetes Secret printed whole (kubectl get secret -o yaml/json, a Go program's %v) ---------------
    add(
        "secret-dockerconfigjson-yaml",
        lambda g: _secret_yaml(g, ".dockerconfigjson", "kubernetes.io/dockerconfigjson", _docker_config(g)),
    )
    add("secret-dockercfg-block", _dockercfg_block)
    add(
        "secret-data-yaml",
        lambda g: _secret_yaml(g, "license.key", "Opaque", base64.b64encode(g.alnum(30).encode()).decode()),
    )
    add("secret-tls-key-yaml", lambda g: _secret_yaml(g, "tls.key", "kubernetes.io/tls", g.b64(120) + "=="))
    add("secret-data-json", _secret_json)
    add("secret-stringdata-yaml", lambda g: _secret_yaml(g, "license", "Opaque", g.alnum(30), string_data=True))
    add("secret-go-map", lambda g: _secret_go(g))
    add(
        "dockerconfigjson-one-line",
        same("pull secret data .dockerconfigjson: {} (3 keys)", lambda g: _docker_config(g)),
    )
    # -- a token as a URL's user name, no password ------------------------------------------------------------
    add("url-user-token", same("git clone https://{}@github.com/acme/private.git", lambda g: g.hex(40)))
    add("url-user-token-pip", same("pip install git+https://{}@github.com/acme/pkg.git@main", lambda g: g.alnum(40)))
    add("url-user-token-x-oauth", same("remote: https://{}:x-oauth-basic@github.com/acme/x.git", lambda g: g.hex(40)))


def _wrapped(template: str, secret: str, at: float) -> tuple[str, str]:
    """The line a terminal wrapped: a line break inside `secret`, `at` of the way through it."""
    cut = max(1, min(len(secret) - 1, int(len(secret) * at)))
    broken = secret[:cut] + "\n" + secret[cut:]
    return template.format(broken), broken


def _docker_config(g: Gen) -> str:
    auth = base64.b64encode(f"$oauthtoken:nvapi-{g.of(URLSAFE, 64)}".encode()).decode()
    return base64.b64encode(f'{{"auths":{{"nvcr.io":{{"auth":"{auth}"}}}}}}'.encode()).decode()


def _secret_yaml(g: Gen, key: str, kind: str, value: str, *, string_data: bool = False) -> tuple[str, str]:
    section = "stringData" if string_data else "data"
    text = (
        f"apiVersion: v1\n{section}:\n  {key}: {value}\n  username: YWRtaW4=\nkind: Secret\nmetadata:\n"
        f"  name: ngc-key-{g.digits(1)}\n  namespace: runai-nlp\ntype: {kind}\n"
    )
    return text, value


def _dockercfg_block(g: Gen) -> tuple[str, str]:
    body = _docker_config(g)
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    block = "\n".join(f"    {line}" for line in lines)
    text = f"apiVersion: v1\ndata:\n  .dockercfg: |\n{block}\nkind: Secret\ntype: kubernetes.io/dockercfg\n"
    return text, "\n".join(lines)


def _secret_json(g: Gen) -> tuple[str, str]:
    value = base64.b64encode(f"postgres://trainer:{g.password()}@db:5432/runs".encode()).decode()
    text = (
        '{"apiVersion":"v1","data":{"db-url":"' + value + '","port":"NTQzMg=="},"kind":"Secret",'
        '"metadata":{"name":"db-conn","namespace":"runai-nlp"},"type":"Opaque"}'
    )
    return text, value


def _secret_go(g: Gen) -> tuple[str, str]:
    value = base64.b64encode(g.alnum(30).encode()).decode()
    return f"synced &Secret{{ObjectMeta:{{Name:registry}} Data:map[license:{value} user:YWRtaW4=] Type:Opaque}}", value


def _google_chat(g: Gen) -> tuple[str, str]:
    token = g.of(URLSAFE, 43) + "%3D"
    text = (
        f"POST https://chat.googleapis.com/v1/spaces/AAAA{g.alnum(7)}/messages?key=AIzaSy{g.of(URLSAFE, 33)}"
        f"&token={token} answered 400"
    )
    return text, token


def _teams_workflow(g: Gen) -> tuple[str, str]:
    sig = g.of(URLSAFE, 43)
    text = (
        f"POST https://prod-12.westeurope.logic.azure.com:443/workflows/{g.hex(32)}/triggers/manual/paths/invoke"
        f"?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig={sig} failed"
    )
    return text, sig
