"""Credential sources: environment variables, the Run:ai CLI v2 session on disk, and secrets that never print."""

from __future__ import annotations

import base64
import json
import pickle
from pathlib import Path

import pytest

from core.sources.credentials import (
    BearerToken,
    ClientCredentials,
    CliSession,
    CredentialsProblem,
    base_url_from_env,
    credentials_from_env,
    jwt_expiry,
    load_cli_session,
    secret_values,
)
from core.sources.errors import ApiError, body_excerpt, clean_text, safe_target

SECRET = "PLANTED-secret-77f3a9"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def make_jwt(claims: dict[str, object]) -> str:
    header = b64(json.dumps({"alg": "none"}).encode())
    return f"{header}.{b64(json.dumps(claims).encode())}.c2ln"


def write_session(directory: Path, token: str | None, *, config: object = None, raw_auth: str | None = None) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    cfg = config if config is not None else {
        "control_plane": {"url": "https://acme.run.ai/"},
        "cluster": {"uuid": "05664dde-1ea7-5931-81c6-fcd52b6608e7"},
    }
    (directory / "config.json").write_text(json.dumps(cfg))
    if raw_auth is not None:
        (directory / "authentication.json").write_text(raw_auth)
    elif token is not None:
        (directory / "authentication.json").write_text(json.dumps({"accessToken": b64(token.encode())}))


def test_secrets_never_show_in_repr_or_str() -> None:
    objects = [
        BearerToken(SECRET),
        ClientCredentials("bot", SECRET),
        CliSession(token=BearerToken(SECRET).token, base_url="https://x.run.ai"),
    ]
    for obj in objects:
        assert SECRET not in repr(obj) and SECRET not in str(obj) and SECRET not in f"{obj!r:>10}"
        assert SECRET in secret_values(obj)
    assert ClientCredentials("bot", SECRET).client_id == "bot"
    assert ClientCredentials("bot", SECRET).client_secret.get_secret_value() == SECRET
    # A round trip (e.g. to a worker process) keeps the value but not its visibility.
    copy = pickle.loads(pickle.dumps(BearerToken(SECRET)))
    assert copy.token.get_secret_value() == SECRET and SECRET not in repr(copy)


def test_env_precedence() -> None:
    both = {
        "RUNAI_BEARER_TOKEN": "tok-a",
        "RUNAI_API_TOKEN": "tok-b",
        "RUNAI_CLIENT_ID": "id",
        "RUNAI_CLIENT_SECRET": "sec",
    }
    creds = credentials_from_env(both)
    assert isinstance(creds, BearerToken) and creds.token.get_secret_value() == "tok-a"
    creds = credentials_from_env({k: v for k, v in both.items() if k != "RUNAI_BEARER_TOKEN"})
    assert isinstance(creds, BearerToken) and creds.token.get_secret_value() == "tok-b"
    creds = credentials_from_env({"RUNAI_CLIENT_ID": "id", "RUNAI_CLIENT_SECRET": "sec"})
    assert isinstance(creds, ClientCredentials) and creds.client_id == "id"
    creds = credentials_from_env({"RUNAI_API_TOKEN": "Bearer tok-c"})
    assert isinstance(creds, BearerToken) and creds.token.get_secret_value() == "tok-c"


def test_env_half_set_explains_itself() -> None:
    problems: list[CredentialsProblem] = []
    assert credentials_from_env({"RUNAI_CLIENT_ID": "id"}, problems=problems) is None
    assert [p.where for p in problems] == ["RUNAI_CLIENT_SECRET"]
    problems.clear()
    assert credentials_from_env({"RUNAI_CLIENT_SECRET": SECRET, "RUNAI_BEARER_TOKEN": "  "}, problems=problems) is None
    assert "RUNAI_CLIENT_ID" in str(problems[0]) and SECRET not in str(problems[0])
    problems.clear()
    assert credentials_from_env({}, problems=problems) is None and "none of" in problems[0].message


def test_base_url_from_env() -> None:
    assert base_url_from_env({"RUNAI_BASE_URL": "https://acme.run.ai/"}) == "https://acme.run.ai"
    problems: list[CredentialsProblem] = []
    assert base_url_from_env({"RUNAI_BASE_URL": "acme.run.ai"}, problems=problems) is None
    assert "https://" in problems[0].message
    assert base_url_from_env({}) is None


def test_cli_session_reads_the_v2_layout(tmp_path: Path) -> None:
    token = make_jwt({"sub": "alice", "exp": 1_900_000_000})
    write_session(tmp_path, token)
    session = load_cli_session(tmp_path, env={})
    assert session is not None
    assert session.token.get_secret_value() == token
    assert session.base_url == "https://acme.run.ai"
    assert session.cluster_uuid == "05664dde-1ea7-5931-81c6-fcd52b6608e7"
    assert session.expires_at == 1_900_000_000.0
    assert token not in repr(session)


