"""Issue 8 item 5: a kubeconfig whose login fails (exec plugin, OIDC, GCP, an unknown provider) makes Tier 2
unavailable with the reason, and the diagnosis carries on with Tier 1; no login is ever refreshed, so no
credential travels to an identity provider and no client runs with TLS verification off.

Exec plugins here are small Python scripts run by the real subprocess machinery.
"""

from __future__ import annotations

import base64
import json
import sys
import textwrap
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from core.diagnosis.engine import run_to_report
from core.diagnosis.request import DiagnosisRequest
from core.sources.kube import KubeSource, open_kube_source
from core.sources.kube_config import KubeConnection, build_configuration
from core.sources.kube_types import KubeSettings, KubeUnavailable
from core.tenant import Tenant
from tests.integration.fault_rig import OOM_CASE, OOM_CLUSTER, OOM_ID, Recorder, Served, bundle_with, served

PLUGIN = textwrap.dedent(
    """
    import datetime, json, pathlib, sys, time
    mode, token = sys.argv[1], sys.argv[2]
    runs = pathlib.Path(sys.argv[0]).with_name("runs")
    runs.write_text(str(int(runs.read_text() if runs.exists() else "0") + 1))
    if mode == "fail":
        sys.stderr.write("error: SSO session expired, run aws sso login\\n")
        sys.exit(1)
    if mode == "hang":
        time.sleep(60)
    if mode == "garbage":
        print("not json at all")
        sys.exit(0)
    status = {"token": token}
    if mode == "expired":
        status["expirationTimestamp"] = "2001-01-01T00:00:00Z"
    if mode == "short":
        soon = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=3)
        status["expirationTimestamp"] = soon.strftime("%Y-%m-%dT%H:%M:%SZ")
    print(json.dumps({"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential", "status": status}))
    """
)


def _kubeconfig(path: Path, server: str, user: dict[str, Any], cluster: dict[str, Any] | None = None) -> Path:
    data = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "c", "cluster": {"server": server, **(cluster or {})}}],
        "users": [{"name": "u", "user": user}],
        "contexts": [{"name": "ctx", "context": {"cluster": "c", "user": "u"}}],
        "current-context": "ctx",
    }
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _exec_user(tmp_path: Path, mode: str, token: str, **extra: Any) -> dict[str, Any]:
    script = tmp_path / "plugin.py"
    script.write_text(PLUGIN, encoding="utf-8")
    return {
        "exec": {
            "apiVersion": "client.authentication.k8s.io/v1",
            "command": sys.executable,
            "args": [str(script), mode, token],
            **extra,
        }
    }


