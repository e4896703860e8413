"""redact(): credentials are hidden by name and by shape, and look-alike harmless text is kept."""

from __future__ import annotations

import pytest

from core.safety.redact import (
    DROPPED_LAST_APPLIED,
    describe_secret_ref,
    is_sensitive_name,
    redact,
    redact_annotation,
    redact_env_value,
)

# Realistic-looking but fake credentials, assembled so no scanner mistakes this file for a leak.
GITHUB = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"
GITHUB_FINE = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"
GITLAB = "glpat-" + "Xy7Zq2Wk9Lm4Np8Rt1Vb"
SLACK = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOp"
HUGGING_FACE = "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz01234567"
NVIDIA = "nvapi-" + "Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc1De3Fg5Hj7Kl"
OPENAI = "sk-" + "Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc1De3Fg5Hj7Kl9Np1Q"
OPENAI_PROJECT = "sk-proj-" + "Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc1De3Fg5Hj7Kl9Np1Qr3_Tu5-Wx7"
GCP = "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
AWS = "AKIA" + "IOSFODNN7EXAMPLE"
AWS_SESSION = "ASIA" + "Y34FZKBOKMUTVV7A"
JWT = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9." + "eyJzdWIiOiJydW5haSIsImV4cCI6MTcwMDAwMDAwMH0." + "c2lnbmF0dXJl-_x"
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n"
    "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA PRIVATE KEY-----"
)

TOKENS = [GITHUB, GITHUB_FINE, GITLAB, SLACK, HUGGING_FACE, NVIDIA, OPENAI, OPENAI_PROJECT, GCP, AWS,
          AWS_SESSION, JWT]


@pytest.mark.parametrize("token", TOKENS)
def test_token_shapes_are_redacted_anywhere(token: str) -> None:
    for text in (token, f"error: using {token} for pull", f"value='{token}'", f"x {token}\nnext line"):
        out = redact(text)
        assert token not in out
        assert token[-8:] not in out
        assert "<redacted>" in out
    assert redact(f"x {token}\nnext line").endswith("\nnext line")


