"""The redactor's view of Kubernetes' own wording, a Secret printed whole, tokens a log wrapped, webhook URLs and
tokens as URL users: what goes, and what must stay readable around it (several lines at once, which the corpus'
one-line look-alikes cannot show)."""

from __future__ import annotations

import pytest

from core.safety.redact import redact
from core.safety.untrusted import clean, clean_log

TOKEN = "Zx9AbCdEf0123456Qw8RtYu7IoP6"  # synthetic, key-like
JWT = (
    "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6bnM6YWJjZGVmIn0."
    "Q2FzZXNfYXJlX2Z1bl9idXRfc2lnbmF0dXJlc19hcmVfc2VjcmV0X3lvdV9rbm93"
)


@pytest.mark.parametrize(
    "text",
    [
        # The line after a redacted value starts a new thing: a header, a timestamp, a variable, a word.
        f"Authorization: Bearer {TOKEN}\nContent-Type: application/json",
        f"HF_TOKEN={TOKEN}\n2026-11-30T11:00:00Z INFO step 10",
        f"HF_TOKEN={TOKEN}\nWANDB_MODE=offline",
        f"Authorization: Bearer {TOKEN}\nTraceback (most recent call last):",
        f"Authorization: Bearer {TOKEN}\n  File train.py, line 3",
        # A short value is not a wrapped one.
        "password: Hunter2!x\nStep9abcd done",
    ],
)
def test_the_line_after_a_credential_is_kept_when_it_does_not_continue_it(text: str) -> None:
    first, second = text.split("\n", 1)
    out = redact(text)
    assert out.split("\n", 1)[1] == second, out
    assert out.split("\n", 1)[0] != first


@pytest.mark.parametrize("cut", [30, 60, 100, 150])
@pytest.mark.parametrize("lead", ["Authorization: Bearer ", "token ", "SA_JWT=", '{"msg": "'])
def test_a_jwt_wrapped_anywhere_after_its_header_is_hidden_whole(lead: str, cut: int) -> None:
    text = f"{lead}{JWT[:cut]}\n{JWT[cut:]} sent"
    out = redact(text)
    assert JWT[:cut][-12:] not in out and JWT[cut:][:12] not in out, out
    assert out.endswith(" sent")


@pytest.mark.parametrize("cut", [1, 2, 3, 5])
@pytest.mark.parametrize(
    "token",
    ["ghp_" + "Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc1De3Fg5H", "sk-proj-" + "Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78St90", JWT],
)
def test_a_token_wrapped_within_its_first_characters_is_hidden_whole(token: str, cut: int) -> None:
    # A break one or two characters in leaves a tail that no rule knows by its prefix (`hp_...`, `yJhb...`).
    out = redact(f"token {token[:cut]}\n{token[cut:]} end")
    assert token[cut:][:12] not in out and out.endswith(" end"), out


def test_a_token_wrapped_over_three_lines_is_hidden_on_all_of_them() -> None:
    token = "ghp_" + "Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc1De3Fg5H" * 2
    text = f"GH={token[:30]}\n{token[30:55]}\n{token[55:]}\nnext line"
    out = redact(text)
    assert out.startswith("GH=<redacted") and out.endswith("\n<redacted>\n<redacted>\nnext line"), out


def test_escaped_line_breaks_inside_a_json_string_count_as_breaks() -> None:
    text = '{"msg": "Authorization: Bearer ' + JWT[:70] + "\\n" + JWT[70:] + '", "level": "info"}'
    out = redact(text)
    assert JWT[70:][:12] not in out and out.endswith('", "level": "info"}'), out


@pytest.mark.parametrize(
    "text",
    [
        'MountVolume.SetUp failed for volume "ngc" : secret "ngc-key-2" not found',
        "Error: couldn't find key AWS_SECRET_ACCESS_KEY_PROD_2024 in Secret runai-nlp/aws-creds-2024",
        'secrets "a8kd93jfq2mzx7lp0w5e" is forbidden: User "system:serviceaccount:x:y" cannot get resource',
        'Error: configmap "train-cfg-0a9b8c7d6e5f4a3b2c1d" not found',
        'object "runai-nlp"/"regcred-2024-prod-east1" not registered',
    ],
)
def test_object_names_in_kubernetes_wording_stay_in_every_entry_point(text: str) -> None:
    assert redact(text) == text
    assert clean(text, max_len=None) == text
    assert clean_log(text) == [text]


def test_a_provider_shaped_value_is_hidden_even_in_kubernetes_wording() -> None:
    token = "dapi" + "0123456789abcdef" * 2
    assert redact(f'secret "{token}" not found') == 'secret "<redacted>" not found'


def test_an_app_line_that_only_looks_like_the_wording_is_judged_as_before() -> None:
    # No Kubernetes follower (`not found`, ...): a random value after `secret` is a value, as before.
    assert redact('loaded secret "a8kd93jfq2mzx7lp0w5e" from vault') == 'loaded secret "<redacted>" from vault'
    # A name Kubernetes cannot hold (upper case) is not set aside either.
    assert "<redacted" in redact(f'secret "{TOKEN}" not found')


def test_a_text_holding_a_private_use_character_is_still_redacted() -> None:
    text = f'\ue000 secret "ngc-key-2" not found; token {TOKEN}'
    out = redact(text)
    assert TOKEN not in out and out.startswith('\ue000 secret "ngc-key-2" not found')


SECRET_YAML = (
    "apiVersion: v1\ndata:\n  .dockerconfigjson: eyJhdXRocyI6e30=\n  extra: |\n    YWRtaW46\n    cGFzc3dvcmQ=\n"
    "  empty: ''\nkind: Secret\nmetadata:\n  name: ngc-key-2\ntype: kubernetes.io/dockerconfigjson\n"
)


def test_a_secret_printed_as_yaml_keeps_its_keys_and_names_and_hides_its_values() -> None:
    assert redact(SECRET_YAML) == (
        "apiVersion: v1\ndata:\n  .dockerconfigjson: <redacted: 16 chars>\n  extra: <redacted: 20 chars>\n"
        "  empty: ''\nkind: Secret\nmetadata:\n  name: ngc-key-2\ntype: kubernetes.io/dockerconfigjson\n"
    )


@pytest.mark.parametrize(
    "text",
    [
        "apiVersion: v1\ndata:\n  LOG_LEVEL: ZGVidWc=\n  BATCH: '32'\nkind: ConfigMap\nmetadata:\n  name: cfg\n",
        "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nspec:\n  data:\n  - remoteRef: x\n",
        '{"kind": "ConfigMap", "data": {"train.yaml": "ZXBvY2hzOiAz"}}',
    ],
)
def test_data_that_is_not_a_secrets_stays(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("POST https://chat.example.com/hooks/7xq3mbd1o7fqzcj4wsw8u5qh1e", "POST https://chat.example.com/hooks/<redacted>"),
        ("https://rc.example.org/hooks/AbC123dEf456gHi789jKl012/" + TOKEN + "?x=1",
         "https://rc.example.org/hooks/<redacted>?x=1"),
        ("git clone https://4b825dc642cb6eb9a060e54bf8d69288fbee4904@github.com/o/r.git",
         "git clone https://<redacted>@github.com/o/r.git"),
        ("https://4b825dc642cb6eb9a060e54bf8d69288fbee4904:x-oauth-basic@github.com/o/r.git",
         "https://<redacted>:<redacted>@github.com/o/r.git"),
    ],
)
def test_webhooks_and_url_users_keep_only_their_public_prefix(text: str, expected: str) -> None:
    assert redact(text) == expected
