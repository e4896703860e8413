"""A crash loop whose container keeps exiting 0 (issue 37.4): a program that ends, started again by its pod's
policy. The taxonomy's application error is a non-zero exit, so the verdict may stay UNKNOWN, but the crash
loop's line, the reason and the advice say what happens, and only a policy that restarts a success counts."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.diagnosis.crash_loop import loop_text, read_loop
from core.diagnosis.recommend import AdviceContext, recommendations
from core.models.kube import K8sPod

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _pod(policy: str | None, code: int, reason: str) -> K8sPod:
    spec: dict[str, object] = {"containers": [{"name": "main", "image": "ghcr.io/acme/x:1"}]}
    if policy is not None:
        spec["restartPolicy"] = policy
    status = {
        "name": "main",
        "restartCount": 212,
        "state": {"waiting": {"reason": "CrashLoopBackOff"}},
        "lastState": {"terminated": {"exitCode": code, "reason": reason, "finishedAt": "2026-11-30T11:58:24Z"}},
    }
    body = {"metadata": {"name": "x-0-0"}, "spec": spec, "status": {"containerStatuses": [status]}}
    return K8sPod.model_validate(body)


@pytest.mark.parametrize(("policy", "said"), [("Always", "under restartPolicy Always"), (None, "only restartPolicy")])
def test_a_loop_that_exits_zero_says_so(policy: str | None, said: str) -> None:
    loop = read_loop(_pod(policy, 0, "Completed"), (), ())
    assert loop is not None and loop.exits_zero and loop.last_reason == "Completed"
    text = loop_text(loop, NOW)
    assert text is not None and "keeps exiting 0 (last exit 0, Completed)" in text and said in text


@pytest.mark.parametrize(("policy", "code"), [("OnFailure", 0), ("Always", 1), ("Always", 137)])
def test_a_loop_that_fails_or_is_not_restarted_on_success_does_not(policy: str, code: int) -> None:
    loop = read_loop(_pod(policy, code, "Error"), (), ())
    assert loop is not None and not loop.exits_zero
    assert "exiting 0" not in (loop_text(loop, NOW) or "")


def test_the_advice_for_a_loop_that_exits_zero_quotes_its_line_and_no_read_next() -> None:
    advice = "\n".join(recommendations(AdviceContext("UNKNOWN", exits_zero=True, log_line="DEPLOY_ENV is not set")))
    assert '"DEPLOY_ENV is not set"' in advice and "setting it needs is missing" in advice
    assert "training workload" in advice and "Nothing read names the cause" not in advice
    silent = "\n".join(recommendations(AdviceContext("UNKNOWN", exits_zero=True)))
    assert "kubectl logs --previous" in silent
