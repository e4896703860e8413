"""Connection resolution for Tier 2, from temp files and a fake environment only (never the developer's)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from kubernetes.client import Configuration
from urllib3.util.retry import Retry

from core.sources.kube_config import (
    KubeConnection,
    KubeSettings,
    KubeUnavailable,
    build_configuration,
)
from tui.commands.start import flag


def _kubeconfig(contexts: dict[str, str], current: str | None = None, token: str = "t0k3n") -> dict[str, Any]:
    """A kubeconfig with one cluster per context; ``contexts`` maps context name to server URL."""
    data: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": f"c-{n}", "cluster": {"server": url}} for n, url in contexts.items()],
        "users": [{"name": "u", "user": {"token": token}}],
        "contexts": [{"name": n, "context": {"cluster": f"c-{n}", "user": "u"}} for n in contexts],
    }
    if current is not None:
        data["current-context"] = current
    return data


def _write(path: Path, data: dict[str, Any] | str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def home(tmp_path: Path) -> Path:
    target = tmp_path / "home"
    target.mkdir()
    return target


def _connected(result: KubeConnection | KubeUnavailable) -> KubeConnection:
    assert isinstance(result, KubeConnection), result
    return result


def _unavailable(result: KubeConnection | KubeUnavailable) -> str:
    assert isinstance(result, KubeUnavailable), result
    assert result.reason.startswith("Tier 2 unavailable: ")
    assert "\n" not in result.reason
    return result.reason


# A reason names an option as the settings say the user named it (the command line: its flag), else plainly.
def test_no_kube_disables_tier2(home: Path) -> None:
    reason = _unavailable(build_configuration(KubeSettings(enabled=False, named=flag), env={}, home=home))
    assert reason == "Tier 2 unavailable: disabled with --no-kube"
    plainly = _unavailable(build_configuration(KubeSettings(enabled=False), env={}, home=home))
    assert plainly == "Tier 2 unavailable: disabled with the option not to read Kubernetes"


def test_home_kubeconfig_is_used_when_nothing_else_is_set(home: Path) -> None:
    _write(home / ".kube" / "config", _kubeconfig({"a": "https://a.example:6443"}, current="a"))
    conn = _connected(build_configuration(KubeSettings(), env={}, home=home))
    assert conn.configuration.host == "https://a.example:6443"
    assert conn.context == "a"
    assert str(home / ".kube" / "config") in conn.origin


def test_home_comes_from_the_env_when_not_passed(tmp_path: Path) -> None:
    _write(tmp_path / ".kube" / "config", _kubeconfig({"a": "https://from-env-home:6443"}, current="a"))
    conn = _connected(build_configuration(KubeSettings(), env={"HOME": str(tmp_path)}))
    assert conn.configuration.host == "https://from-env-home:6443"


def test_kubeconfig_env_takes_the_first_existing_file_of_the_list(tmp_path: Path, home: Path) -> None:
    _write(home / ".kube" / "config", _kubeconfig({"home": "https://home:6443"}, current="home"))
    second = _write(tmp_path / "second", _kubeconfig({"b": "https://b.example:6443"}, current="b"))
    third = _write(tmp_path / "third", _kubeconfig({"c": "https://c.example:6443"}, current="c"))
    env = {"KUBECONFIG": f"{tmp_path / 'absent'}::{second}:{third}"}
    conn = _connected(build_configuration(KubeSettings(), env=env, home=home))
    assert conn.configuration.host == "https://b.example:6443"
    assert str(second) in conn.origin


def test_kubeconfig_env_without_an_existing_file_does_not_fall_back_to_home(
    tmp_path: Path, home: Path
) -> None:
    _write(home / ".kube" / "config", _kubeconfig({"home": "https://home:6443"}, current="home"))
    env = {"KUBECONFIG": f"{tmp_path / 'x'}:{tmp_path / 'y'}"}
    reason = _unavailable(build_configuration(KubeSettings(), env=env, home=home))
    assert "no kubeconfig found at" in reason
    assert str(tmp_path / "x") in reason and str(tmp_path / "y") in reason


def test_explicit_kubeconfig_flag_beats_the_env(tmp_path: Path, home: Path) -> None:
    flag = _write(tmp_path / "flag", _kubeconfig({"f": "https://flag:6443"}, current="f"))
    env_file = _write(tmp_path / "env", _kubeconfig({"e": "https://env:6443"}, current="e"))
    env = {"KUBECONFIG": str(env_file)}
    conn = _connected(build_configuration(KubeSettings(kubeconfig=flag), env=env, home=home))
    assert conn.configuration.host == "https://flag:6443"


def test_missing_explicit_kubeconfig_names_the_path(tmp_path: Path, home: Path) -> None:
    settings = KubeSettings(kubeconfig=tmp_path / "nope", named=flag)
    reason = _unavailable(build_configuration(settings, env={}, home=home))
    assert reason == f"Tier 2 unavailable: no kubeconfig found at {tmp_path / 'nope'} (--kubeconfig)"
    plainly = _unavailable(build_configuration(KubeSettings(kubeconfig=tmp_path / "nope"), env={}, home=home))
    assert plainly == f"Tier 2 unavailable: no kubeconfig found at {tmp_path / 'nope'} (the kubeconfig given)"


def test_nothing_found_says_where_it_looked(home: Path) -> None:
    reason = _unavailable(build_configuration(KubeSettings(), env={}, home=home))
    assert f"no kubeconfig found at {home / '.kube' / 'config'}" in reason
    assert "KUBERNETES_SERVICE_HOST unset" in reason


def test_kube_context_selects_that_context(tmp_path: Path, home: Path) -> None:
    path = _write(tmp_path / "kc", _kubeconfig({"a": "https://a:6443", "b": "https://b:6443"}, current="a"))
    conn = _connected(build_configuration(KubeSettings(kubeconfig=path, context="b"), env={}, home=home))
    assert conn.configuration.host == "https://b:6443"
    assert conn.context == "b" and "context b" in conn.origin


def test_unknown_context_is_named_with_the_ones_that_exist(tmp_path: Path, home: Path) -> None:
    path = _write(tmp_path / "kc", _kubeconfig({"a": "https://a:6443", "b": "https://b:6443"}, current="a"))
    settings = KubeSettings(kubeconfig=path, context="prod")
    reason = _unavailable(build_configuration(settings, env={}, home=home))
    assert f"context 'prod' not in kubeconfig {path}" in reason
    assert "'a'" in reason and "'b'" in reason


def test_context_asked_for_without_any_kubeconfig(home: Path) -> None:
    reason = _unavailable(build_configuration(KubeSettings(context="prod"), env={}, home=home))
    assert "context prod was asked for but no kubeconfig found at" in reason


def test_no_current_context_asks_for_kube_context(tmp_path: Path, home: Path) -> None:
    path = _write(tmp_path / "kc", _kubeconfig({"a": "https://a:6443"}))
    reason = _unavailable(build_configuration(KubeSettings(kubeconfig=path, named=flag), env={}, home=home))
    assert reason.endswith("no current-context set; pass --kube-context")
    plainly = _unavailable(build_configuration(KubeSettings(kubeconfig=path), env={}, home=home))
    assert plainly.endswith("no current-context set; pass the context to use")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("clusters: [\n  - name: a\n   bad: indent\n", "not valid YAML (line"),
        (b"\xff\xfe\x00garbage", "not UTF-8 text"),
        ("- just\n- a list\n", "expected a mapping at the top level, got list"),
        ("", "expected a mapping at the top level, got NoneType"),
    ],
)
def test_unreadable_kubeconfig_says_why(
    tmp_path: Path, home: Path, content: str | bytes, expected: str
) -> None:
    path = _write(tmp_path / "kc", content)
    reason = _unavailable(build_configuration(KubeSettings(kubeconfig=path), env={}, home=home))
    assert reason.startswith(f"Tier 2 unavailable: kubeconfig unreadable: {path}: ")
    assert expected in reason


def test_context_naming_a_missing_cluster_is_unreadable_not_a_traceback(tmp_path: Path, home: Path) -> None:
    data = _kubeconfig({"a": "https://a:6443"}, current="a")
    data["contexts"][0]["context"]["cluster"] = "ghost"
    path = _write(tmp_path / "kc", data)
    reason = _unavailable(build_configuration(KubeSettings(kubeconfig=path), env={}, home=home))
    assert "kubeconfig unreadable" in reason and "ghost" in reason


def test_configuration_is_explicit_with_a_bounded_retry_and_the_global_untouched(
    tmp_path: Path, home: Path
) -> None:
    before = Configuration._default
    path = _write(tmp_path / "kc", _kubeconfig({"a": "https://a:6443"}, current="a", token="s3cr3t-token"))
    content = path.read_bytes()
    settings = KubeSettings(kubeconfig=path, connect_timeout=1.5, read_timeout=4.0)
    conn = _connected(build_configuration(settings, env={}, home=home))
    assert Configuration._default is before
    assert conn.configuration is not Configuration.get_default()
    retry = conn.configuration.retries
    assert isinstance(retry, Retry)
    assert (retry.total, retry.connect, retry.read) == (1, 1, 0)
    assert retry.respect_retry_after_header is False
    assert retry.backoff_factor == 0
    assert conn.timeout == (1.5, 4.0)
    assert conn.configuration.api_key["BearerToken"].endswith("s3cr3t-token")
    # Loading must never write the file back.
    assert path.read_bytes() == content


def test_two_connections_do_not_share_state(tmp_path: Path, home: Path) -> None:
    one = _write(tmp_path / "one", _kubeconfig({"a": "https://one:6443"}, current="a", token="token-one"))
    two = _write(tmp_path / "two", _kubeconfig({"a": "https://two:6443"}, current="a", token="token-two"))
    first = _connected(build_configuration(KubeSettings(kubeconfig=one), env={}, home=home))
    second = _connected(build_configuration(KubeSettings(kubeconfig=two), env={}, home=home))
    assert first.configuration.host == "https://one:6443"
    assert second.configuration.host == "https://two:6443"
    assert first.configuration.api_key["BearerToken"].endswith("token-one")


def _service_account(tmp_path: Path, token: str | None = "sa-token", ca: str | None = "CERT") -> Path:
    sa = tmp_path / "sa"
    sa.mkdir()
    if token is not None:
        (sa / "token").write_text(token, encoding="utf-8")
    if ca is not None:
        (sa / "ca.crt").write_text(ca, encoding="utf-8")
    return sa


IN_CLUSTER_ENV = {"KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443"}


def _in_pod(settings: KubeSettings, home: Path, sa: Path) -> KubeConnection | KubeUnavailable:
    return build_configuration(settings, env=IN_CLUSTER_ENV, home=home, service_account_dir=sa)


def test_in_cluster_when_no_kubeconfig_and_running_in_a_pod(tmp_path: Path, home: Path) -> None:
    sa = _service_account(tmp_path)
    conn = _connected(_in_pod(KubeSettings(), home, sa))
    assert conn.configuration.host == "https://10.0.0.1:443"
    assert conn.configuration.api_key["BearerToken"] == "bearer sa-token"
    assert conn.configuration.ssl_ca_cert == str(sa / "ca.crt")
    assert "in-cluster" in conn.origin
    assert isinstance(conn.configuration.retries, Retry)


def test_kubeconfig_beats_in_cluster_in_auto_mode(tmp_path: Path, home: Path) -> None:
    sa = _service_account(tmp_path)
    _write(home / ".kube" / "config", _kubeconfig({"a": "https://a:6443"}, current="a"))
    conn = _connected(_in_pod(KubeSettings(), home, sa))
    assert conn.configuration.host == "https://a:6443"


def test_in_cluster_forced_ignores_the_kubeconfig(tmp_path: Path, home: Path) -> None:
    sa = _service_account(tmp_path)
    _write(home / ".kube" / "config", _kubeconfig({"a": "https://a:6443"}, current="a"))
    settings = KubeSettings(in_cluster=True)
    conn = _connected(_in_pod(settings, home, sa))
    assert conn.configuration.host == "https://10.0.0.1:443"


def test_in_cluster_disabled_is_not_tried(tmp_path: Path, home: Path) -> None:
    sa = _service_account(tmp_path)
    settings = KubeSettings(in_cluster=False)
    reason = _unavailable(_in_pod(settings, home, sa))
    assert "no kubeconfig found" in reason and "KUBERNETES_SERVICE_HOST" not in reason


def test_in_cluster_without_a_token_file_says_so(tmp_path: Path, home: Path) -> None:
    sa = _service_account(tmp_path, token=None)
    reason = _unavailable(_in_pod(KubeSettings(), home, sa))
    assert "in-cluster service account unusable" in reason
    assert "token" in reason.lower()


def test_in_cluster_forced_outside_a_cluster(tmp_path: Path, home: Path) -> None:
    reason = _unavailable(build_configuration(KubeSettings(in_cluster=True), env={}, home=home))
    assert reason == "Tier 2 unavailable: in-cluster requested but KUBERNETES_SERVICE_HOST is unset"