@pytest.mark.parametrize(
    "harmless",
    [
        "skiing in the alps",
        "workload sk-hynix-llm-pretrain-7b failed",  # lower-case Kubernetes name, not an OpenAI key
        "task-runner-0123456789abcdefghij",
        "hf_hub_download failed for model gpt2",
        "ghost_writer and glpat are words",
        "xoxo-gossip",
        "AKIA is not enough",
        "eyJ alone is not a JWT",
        "nvapi- prefix only",
        "python train.py -p 8080 --port 8080 --max-tokens 512 --tokenizer gpt2",
        "MONKEY=banana KEYBOARD_LAYOUT=us MAX_TOKENS=4096 PATH=/usr/bin",
        "Bearer authentication failed",
        "authorization failed: permission denied",
        "toomanyrequests: You have reached your pull rate limit. You may increase the limit by authenticating",
        "https://registry-1.docker.io/v2/acme/speech-train/manifests/latest-gpu",
        "if token == expected:",
        '{"key": "nvidia.com/gpu", "operator": "Exists"}',
        "- key: nvidia.com/gpu",
        "KeyError: 'labels'",  # a Python exception line, the last word of a traceback
        "AuthError: the registry refused the credentials",
        "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
        "",
    ],
)
def test_look_alikes_are_kept(harmless: str) -> None:
    assert redact(harmless) == harmless


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("postgres://admin:s3cr3t@db:5432/app", "postgres://admin:<redacted>@db:5432/app"),
        ("redis://:hunter2@cache:6379/0", "redis://:<redacted>@cache:6379/0"),
        ("git clone https://oauth2:p@ss@git.example/x.git", "git clone https://oauth2:<redacted>@git.example/x.git"),
        ("curl -H 'Authorization: Bearer opaque.token-123' x", "curl -H 'Authorization: Bearer <redacted>' x"),
        ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic <redacted>"),
        ("authorization=Token abcdef123456", "authorization=Token <redacted>"),
        ('{"Authorization": "Bearer Zx81YtQ3"}', '{"Authorization": "Bearer <redacted>"}'),
        ("retrying with Bearer 9f8e7d6c5b4a3210 now", "retrying with Bearer <redacted> now"),
        ('{"auths": {"r.io": {"auth": "dXNlcjpwYXNz"}}}', '{"auths": {"r.io": {"auth": "<redacted: 12 chars>"}}}'),
        ("--password hunter2 --passwd=x --pass 'a b'", "--password <redacted> --passwd=<redacted> --pass <redacted>"),
        ("--token=abc --secret s --api-key k", "--token=<redacted> --secret <redacted> --api-key <redacted>"),
        ("--access-key AK --client-secret=cs", "--access-key <redacted> --client-secret=<redacted>"),
        ("--hf-token abc --use-auth-token --model m", "--hf-token <redacted> --use-auth-token --model m"),
        ("env API_KEY=abc123 DEBUG=1", "env API_KEY=<redacted: 6 chars> DEBUG=1"),
        ("DB_PASSWORD='p w' HOME=/root", "DB_PASSWORD=<redacted: 3 chars> HOME=/root"),
        ("export AUTH_HEADER=Bearer abcdefgh12345", "export AUTH_HEADER=<redacted: 20 chars>"),
        ("GITHUB_TOKEN=" + GITHUB, "GITHUB_TOKEN=<redacted: 40 chars>"),
        ("aws_secret_access_key = wJalrXUtnFEMI", "aws_secret_access_key = <redacted: 13 chars>"),
        ("helm --set auth.password=xyz", "helm --set auth.password=<redacted: 3 chars>"),
        ("GET /v1?api_key=abc&page=2", "GET /v1?api_key=<redacted: 3 chars>&page=2"),
        ("SESSION_ID=", "SESSION_ID=<empty>"),
        ("{'password': 'hunter2'}", "{'password': '<redacted: 7 chars>'}"),
        ('{\\"clientSecret\\":\\"abc\\"}', '{\\"clientSecret\\":\\"<redacted: 3 chars>\\"}'),
        ("wandb:\n  api_key: 0123abcd\n  project: x", "wandb:\n  api_key: <redacted: 8 chars>\n  project: x"),
        (
            "toomanyrequests: You have reached your pull rate limit as 'alice': dckr_jti_AbC123xyz=. More",
            "toomanyrequests: You have reached your pull rate limit as '<redacted>': <redacted>. More",
        ),
        ("toomanyrequests: rate limit for user alice.", "toomanyrequests: rate limit for user <redacted>."),
    ],
)
def test_redaction_by_name_and_pattern(text: str, expected: str) -> None:
    assert redact(text) == expected


def test_pem_private_key_block_is_removed_whole() -> None:
    out = redact(f"key follows\n{PEM}\nafter the key")
    assert out == "key follows\n<redacted: PEM private key>\nafter the key"
    for kind in ("EC ", "OPENSSH ", "ENCRYPTED ", ""):
        block = PEM.replace("RSA ", kind)
        assert "MIIE" not in redact(block)


def test_pem_inside_json_string_and_truncated_pem() -> None:
    escaped = PEM.replace("\n", "\\n")
    assert "MIIE" not in redact('{"tls.key": "' + escaped + '"}')
    assert redact("start " + PEM[:80]) == "start <redacted: PEM private key>"


def test_redact_is_idempotent() -> None:
    text = (
        f"API_KEY=abc --token t postgres://u:p@h {GITHUB} Authorization: Bearer {JWT} {PEM} "
        '{"password": "x"} toomanyrequests: limit as \'bob\''
    )
    once = redact(text)
    assert redact(once) == once


