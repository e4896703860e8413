"""The simulator's token endpoints, judged by Run:ai's SDK (runapy 1.224.0): every answer, errors included, is a
body of the SDK's model for it (`TokenResponse` for v1, `OAuth2TokenResponse` for v2, `OAuth2Error` for an
error of either), with no field the model lacks; and the SDK's own client gets its token from the simulator the
way it asks for one (`grantType: app_token`, keys spelt `AppId`/`AppSecret`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError
from runai.models.o_auth2_error import OAuth2Error
from runai.models.o_auth2_token_response import OAuth2TokenResponse
from runai.models.token_response import TokenResponse

from core.sim.control_plane import ControlPlane, SimRequest
from core.sim.demo import load_demo_bundle
from core.sim.loopback import LoopbackServer
from tests.contract.oracle import Failure, _extras

FORM = {"content-type": "application/x-www-form-urlencoded"}
JSON = {"content-type": "application/json"}


@dataclass(frozen=True)
class Asked:
    what: str
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


def _asks() -> Iterator[Asked]:
    def form(what: str, body: str) -> Asked:
        return Asked(what, "POST", "/api/v2/token", FORM, body.encode())

    def js(what: str, body: Any) -> Asked:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        return Asked(what, "POST", "/api/v1/token", JSON, raw)

    yield form("v2 client_credentials", "grant_type=client_credentials&client_id=id&client_secret=s3cret")
    yield form("v2 not a form", "%%%")
    yield form("v2 no grant", "client_id=id&client_secret=s3cret")
    yield form("v2 password grant", "grant_type=password&username=u&password=p")
    yield form("v2 empty client id", "grant_type=client_credentials&client_id=&client_secret=x")
    yield Asked("v2 GET", "GET", "/api/v2/token", {}, b"")
    yield js("v1 client_credentials", {"grantType": "client_credentials", "clientID": "id", "clientSecret": "s3cret"})
    yield js("v1 app_token (the SDK's client)", {"grantType": "app_token", "AppId": "id", "AppSecret": "s3cret"})
    yield js("v1 app_token (the model's keys)", {"grantType": "app_token", "appID": "id", "appSecret": "s3cret"})
    yield js("v1 not JSON", b"{not json")
    yield js("v1 not an object", [1, 2])
    yield js("v1 no grant", {"clientID": "id", "clientSecret": "s3cret"})
    yield js("v1 refresh_token grant", {"grantType": "refresh_token", "refreshToken": "r"})
    yield js("v1 no secret", {"grantType": "client_credentials", "clientID": "id"})
    yield js("v1 app_token without its secret", {"grantType": "app_token", "AppId": "id"})
    yield Asked("v1 not UTF-8", "POST", "/api/v1/token", JSON, b"\xff\xfe")
    yield Asked("v1 PUT", "PUT", "/api/v1/token", JSON, b"{}")


def _model(path: str, status: int) -> type[BaseModel]:
    if status >= 400:
        return OAuth2Error
    return OAuth2TokenResponse if path.endswith("/v2/token") else TokenResponse


def judge(asked: Asked, status: int, body: Any) -> list[Failure]:
    model = _model(asked.path, status)
    try:
        parsed = model.model_validate(body)
    except ValidationError as exc:
        return [
            Failure(asked.path, asked.what, ".".join(map(str, e["loc"])) or "(body)", e["msg"]) for e in exc.errors()
        ]
    extra = _extras(parsed, body, "")
    return [Failure(asked.path, asked.what, where, "not a field of the API's model") for where in extra]


def test_every_token_answer_is_a_body_the_sdk_accepts_errors_included() -> None:
    # The PUT among the asks is a write on purpose (its error body is judged too): a plane the audit does not count.
    plane = ControlPlane(load_demo_bundle(), audited=False)
    failures: list[Failure] = []
    statuses: dict[str, int] = {}
    for asked in _asks():
        answer = plane.handle(SimRequest(asked.method, asked.path, (), asked.headers, asked.body))
        statuses[asked.what] = answer.status
        failures += judge(asked, answer.status, json.loads(answer.body))
    assert not failures, "\n".join(f.line() for f in failures)
    assert {what for what, status in statuses.items() if status == 200} == {
        "v2 client_credentials",
        "v1 client_credentials",
        "v1 app_token (the SDK's client)",
        "v1 app_token (the model's keys)",
    }
    assert sum(status >= 400 for status in statuses.values()) == len(statuses) - 4


def test_the_judge_refuses_the_old_error_body() -> None:
    """What the simulator answered before: `{"code", "message"}` is no OAuth2 error."""
    asked = Asked("v1 no grant", "POST", "/api/v1/token", JSON, b"{}")
    assert judge(asked, 400, {"code": 400, "message": "missing grantType"})


@pytest.mark.parametrize("path", ["/api/v1/token"])
def test_the_sdks_own_client_gets_its_token_from_the_simulator(path: str) -> None:
    from runai.api_client import ApiClient
    from runai.configuration import Configuration

    plane = ControlPlane(load_demo_bundle())
    with LoopbackServer(plane) as server:
        config = Configuration(
            client_id="sdk-app", client_secret="s3cret", runai_base_url=server.url, auto_refresh_token=False
        )
        client = ApiClient(config)
    assert plane.issue_token() and client._token
    asked = [r for r in plane.requests if r.method == "POST"]
    assert [(r.path, r.status) for r in asked] == [(path, 200)]