def test_cli_session_location_from_env(tmp_path: Path) -> None:
    token = make_jwt({"sub": "bob"})
    directory = tmp_path / "custom"
    write_session(directory, token, config={})
    (directory / "config.json").rename(directory / "other.json")
    (directory / "other.json").write_text(json.dumps({"control_plane.url": "https://flat.run.ai"}))
    env = {"RUNAI_CLI_CONFIG_PATH": str(directory), "RUNAI_CLI_CONFIG_FILE": "other.json"}
    session = load_cli_session(env=env)
    assert session is not None and session.base_url == "https://flat.run.ai" and session.expires_at is None
    assert session.config_dir == directory


def test_cli_session_accepts_padded_base64_and_a_raw_jwt(tmp_path: Path) -> None:
    token = make_jwt({"sub": "c", "exp": 5})
    padded = base64.urlsafe_b64encode(token.encode()).decode()
    write_session(tmp_path / "a", None, raw_auth=json.dumps({"accessToken": padded}))
    write_session(tmp_path / "b", None, raw_auth=json.dumps({"accessToken": token}))
    for sub in ("a", "b"):
        session = load_cli_session(tmp_path / sub, env={})
        assert session is not None and session.token.get_secret_value() == token


@pytest.mark.parametrize(
    ("raw_auth", "expected"),
    [
        (None, "not found"),
        ("{not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"accessToken": 12}', "accessToken is missing"),
        ('{"other": "x"}', "accessToken is missing"),
        ('{"accessToken": "%%%% not base64 \\u0000"}', "neither base64"),
    ],
)
def test_cli_session_garbled_files_give_none_with_a_reason(
    tmp_path: Path, raw_auth: str | None, expected: str
) -> None:
    write_session(tmp_path, None, raw_auth=raw_auth)
    problems: list[CredentialsProblem] = []
    assert load_cli_session(tmp_path, env={}, problems=problems) is None
    assert any(expected in p.message and "authentication.json" in p.where for p in problems), problems


def test_cli_session_with_a_broken_config_still_gives_the_token(tmp_path: Path) -> None:
    token = make_jwt({"sub": "d"})
    write_session(tmp_path, token)
    (tmp_path / "config.json").write_bytes(b"\xff\xfe garbage")
    problems: list[CredentialsProblem] = []
    session = load_cli_session(tmp_path, env={}, problems=problems)
    assert session is not None and session.base_url is None and session.cluster_uuid is None
    assert any("config.json" in p.where for p in problems)


def test_cli_session_refuses_huge_files(tmp_path: Path) -> None:
    write_session(tmp_path, None, raw_auth='{"accessToken": "' + "A" * 1_200_000 + '"}')
    problems: list[CredentialsProblem] = []
    assert load_cli_session(tmp_path, env={}, problems=problems) is None
    assert any("larger than" in p.message for p in problems)


def test_missing_directory_is_just_none(tmp_path: Path) -> None:
    problems: list[CredentialsProblem] = []
    assert load_cli_session(tmp_path / "nope", env={}, problems=problems) is None
    assert problems and all("not found" in p.message for p in problems)


def test_jwt_expiry() -> None:
    assert jwt_expiry(make_jwt({"exp": 123})) == 123.0
    assert jwt_expiry(make_jwt({"exp": "123"})) is None
    assert jwt_expiry(make_jwt({"exp": True})) is None
    assert jwt_expiry("not.a.jwt!") is None
    assert jwt_expiry("opaque") is None


def test_error_text_is_sanitised_and_bounded() -> None:
    hostile = "bad \x1b]8;;http://evil\x07link\x1b]8;;\x07 \u202eevil\u202c " + "y" * 1000
    excerpt = body_excerpt(hostile.encode())
    assert "\x1b" not in excerpt and "\u202e" not in excerpt and "\\x1b" in excerpt and "\\u202e" in excerpt
    assert len(excerpt) <= 200
    assert clean_text("a\r\nb\tc") == "a b c"
    assert body_excerpt(b"") == "<empty body>"
    assert body_excerpt(b"\xff\xfe") != ""


def test_error_text_drops_secrets_and_secret_params() -> None:
    text = body_excerpt(f'{{"echo": "client_secret={SECRET}", "auth": "Bearer abc.def-ghijkl"}}', [SECRET])
    assert SECRET not in text and "abc.def-ghijkl" not in text
    assert safe_target("/api/v1/x", "limit=5&access_token=zz&api_key=kk") == "/api/v1/x?limit=5"
    err = ApiError("GET", "/api/v1/x", 500, body_excerpt(SECRET, [SECRET]))
    assert SECRET not in str(err) and SECRET not in repr(err)
    assert str(err).startswith("GET /api/v1/x: answered 500")
