"""The redactor's rules one by one (names, contexts, PEM, entropy), and the scanner that decides where they run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from core.safety.redact import is_sensitive_name, redact
from core.safety.redact.entropy import credential_like, looks_random, shannon
from core.safety.redact.pem import PEM_REDACTED, redact_pem
from core.safety.redact.scan import _EVERY_LITERAL, _KEYWORDS, _TRIGGER, RULES, _implied
from core.safety.splitters import restore, split_out
from tests.redaction.corpus import CREDENTIALS

ROOT = Path(__file__).resolve().parents[2]

# Synthetic values only.
B64_LINES = [
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj",
    "MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu",
    "NMoSfm76oqFvAp8Gy0iz5sxjZmSnXyCdPEovGhLa0VzMaQ8s+CLOyS56YyCFGeJZ",
    "qgtzJ6GR3eqoYSW9b9UMvkBpZODSctWSNGj3P7jRFDO5VoTwCQAWbFnOjDfH5Ulg",
    "p2PKSQnSJP3AJLQNFNe7br1XbrhV//eO+t51mIpGSDCUv3E0DDFcWDTH9cXDTTlR",
    "ZVEiR2BwpZOOkE/Z0/BVnhZYL71oZV34bKfWjQIt6V/isSMahdsAASACp4ZTGtwi",
    "VuNd9tybAgMBAAE=",
]
HEADLESS = "\n".join(B64_LINES) + "\n-----END PRIVATE KEY-----"


# -- PEM ----------------------------------------------------------------------------------------------------
def test_a_body_whose_begin_line_was_cut_off_is_hidden() -> None:
    assert redact_pem(HEADLESS + "\nnext") == PEM_REDACTED + "\nnext"
    # The log tail began in the middle of the first line.
    assert redact_pem(HEADLESS[20:] + "\nnext") == PEM_REDACTED + "\nnext"
    # A line of other text before the body stays; so does a word that is not body.
    out = redact_pem("INFO loading the deploy key\nTraceback\n" + HEADLESS)
    assert out == "INFO loading the deploy key\nTraceback\n" + PEM_REDACTED


def test_a_headless_body_inside_a_json_string_is_hidden() -> None:
    text = '{"private_key": "' + "\\n".join(B64_LINES[2:]) + '\\n-----END PRIVATE KEY-----\\n", "x": 1}'
    out = redact_pem(text)
    assert not any(line[:20] in out for line in B64_LINES)
    assert out.startswith('{"private_key": "') and out.endswith('\\n", "x": 1}')


def test_a_body_after_text_on_its_line_is_found_from_where_it_starts() -> None:
    out = redact_pem("stderr F " + HEADLESS)
    assert out == "stderr F " + PEM_REDACTED


def test_whole_blocks_and_open_blocks_still_work_alongside_headless_ones() -> None:
    block = "-----BEGIN EC PRIVATE KEY-----\n" + "\n".join(B64_LINES[:2]) + "\n-----END EC PRIVATE KEY-----"
    text = f"{HEADLESS}\nmiddle\n{block}\nafter\n-----BEGIN PRIVATE KEY-----\n{B64_LINES[3]}"
    assert redact_pem(text) == f"{PEM_REDACTED}\nmiddle\n{PEM_REDACTED}\nafter\n{PEM_REDACTED}"


def test_many_end_lines_without_begin_stay_linear_and_correct() -> None:
    text = ("x\n-----END RSA PRIVATE KEY-----\n" * 20_000) + "tail"
    out = redact_pem(text)
    assert out.count(PEM_REDACTED) == 20_000 and out.endswith("tail")


def test_certificates_are_not_private_keys() -> None:
    cert = "-----BEGIN CERTIFICATE-----\n" + "\n".join(B64_LINES[:2]) + "\n-----END CERTIFICATE-----"
    assert redact_pem(cert) == cert


# -- names ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # mid-line `name: value`, with a rescan after a kept pair
        ("user: token: Zx9AbCdEf0123456789", "user: token: <redacted: 19 chars>"),
        ("ctx user: client-key-data: LS0tLS1CRUdJTiBSU0Eg", "ctx user: client-key-data: <redacted: 20 chars>"),
        ("failed to get token: expired", "failed to get token: expired"),
        ("error: token: 512", "error: token: 512"),
        ("login auth: Failed", "login auth: Failed"),
        ("loaded (id: a, secret: S3cr3t!x)", "loaded (id: a, secret: <redacted: 8 chars>)"),
        ("x password: hunter2", "x password: <redacted: 7 chars>"),
        ("Invalid API key: 0123456789abcdef0123456789abcdef01234567", "Invalid API key: <redacted: 40 chars>"),
        ("taint key: nvidia.com/gpu", "taint key: nvidia.com/gpu"),
        ("clone https://token:Zx9AbCdEf0123@git.example/x", "clone https://token:<redacted>@git.example/x"),
        # near a name, separated by blanks only: entropy decides
        ("using api key Ab3De5Gh7Jk9Mn1Pq3St5Vw7", "using api key <redacted>"),
        ("token => 'Zx9Ab3De5Gh7Jk9Mn1Pq3'", "token => '<redacted>'"),
        ("the token is expired now", "the token is expired now"),
        ("secret db-credentials-for-the-training-run", "secret db-credentials-for-the-training-run"),
        # loose names: only a key-like value goes
        ("?X-Amz-Signature=" + "a1b2c3d4e5f6" * 5 + "abcd&x=1", "?X-Amz-Signature=<redacted: 64 chars>&x=1"),
        ("access=public signature=none", "access=public signature=none"),
        # booleans under a sensitive name are settings, not credentials
        ("use_auth_token=True", "use_auth_token=True"),
        ("PGPASSWORD=S3cretPg", "PGPASSWORD=<redacted: 8 chars>"),
        ("eos_token_id=2 pad_token_id=0", "eos_token_id=2 pad_token_id=0"),
    ],
)
def test_name_rules(text: str, expected: str) -> None:
    assert redact(text) == expected


@pytest.mark.parametrize(
    ("name", "sensitive"),
    [
        ("PGPASSWORD", True), ("MYSQLPASSWD", True), ("GHTOKEN", True), ("client-certificate-data", True),
        ("client-key-data", True), ("pad_token_id", False), ("token_type_ids", False), ("BYPASS", False),
        ("MONKEY", False), ("certificate-authority-data", False), ("discovery_token_ttl", False),
    ],
)
def test_run_together_and_describing_names(name: str, sensitive: bool) -> None:
    assert is_sensitive_name(name) is sensitive


# -- contexts -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("mysql -h db -u root -pS3cr3t!x app", "mysql -h db -u root -p<redacted> app"),
        ("mysql -uroot -p'S3cret pw' db", "mysql -uroot -p<redacted> db"),
        ("mysql -h db -p 8080", "mysql -h db -p 8080"),
        ("python serve.py -pS3cr3t", "python serve.py -pS3cr3t"),  # not a MySQL client: -p means nothing here
        ("sshpass -p 'a b c' ssh gpu@host", "sshpass -p <redacted> ssh gpu@host"),
        ("docker login -u ci -p Zx9AbCd0 nvcr.io", "docker login -u ci -p <redacted> nvcr.io"),
        ("redis-cli -h cache -a Zx9AbCd0 ping", "redis-cli -h cache -a <redacted> ping"),
        ("curl -u admin:Zx9AbCd0 https://x", "curl -u admin:<redacted> https://x"),
        ("machine h.example login bob password anything", "machine h.example login bob password <redacted>"),
        ("  password Zx9AbCd0", "  password <redacted>"),
        ("login bob password Zx9AbCd0", "login bob password <redacted>"),
        ("login attempt, password incorrect", "login attempt, password incorrect"),
        ("  password required", "  password required"),
        ("wandb login --relogin 0123456789abcdef0123456789abcdef01234567", "wandb login --relogin <redacted>"),
        ("run wandb login to sign in", "run wandb login to sign in"),
        ("aws configure set x wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws configure set x <redacted>"),
        ("sha 4b825dc642cb6eb9a060e54bf8d69288fbee4904 aws", "sha 4b825dc642cb6eb9a060e54bf8d69288fbee4904 aws"),
        ("?sv=2022-11-02&sig=AbCdEf0123%2B456%3D&se=x", "?sv=2022-11-02&sig=<redacted>&se=x"),
        ("https://hooks.slack.com/services/T0ABC/B0DEF/AbCdEf0123456789", "https://hooks.slack.com/services/<redacted>"),
    ],
)
def test_context_rules(text: str, expected: str) -> None:
    assert redact(text) == expected


# -- entropy --------------------------------------------------------------------------------------------------
def test_shannon_entropy() -> None:
    assert shannon("") == 0.0
    assert shannon("aaaa") == 0.0
    assert shannon("abcd") == pytest.approx(2.0)
    assert shannon("0123456789abcdef") == pytest.approx(4.0)


@pytest.mark.parametrize(
    ("value", "random"),
    [
        ("Ab3De5Gh7Jk9Mn1Pq3St", True),
        ("0123456789abcdef0123456789abcdef01234567", True),  # a 40-hex API key (next to a credential name)
        ("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", True),
        ("550e8400-e29b-41d4-a716-446655440000", False),  # UUID
        ("sha256:" + "ab12" * 16, False),  # digest
        ("my-secret-bucket-name", False),
        ("tokenizer_config.json", False),
        ("/var/run/secrets/kubernetes.io/serviceaccount", False),
        ("https://example.com/AbC123dEf456", False),
        ("11111111222222223333333344444444", False),  # digits only: penalised (and low entropy)
        ("Ab3De5", False),  # too short
        ("Ab3De5Gh7Jk9 Mn1Pq3St", False),  # blank: prose
    ],
)
def test_looks_random(value: str, random: bool) -> None:
    assert looks_random(value) is random


@pytest.mark.parametrize(
    ("value", "credential"),
    [("hunter2", True), ("Summer2024!", True), ("expired", False), ("expired.", False), ("Failed", False),
     ("db-creds", False), ("512", False), ("12345678", True), ("NotFound", True), ("true", False)],
)
def test_credential_like(value: str, credential: bool) -> None:
    assert credential_like(value) is credential


# -- the scanner ----------------------------------------------------------------------------------------------
def test_every_literal_is_found_even_inside_a_longer_one() -> None:
    for keyword in _KEYWORDS:
        assert _TRIGGER.search(f"xx {keyword} yy") is not None, keyword
        # Overlapping literals: each one is still seen when embedded in any other.
        for other in ("password", "sshpass", "authorization", "datadog"):
            text = other + keyword
            present = set().union(*(_implied(found) for found in _EVERY_LITERAL.findall(text)))
            assert keyword in present, (keyword, text)


def test_each_rule_meets_one_of_its_literals_on_the_lines_it_matches() -> None:
    """A rule whose literals were missing where it matches would be skipped by the scanner: never allowed."""
    checked = 0
    for cred in CREDENTIALS:
        for rule in RULES:
            for match in rule.pattern.finditer(cred.text):
                if rule.replace(match) == match[0]:
                    continue  # matched the pattern but kept: no literal needed
                text = cred.text
                start = text.rfind("\n", 0, match.start()) + 1
                end = text.find("\n", match.end())
                lines = text[start : len(text) if end == -1 else end].lower()
                assert any(k in lines for k in rule.keywords), (rule.name, cred.kind)
                checked += 1
    assert checked > len(CREDENTIALS)


def test_a_long_text_gives_the_same_result_as_its_lines_one_by_one() -> None:
    """Blocks around hits are only a speed-up: the outcome equals redacting each line on its own."""
    singles = [c.text for c in CREDENTIALS if "\n" not in c.text]
    filler = [f"step={i} loss=0.{i:04d} tokenizer ok" for i in range(400)]
    lines = [x for pair in zip(filler, singles * 5, strict=False) for x in pair] + filler
    text = "\n".join(lines)
    assert redact(text) == "\n".join(redact(line) for line in lines)


def test_dotted_i_does_not_misalign_the_scan() -> None:
    # "İ" lowers to two characters; the hit positions must still fall on the token.
    text = "İİİİ " * 50 + "token ghp_" + "Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc1De3Fg5H"
    assert redact(text) == "İİİİ " * 50 + "token <redacted>"


# -- splitters ------------------------------------------------------------------------------------------------
def test_split_out_and_restore_round_trip() -> None:
    text = "a\x1b[31mb\u200bc \x07end\x9b2J"
    joined, runs = split_out(text)
    assert joined == "abc end"
    assert restore(joined, joined, runs) == text


def test_restore_keeps_escapes_outside_secrets_and_drops_those_inside() -> None:
    token = "ghp_" + "Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc1De3Fg5H"
    text = f"\x1b[2J{token[:10]}\x1b[31m{token[10:]}\x1b[0m and API_KEY = ab\u200bcd \x07"
    joined, runs = split_out(text)
    out = restore(joined, redact(joined), runs)
    assert out == "\x1b[2J<redacted>\x1b[0m and API_KEY = <redacted: 4 chars> \x07"
    assert re.sub(r"\x1b\[[0-9;]*[A-Za-z]|[\x07\u200b]", "", out) == redact(joined)


def test_restore_realigns_after_a_reworded_separator() -> None:
    text = "Authorization: Bearer  Zx9AbCdEf0123456 \x1b[1mdone\x1b[0m"
    joined, runs = split_out(text)
    assert redact(joined) == "Authorization: Bearer <redacted> done"
    assert restore(joined, redact(joined), runs) == "Authorization: Bearer <redacted> \x1b[1mdone\x1b[0m"


def test_a_rule_is_compiled_only_once_its_literal_is_met() -> None:
    # Compiling every provider and context rule at import cost each start-up 8-10 ms; a text compiles only the
    # rules whose literals it contains, and the result is the same as ever.
    code = (
        "from core.safety.redact import redact; from core.safety.redact.scan import RULES; "
        "from core.safety.redact.base import LazyPattern; "
        "lazy = [r for r in RULES if isinstance(r.pattern, LazyPattern)]; "
        "before = sum(r.pattern.is_compiled for r in lazy); "
        "out = redact('GITHUB_PAT ghp_' + 'a1B2' * 9); "
        "print(len(lazy) > 40, before, sorted(r.name for r in lazy if r.pattern.is_compiled), out)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.split(" ", 2)[:2] == ["True", "0"]
    compiled = out.stdout.split("] ")[0]
    assert "github" in compiled and "slack" not in compiled
    assert out.stdout.strip().endswith("<redacted>")