SENSITIVE = [
    "API_KEY", "ACCESS_KEY", "PRIVATE_KEY", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "HF_TOKEN", "DB_PASSWORD",
    "MYSQL_PASSWD", "PG_PWD", "REDIS_PASS", "CLIENT_SECRET", "GOOGLE_APPLICATION_CREDENTIALS", "AZURE_CREDENTIAL",
    "BASIC_AUTH", "SESSION_COOKIE", "SESSION", "SENTRY_DSN", "DB_CONNECTION_STRING", "connectionString", "apiKey",
    "clientSecret", "APIKey", "authToken", "x-api-key", "db.password", "S3Key", "TOKEN2", "secret", "pwd",
    "identitytoken", "WANDB_API_KEY", "NGC_API_KEY", "ssh-private-key", "KEY",
]
NOT_SENSITIVE = [
    "MONKEY", "KEYBOARD_LAYOUT", "TOKENIZER", "MAX_TOKENS", "PASSPORT_NUMBER", "BYPASS_CACHE", "COMPASS",
    "AUTHOR", "AUTHORITY", "OAUTH_CLIENT_ID", "PATH", "HOME", "CUDA_VISIBLE_DEVICES", "NCCL_DEBUG", "OLDPWD",
    "KEYCLOAK_URL", "DONKEY_KONG", "TURKEY", "monkeyPatch", "keyboardLayout", "PASSTHROUGH", "SESSIONS_DIR",
    "DSNAME", "RUNAI_JOB_NAME", "NVIDIA_DRIVER_CAPABILITIES", "HOSTNAME", "LANG", "PYTHONUNBUFFERED",
    "OMP_NUM_THREADS", "CONNECTION_TIMEOUT", "STRING_MODE", "KeyError", "AuthError", "TOKEN_FILE",
    "SSH_KEY_PATH", "AUTH_TYPE", "PASSWORD_FILE", "",
]


@pytest.mark.parametrize("name", SENSITIVE)
def test_sensitive_names(name: str) -> None:
    assert is_sensitive_name(name)


@pytest.mark.parametrize("name", NOT_SENSITIVE)
def test_harmless_names(name: str) -> None:
    assert not is_sensitive_name(name)


def test_redact_env_value() -> None:
    assert redact_env_value("HF_TOKEN", "hf_short") == "<redacted: 8 chars>"
    assert redact_env_value("DB_PASSWORD", "") == "<empty>"
    assert redact_env_value("DB_PASSWORD", None) is None
    assert redact_env_value("MONKEY", "banana") == "banana"
    # A harmless name does not protect a credential-shaped value.
    assert redact_env_value("EXTRA_ARGS", f"--token {GITHUB}") == "--token <redacted>"
    assert redact_env_value("DATABASE_URL", "postgres://u:pw@db/x") == "postgres://u:<redacted>@db/x"


def test_redact_annotation() -> None:
    inline = '{"spec":{"env":[{"name":"X","value":"' + GITHUB + '"}]}}'
    assert redact_annotation("kubectl.kubernetes.io/last-applied-configuration", inline) == DROPPED_LAST_APPLIED
    assert redact_annotation("example.com/api-token", "abc") == "<redacted: 3 chars>"
    assert redact_annotation("run.ai/description", f"uses {AWS}") == "uses <redacted>"
    assert redact_annotation("app", "speech") == "speech"
    assert redact_annotation("app", None) is None


def test_describe_secret_ref_shows_names_only() -> None:
    assert describe_secret_ref("db-creds", "password") == 'secret "db-creds", key "password"'
    assert describe_secret_ref("regcred") == 'secret "regcred"'
    assert describe_secret_ref(None) == 'secret "<unnamed>"'
    shown = describe_secret_ref("evil\x1b[2J\nname", "k\u202e")
    assert "\x1b" not in shown and "\n" not in shown and "\u202e" not in shown
    assert "\\x1b[2J\\nname" in shown