def _jwt(exp: float) -> str:
    def part(data: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return f"{part({'alg': 'RS256'})}.{part({'sub': 'alice', 'exp': exp})}.c2lnbmF0dXJl"


def _settings(kubeconfig: Path, **kw: Any) -> KubeSettings:
    return KubeSettings(kubeconfig=kubeconfig, in_cluster=False, **kw)


@pytest.fixture
def sim() -> Any:
    with served(bundle_with(OOM_CASE, [])) as s:
        yield s


@pytest.mark.parametrize(
    ("mode", "extra", "why"),
    [
        ("fail", {}, "failed (exit 1): error: SSO session expired, run aws sso login"),
        ("garbage", {}, "printed no usable credential: its output is not JSON"),
        ("expired", {}, "the credential it gave expired"),
        ("ok", {"interactiveMode": "Always"}, "needs an interactive terminal"),
    ],
)
def test_an_exec_login_that_cannot_give_a_credential_is_a_reason(
    sim: Served, tmp_path: Path, mode: str, extra: dict[str, Any], why: str
) -> None:
    kubeconfig = _kubeconfig(tmp_path / "kc", sim.url, _exec_user(tmp_path, mode, sim.plane.kube_token, **extra))
    result = build_configuration(_settings(kubeconfig), env={})
    assert isinstance(result, KubeUnavailable), result
    assert result.reason.startswith("Tier 2 unavailable: the kubeconfig's exec login")
    assert why in result.reason


def test_a_hanging_exec_login_is_given_up_at_its_time_limit(sim: Served, tmp_path: Path) -> None:
    kubeconfig = _kubeconfig(tmp_path / "kc", sim.url, _exec_user(tmp_path, "hang", "t"))
    started = time.monotonic()
    result = build_configuration(_settings(kubeconfig, login_timeout=1.0), env={})
    elapsed = time.monotonic() - started
    assert isinstance(result, KubeUnavailable)
    assert "did not finish within 1 s" in result.reason
    assert elapsed < 3.0, elapsed


def test_a_missing_exec_command_is_named(sim: Served, tmp_path: Path) -> None:
    user = {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": "/nonexistent/kubelogin"}}
    result = build_configuration(_settings(_kubeconfig(tmp_path / "kc", sim.url, user)), env={})
    assert isinstance(result, KubeUnavailable)
    assert "'/nonexistent/kubelogin' was not found" in result.reason


def test_a_working_exec_login_is_run_once_and_its_token_used(sim: Served, tmp_path: Path) -> None:
    kubeconfig = _kubeconfig(tmp_path / "kc", sim.url, _exec_user(tmp_path, "ok", sim.plane.kube_token))
    source = open_kube_source(_settings(kubeconfig), env={})
    assert isinstance(source, KubeSource), source
    try:
        for _ in range(3):
            pod = source.read_pod("runai-speech", "whisper-ft-0-0")
            assert type(pod).__name__ == "K8sPod", pod
        # A token without an expiry is never fetched again.
        assert (tmp_path / "runs").read_text() == "1"
    finally:
        source.close()


def test_a_token_about_to_expire_is_fetched_again_the_same_way(sim: Served, tmp_path: Path) -> None:
    kubeconfig = _kubeconfig(tmp_path / "kc", sim.url, _exec_user(tmp_path, "short", sim.plane.kube_token))
    source = open_kube_source(_settings(kubeconfig), env={})
    assert isinstance(source, KubeSource), source
    try:
        assert type(source.read_pod("runai-speech", "whisper-ft-0-0")).__name__ == "K8sPod"
        assert (tmp_path / "runs").read_text() == "1"
        time.sleep(2.2)  # past half of its three-second life
        assert type(source.read_pod("runai-speech", "whisper-ft-0-0")).__name__ == "K8sPod"
        assert (tmp_path / "runs").read_text() == "2"
    finally:
        source.close()


@pytest.fixture
def idp() -> Any:
    server = Recorder()
    try:
        yield server
    finally:
        server.close()


def _oidc_user(idp: Recorder, token: str) -> dict[str, Any]:
    return {
        "auth-provider": {
            "name": "oidc",
            "config": {
                "client-id": "triage",
                "client-secret": "oidc-client-secret-value",
                "id-token": token,
                "idp-issuer-url": idp.url,
                "refresh-token": "oidc-refresh-token-value",
            },
        }
    }


def test_an_expired_oidc_token_is_a_reason_and_never_refreshed(sim: Served, tmp_path: Path, idp: Recorder) -> None:
    kubeconfig = _kubeconfig(tmp_path / "kc", sim.url, _oidc_user(idp, _jwt(time.time() - 3600)))
    result = build_configuration(_settings(kubeconfig), env={})
    assert isinstance(result, KubeUnavailable)
    assert "OIDC id-token expired" in result.reason and "does not refresh" in result.reason
    assert idp.nothing_reached()  # the library would have fetched the IdP's discovery document with TLS off


def test_a_valid_oidc_token_is_used_as_it_is(sim: Served, tmp_path: Path, idp: Recorder) -> None:
    kubeconfig = _kubeconfig(tmp_path / "kc", sim.url, _oidc_user(idp, _jwt(time.time() + 3600)))
    result = build_configuration(_settings(kubeconfig), env={})
    assert isinstance(result, KubeConnection), result
    assert result.configuration.api_key["BearerToken"].startswith("Bearer ey")
    assert result.configuration.refresh_api_key_hook is None  # the library's refresh, with TLS off, is gone
    assert idp.nothing_reached()
    # The user's file is never written back.
    assert "oidc-refresh-token-value" in kubeconfig.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("user", "why"),
    [
        ({"auth-provider": {"name": "azure", "config": {}}}, "auth-provider 'azure'"),
        ({"auth-provider": {"name": "gcp", "config": {}}}, "gcp login holds no access token"),
        (
            {"auth-provider": {"name": "gcp", "config": {"access-token": "ya29.x", "expiry": "2001-01-01T00:00:00Z"}}},
            "gcp access token expired",
        ),
        ({"auth-provider": {"name": "oidc", "config": {"id-token": "not-a-jwt"}}}, "no usable id-token"),
    ],
)
def test_other_logins_that_cannot_be_used_are_reasons(
    sim: Served, tmp_path: Path, user: dict[str, Any], why: str
) -> None:
    result = build_configuration(_settings(_kubeconfig(tmp_path / "kc", sim.url, user)), env={})
    assert isinstance(result, KubeUnavailable), result
    assert why in result.reason


def test_tls_verification_stays_on_unless_the_kubeconfig_turns_it_off(tmp_path: Path) -> None:
    user = {"token": "t"}
    on = build_configuration(_settings(_kubeconfig(tmp_path / "a", "https://k8s.example:6443", user)), env={})
    off = build_configuration(
        _settings(_kubeconfig(tmp_path / "b", "https://k8s.example:6443", user, {"insecure-skip-tls-verify": True})),
        env={},
    )
    assert isinstance(on, KubeConnection) and isinstance(off, KubeConnection)
    assert on.configuration.verify_ssl is True
    assert off.configuration.verify_ssl is False  # only when the user's own kubeconfig says so


async def test_tier1_carries_on_when_the_exec_login_fails(sim: Served, tmp_path: Path) -> None:
    kubeconfig = _kubeconfig(tmp_path / "kc", sim.url, _exec_user(tmp_path, "fail", "t"))
    tenant = Tenant("login test", sim.runai(), kube_opener=lambda: open_kube_source(_settings(kubeconfig), env={}))
    try:
        request = DiagnosisRequest(
            cluster_id=OOM_CLUSTER, workload_id=OOM_ID, now=datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
        )
        report = await run_to_report(request, tenant.runai, tenant.kube, tier2_unavailable=tenant.kube_unavailable)
    finally:
        await tenant.aclose()
    assert report.category == "OOM_KILLED"
    reasons = [m.why for m in report.missing]
    assert any("exec login command" in why and "SSO session expired" in why for why in reasons), reasons
    assert not [r for r in sim.plane.requests if r.path.startswith("/api/v1/namespaces")]


async def test_a_tier2_opener_that_raises_is_a_reason_too(sim: Served) -> None:
    def broken() -> KubeSource:
        raise RuntimeError("the client library fell over")

    tenant = Tenant("opener test", sim.runai(), kube_opener=broken)
    try:
        assert tenant.kube is None
        assert tenant.kube_unavailable == (
            "Tier 2 unavailable: the Kubernetes client could not be set up (RuntimeError: the client library fell "
            "over)"
        )
    finally:
        await tenant.aclose()
