"""A corpus of credentials in the formats real providers issue, and look-alikes that must stay readable.

Every value is SYNTHETIC: random characters from a fixed seed, shaped like the real thing (prefix, alphabet,
length) so the redactor is tested on what it would meet. None of them was ever a real secret. Each entry is
the text a credential typically arrives in (a command, a config line, an error message) and the part of it
that must never be shown.
"""

from __future__ import annotations

import base64
import string
from collections.abc import Callable

from tests.redaction.corpus_gen import ALNUM as _ALNUM
from tests.redaction.corpus_gen import URLSAFE as _URLSAFE
from tests.redaction.corpus_gen import Credential
from tests.redaction.corpus_gen import Gen as _Gen
from tests.redaction.corpus_gen import jwt as _jwt
from tests.redaction.corpus_gen import url_secret as _url_secret
from tests.redaction.corpus_more import more

__all__ = ["CREDENTIALS", "FALSE_POSITIVES", "MORE_KINDS", "Credential"]


def _build() -> list[Credential]:
    out: list[Credential] = []

    def add(kind: str, make: Callable[[_Gen], tuple[str, str]]) -> None:
        text, secret = make(_Gen(kind))
        assert all(line in text for line in secret.splitlines()), kind  # a prefixed key: line by line
        out.append(Credential(kind, text, secret))

    def same(template: str, value_of: Callable[[_Gen], str]) -> Callable[[_Gen], tuple[str, str]]:
        def make(g: _Gen) -> tuple[str, str]:
            value = value_of(g)
            return template.format(value), value

        return make

    # -- source hosting ---------------------------------------------------------------------------------------
    add("github-pat", same("git clone https://github.com/acme/x.git using {}", lambda g: "ghp_" + g.alnum(36)))
    add("github-oauth", same("gh auth token: {}", lambda g: "gho_" + g.alnum(36)))
    add("github-app", same("installation token {} expires in 1h", lambda g: "ghs_" + g.alnum(36)))
    add("github-fine-grained", same("GH={}", lambda g: "github_pat_" + g.alnum(22) + "_" + g.alnum(59)))
    add("gitlab-pat", same("CI_TOKEN set from {}", lambda g: "glpat-" + g.alnum(20)))
    add("gitlab-deploy", same("deploy token {} for registry", lambda g: "gldt-" + g.alnum(20)))
    add("gitlab-runner", same("gitlab-runner register --token {}", lambda g: "glrt-" + g.alnum(20)))
    # -- chat and webhooks ------------------------------------------------------------------------------------
    add("slack-bot", same("slack client init {}", lambda g: f"xoxb-{g.digits(12)}-{g.digits(13)}-{g.alnum(24)}"))
    add(
        "slack-user",
        same("SLACK={}", lambda g: f"xoxp-{g.digits(11)}-{g.digits(12)}-{g.digits(13)}-{g.hex(32)}"),
    )
    add(
        "slack-app",
        same(
            "socket mode {}",
            lambda g: f"xapp-1-A{g.of(string.ascii_uppercase + string.digits, 10)}-{g.digits(13)}-{g.hex(64)}",
        ),
    )
    add("slack-webhook", _slack_webhook)
    add(
        "discord-webhook",
        lambda g: _url_secret(g, "https://discord.com/api/webhooks/", f"{g.digits(18)}/{g.of(_URLSAFE, 68)}"),
    )
    add(
        "teams-webhook",
        lambda g: _url_secret(
            g,
            "https://acme.webhook.office.com/webhookb2/",
            f"{g.hex(8)}-{g.hex(4)}-{g.hex(4)}-{g.hex(4)}-{g.hex(12)}@{g.hex(8)}/IncomingWebhook/{g.hex(32)}",
        ),
    )
    # -- payments, mail, package registries -------------------------------------------------------------------
    add("stripe-live", same("stripe.api_key = '{}'", lambda g: "sk_live_" + g.alnum(24)))
    add("stripe-restricted", same("using restricted key {}", lambda g: "rk_live_" + g.alnum(24)))
    add("stripe-test", same("STRIPE={} (test mode)", lambda g: "sk_test_" + g.alnum(24)))
    add("stripe-webhook", same("webhook signing secret {}", lambda g: "whsec_" + g.alnum(32)))
    add("sendgrid", same("mail via {}", lambda g: f"SG.{g.of(_URLSAFE, 22)}.{g.of(_URLSAFE, 43)}"))
    add("mailgun", same("mailgun client {}", lambda g: "key-" + g.hex(32)))
    add("npm", same("//registry.npmjs.org/ token {}", lambda g: "npm_" + g.alnum(36)))
    add("npmrc-legacy", same("//registry.npmjs.org/:_authToken={}", lambda g: _uuid(g)))
    add("pypi", same("twine upload -p {}", lambda g: "pypi-AgEIcHlwaS5vcmc" + g.of(_URLSAFE, 70)))
    add("rubygems", same("GEM_HOST_API_KEY rubygems key {}", lambda g: "rubygems_" + g.hex(48)))
    add("docker-hub", same("docker push with {}", lambda g: "dckr_pat_" + g.of(_URLSAFE, 27)))
    add("docker-config-auth", lambda g: _docker_auth(g))
    add("artifactory", same("jfrog rt c --apikey {}", lambda g: "AKCp" + g.alnum(69)))
    # -- ML and AI --------------------------------------------------------------------------------------------
    add("huggingface", same("huggingface-cli login --token {}", lambda g: "hf_" + g.alnum(34)))
    add("huggingface-bare", same("downloading with {} from the hub", lambda g: "hf_" + g.alnum(34)))
    add("huggingface-org", same("org token {}", lambda g: "api_org_" + g.alnum(34)))
    add("nvidia", same("NGC login {}", lambda g: "nvapi-" + g.of(_URLSAFE, 64)))
    add("openai-legacy", same("openai.api_key={}", lambda g: "sk-" + g.alnum(20) + "T3BlbkFJ" + g.alnum(20)))
    add(
        "openai-project",
        same("client = OpenAI({})", lambda g: "sk-proj-" + g.of(_URLSAFE, 74) + "T3BlbkFJ" + g.of(_URLSAFE, 74)),
    )
    add("anthropic", same("anthropic key {}", lambda g: "sk-ant-api03-" + g.of(_URLSAFE, 93) + "AA"))
    add("perplexity", same("pplx key {}", lambda g: "pplx-" + g.alnum(48)))
    add("wandb-login", same("wandb login {}", lambda g: g.hex(40)))
    add("wandb-env", same("export WANDB_API_KEY={}", lambda g: g.hex(40)))
    netrc_message = "wandb: Appending key for api.wandb.ai to your netrc file: {}"
    add("wandb-netrc-message", same(netrc_message, lambda g: g.hex(40)))
    add("databricks", same("databricks configure token {}", lambda g: "dapi" + g.hex(32)))
    # -- clouds -----------------------------------------------------------------------------------------------
    add("aws-access-key-id", same("s3 upload as {}", lambda g: "AKIA" + g.of(string.ascii_uppercase + "234567", 16)))
    add("aws-session-key-id", same("assumed role {}", lambda g: "ASIA" + g.of(string.ascii_uppercase + "234567", 16)))
    add("aws-secret-configure", same("aws configure set aws_secret_access_key {}", lambda g: g.alnum(38) + "/+"))
    add("aws-secret-csv", lambda g: _aws_csv(g))
    add("aws-secret-ini", same("aws_secret_access_key = {}", lambda g: g.alnum(39) + "/"))
    add(
        "aws-presigned",
        lambda g: _url_secret(
            g, "GET https://b.s3.amazonaws.com/ckpt.pt?X-Amz-Expires=3600&X-Amz-Signature=", g.hex(64)
        ),
    )
    add("gcp-api-key", same("maps key={}&q=x", lambda g: "AIza" + g.of(_URLSAFE, 35)))
    add("gcp-service-account", lambda g: _gcp_service_account(g))
    add("google-oauth-secret", same("oauth client secret {}", lambda g: "GOCSPX-" + g.of(_URLSAFE, 28)))
    add("google-oauth-token", same("gcloud access token {}", lambda g: "ya29." + g.of(_URLSAFE, 120)))
    add("azure-sas", lambda g: _azure_sas(g))
    add("azure-storage-key", lambda g: _azure_storage(g))
    add(
        "azure-ad-secret",
        same("AZURE_CLIENT_SECRET value {}", lambda g: g.alnum(3) + "8Q~" + g.of(_ALNUM + "_~.-", 34)),
    )
    add("digitalocean", same("doctl auth init -t {}", lambda g: "dop_v1_" + g.hex(64)))
    add("vault", same("VAULT_TOKEN {}", lambda g: "hvs." + g.of(_URLSAFE, 90)))
    add(
        "openshift", same("oc login --token={} --server=https://api.ocp:6443", lambda g: "sha256~" + g.of(_URLSAFE, 43))
    )
    # -- observability and SaaS -------------------------------------------------------------------------------
    add("datadog", same("datadog agent api key {}", lambda g: g.hex(32)))
    add("twilio-api-key", same("twilio sid {}", lambda g: "SK" + g.hex(32)))
    add("twilio-auth-token", same("twilio auth {}", lambda g: g.hex(32)))
    add("grafana-sa", same("grafana token {}", lambda g: "glsa_" + g.alnum(32) + "_" + g.hex(8)))
    add("sentry", same("sentry-cli --auth {}", lambda g: "sntryu_" + g.hex(64)))
    add("linear", same("linear key {}", lambda g: "lin_api_" + g.alnum(40)))
    add("postman", same("postman {}", lambda g: f"PMAK-{g.hex(24)}-{g.hex(34)}"))
    add("shopify", same("shop token {}", lambda g: "shpat_" + g.hex(32)))
    add("age", same("age key {}", lambda g: "AGE-SECRET-KEY-1" + g.of("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)))
    # -- tokens, headers, URLs, passwords ---------------------------------------------------------------------
    add("jwt", lambda g: _jwt(g))
    add("bearer-opaque", same("curl -H 'Authorization: Bearer {}' https://api", lambda g: g.of(_URLSAFE, 40)))
    add(
        "basic-auth-header",
        same("Authorization: Basic {}", lambda g: base64.b64encode(f"svc:{g.password()}".encode()).decode()),
    )
    add("url-userinfo", same("DATABASE_URL=postgres://trainer:{}@db.internal:5432/runs", lambda g: g.password()))
    add("curl-user", same("curl -u admin:{} https://registry.internal/v2/", lambda g: g.password()))
    add("mysql-p", same("mysql -h db -u root -p{} app", lambda g: g.password()))
    add("mysqldump-p", same("mysqldump -uadmin -p{} --all-databases", lambda g: g.password()))
    add("sshpass", same("sshpass -p {} ssh gpu@10.0.0.7", lambda g: g.password()))
    add("docker-login-p", same("docker login -u ci -p {} registry.internal", lambda g: g.password()))
    add("redis-cli", same("redis-cli -h cache -a {} ping", lambda g: g.password()))
    add("netrc-inline", same("machine api.wandb.ai login user password {}", lambda g: g.hex(40)))
    add("netrc-multiline", same("machine github.com\n  login octocat\n  password {}\n", lambda g: g.password()))
    add("password-flag", same("python train.py --db-password {} --epochs 3", lambda g: g.password()))
    add("password-midline", same("connecting with user=svc password={} host=db", lambda g: g.password()))
    add("token-midline", same("kubeconfig: users: - name: admin user: token: {}", lambda g: g.alnum(40)))
    add("secret-midline", same("loaded config (client_id: abc, secret: {})", lambda g: g.password(18)))
    add("client-key-data", same("user: client-key-data: {} done", lambda g: "LS0tLS1CRUdJTi" + g.b64(80)))
    add("client-cert-data", same("users: client-certificate-data: {} ok", lambda g: "LS0tLS1CRUdJTi" + g.b64(80)))
    add("api-key-near-name", same("using api key {} for requests", lambda g: g.alnum(32)))
    add("pem-rsa", lambda g: _pem(g, "RSA PRIVATE KEY", headless=False))
    add("pem-openssh", lambda g: _pem(g, "OPENSSH PRIVATE KEY", headless=False))
    add("pem-headless", lambda g: _pem(g, "PRIVATE KEY", headless=True))
    # The tail began inside a key that a launcher or logger wrote with a prefix on every line.
    add("pem-headless-rank-prefix", lambda g: _pem(g, "RSA PRIVATE KEY", headless=True, prefix="[rank0]: "))
    add("pem-headless-timestamps", lambda g: _pem(g, "PRIVATE KEY", headless=True, prefix="2026-11-30T11:58:02.417Z "))
    # -- an env var's name/value pair printed on one line (a pod spec in an error or a log) -------------------
    add("env-pair-json", same('spec env: [{{"name": "HF_TOKEN", "value": "{}"}}]', lambda g: g.password(18)))
    add("env-pair-repr", same("env=[{{'name': 'DB_PASSWORD', 'value': '{}', 'value_from': None}}]", _pw))
    add("env-pair-go", same("Env:[{{Name:WANDB_API_KEY Value:{} ValueFrom:nil}}]", lambda g: g.hex(40)))
    add("env-pair-flow-yaml", same("env: [{{name: S3_SECRET_ACCESS_KEY, value: {}}}]", lambda g: g.alnum(40)))
    block = "    env:\n    - name: HF_TOKEN\n      value: {}\n    - name: EPOCHS\n      value: '3'"
    add("env-pair-block-yaml", same(block, lambda g: g.password(18)))
    add("env-pair-block-yaml-quoted", same('  - name: "DB_PASSWORD"\n    value: "{}"\n', _pw))
    before = len(out)
    more(add, same)
    MORE_KINDS.extend(c.kind for c in out[before:])
    return out


def _pw(g: _Gen) -> str:
    return g.password(16)


def _uuid(g: _Gen) -> str:
    return f"{g.hex(8)}-{g.hex(4)}-4{g.hex(3)}-a{g.hex(3)}-{g.hex(12)}"


def _slack_webhook(g: _Gen) -> tuple[str, str]:
    upper = string.ascii_uppercase + string.digits
    secret = f"T{g.of(upper, 8)}/B{g.of(upper, 10)}/{g.alnum(24)}"
    return f"notify https://hooks.slack.com/services/{secret} failed: 404", secret


def _docker_auth(g: _Gen) -> tuple[str, str]:
    secret = base64.b64encode(f"robot$ci:{g.password(20)}".encode()).decode()
    return f'docker config: {{"auths": {{"nvcr.io": {{"auth": "{secret}"}}}}}}', secret


def _aws_csv(g: _Gen) -> tuple[str, str]:
    secret = g.alnum(40)
    return f"AKIA{g.of(string.ascii_uppercase + '234567', 16)},{secret}", secret


def _gcp_service_account(g: _Gen) -> tuple[str, str]:
    body = g.b64(64)
    text = (
        '{"type": "service_account", "project_id": "ml-prod", "private_key_id": "' + g.hex(40) + '", '
        '"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvgIBADANBgkqhkiG9w0BAQEFAASC\\n' + body + "\\n"
        '-----END PRIVATE KEY-----\\n", "client_email": "trainer@ml-prod.iam.gserviceaccount.com"}'
    )
    return text, body


def _azure_sas(g: _Gen) -> tuple[str, str]:
    sig = g.b64(42).replace("+", "%2B").replace("/", "%2F") + "%3D"
    text = (
        "download https://acct.blob.core.windows.net/data/shard-0001.tar?sv=2022-11-02&ss=b&srt=o&sp=r"
        f"&se=2026-12-01T00:00:00Z&sig={sig} failed: 403"
    )
    return text, sig


def _azure_storage(g: _Gen) -> tuple[str, str]:
    key = g.b64(86) + "=="
    text = f"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={key};EndpointSuffix=core.windows.net"
    return text, key


def _pem(g: _Gen, label: str, *, headless: bool, prefix: str = "") -> tuple[str, str]:
    lines = [g.b64(64) for _ in range(6)] + [g.b64(28) + "=="]
    body = "\n".join(lines)
    if headless:  # the log tail begins in the middle of the key
        tagged = "\n".join(prefix + line for line in lines)
        return f"{tagged}\n{prefix}-----END {label}-----\n{prefix}key loaded", body
    return f"loading key\n-----BEGIN {label}-----\n{body}\n-----END {label}-----\nok", body


# The kinds `_more` adds: webhooks on any host, wrapped tokens, Secrets printed whole, tokens as URL users.
MORE_KINDS: list[str] = []
CREDENTIALS: list[Credential] = _build()

# Text that looks a little like a credential and must come out exactly as it went in.
FALSE_POSITIVES: list[str] = [
    "KeyError: 'labels'",
    "Error response from daemon: manifest for "
    "sha256:8c6e2a0f3b1d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0 not found",
    "image nvcr.io/nvidia/pytorch@sha256:0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e",
    "workload 3f2b8c1e-9d4a-4e7b-8c6f-2a1d5e9b7c3f failed",
    "cluster 5b77e6d6-7b53-5206-9a65-c6331d0e09cc is connected",
    "checked out commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904 of main",
    "git rev-parse HEAD -> e83c5163316f89bfbde7d9ab23ca2e25604af290",
    "python train.py -p 8080 --port 8080",
    "server -p 8080 started",
    "max_tokens=512 max_new_tokens=256 num_tokens=2048",
    "Setting pad_token_id to eos_token_id:2 for open-end generation.",
    "token_type_ids shape (8, 512)",
    "tokenizer_config.json loaded from /models/llama/tokenizer.model",
    "use_auth_token=True",
    "Failed to pull image: failed to fetch anonymous token: unexpected status: 401 Unauthorized",
    "authorization failed: token expired",
    'password authentication failed for user "postgres"',
    "invalid password for user admin",
    'MountVolume.SetUp failed for volume "creds" : secret "db-creds" not found',
    "couldn't find key api-key in Secret runai-nlp/openai-creds",
    "error loading secret: not found",
    "0/8 nodes are available: 8 Insufficient nvidia.com/gpu.",
    '{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}',
    "containerd://4f3c2b1a0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b",
    "docker.io/library/python:3.11-slim",
    "loss=0.4213 lr=3e-4 grad_norm=1.27 step=1200/20000",
    "CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.15 GiB total capacity)",
    "NCCL WARN NET/IB : Got completion from peer 10.0.3.7<54321> with error 12",
    "sk-hynix-llm-pretrain-7b",
    "hf_hub_download failed for model meta-llama/Llama-3-8B",
    "Bearer authentication failed",
    "mysql -h db -u root -p app (password prompted)",
    "the wandb login step was skipped",
    "wandb: Appending key for api.wandb.ai to your netrc file: /root/.netrc",
    "[rank0]: -----END OF EPOCH 3----- loss 2.31 step 400",
    "email alice@example.com about job 42",
    "machine learning pipeline finished: login ok",
    "access denied for project nlp",
    "session 7 started",
    "private network 10.0.0.0/8",
    "x-request-id: 5f1e0c2a-7b7d-4f0e-9b1a-3c2d1e0f9a8b",
    "epoch 3 accuracy 0.913 AKIA is not enough",
    # Object names Kubernetes' own wording quotes: names, with digits and random suffixes, never credentials.
    'MountVolume.SetUp failed for volume "ngc" : secret "ngc-key-2" not found',
    "Error: couldn't find key HF_TOKEN in Secret runai-nlp/hf-token-v2",
    "Error: couldn't find key AWS_SECRET_ACCESS_KEY_PROD_2024 in Secret runai-nlp/aws-creds-2024",
    'secrets "ngc-registry-key-2024" not found',
    "couldn't find key config.yaml in ConfigMap runai-nlp/train-cfg-3",
    'persistentvolumeclaim "ds-imagenet-2024-v3" not found',
    'Error: configmap "train-cfg-0a9b8c7d6e5f4a3b2c1d" not found',
    'MountVolume.SetUp failed for volume "kube-api-access-x7k2p" : object "runai-nlp"/"kube-root-ca.crt" not '
    "registered",
    'serviceaccount "trainer-sa-2" not found',
    # Webhook pages and settings, a user name that is a name.
    "see https://docs.mattermost.com/developer/webhooks-incoming.html",
    "GET https://api.github.com/repos/acme/x/hooks/12345 returned 404",
    "https://example.com/webhooks/getting-started",
    "ssh://git@github.com/acme/x.git",
    "git clone https://alice@bitbucket.org/acme/x.git",
    "pip install git+https://gitlab-ci-token@gitlab.example.com/acme/pkg.git",
]
