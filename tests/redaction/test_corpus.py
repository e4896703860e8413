"""The corpus against the redactor and the untrusted-text entry point, in the wrappings credentials arrive in."""

from __future__ import annotations

import json

import pytest

from core.safety.redact import redact
from core.safety.redact.base import MARKER
from core.safety.untrusted import clean, clean_log
from tests.benchmarks.bench_redact import make_log
from tests.redaction.corpus import CREDENTIALS, FALSE_POSITIVES, Credential
from tests.redaction.leaks import readable, shown
from tests.redaction.planting import SGR, ZWSP, split_secret

IDS = [c.kind for c in CREDENTIALS]


def test_the_corpus_is_large_varied_and_unique() -> None:
    assert len(CREDENTIALS) >= 60
    assert len(set(IDS)) == len(IDS)
    assert len({c.secret for c in CREDENTIALS}) == len(CREDENTIALS)


@pytest.mark.parametrize("cred", CREDENTIALS, ids=IDS)
def test_redact_hides_each_credential(cred: Credential) -> None:
    out = redact(cred.text)
    assert not shown(cred.secret, out), out
    assert MARKER.search(out)
    assert redact(out) == out  # idempotent


@pytest.mark.parametrize("cred", CREDENTIALS, ids=IDS)
@pytest.mark.parametrize(
    "wrap",
    [
        pytest.param(lambda t: t, id="bare"),
        pytest.param(lambda t: f"2026-11-30T11:00:00Z ERROR worker[3]: {t} (retrying)", id="in-a-log-line"),
        pytest.param(lambda t: json.dumps({"level": "error", "msg": t}), id="json-encoded"),
        pytest.param(lambda t: f"\x1b[33mWARN\x1b[0m {t}", id="coloured-line"),
    ],
)
def test_clean_hides_each_credential_however_it_is_wrapped(cred: Credential, wrap: object) -> None:
    text = wrap(cred.text)  # type: ignore[operator]
    for out in (clean(text, max_len=None), clean(text, max_len=None, one_line=True)):
        assert not shown(cred.secret, readable(out, "text")), out


@pytest.mark.parametrize("cred", CREDENTIALS, ids=IDS)
@pytest.mark.parametrize(
    "splitter", [SGR, ZWSP, "\x1b[1;31m", "\u00ad", "\x07"], ids=["sgr", "zwsp", "sgr2", "shy", "bel"]
)
def test_a_character_inside_the_secret_does_not_hide_it(cred: Credential, splitter: str) -> None:
    text = split_secret(cred, splitter)
    out = clean(f"phase message: {text}", max_len=None, one_line=True)
    assert not shown(cred.secret, readable(out, "text")), out


def test_every_credential_deep_in_a_long_log() -> None:
    """One megabyte of training log with the corpus spread through it, as the log pane receives it."""
    filler = make_log("typical", 1024 * 1024).split("\n")
    step = len(filler) // (len(CREDENTIALS) + 1)
    lines: list[str] = []
    for i, cred in enumerate(CREDENTIALS):
        lines += filler[i * step : (i + 1) * step]
        lines.append(cred.text)
    lines += filler[len(CREDENTIALS) * step :]
    shown_text = "\n".join(clean_log("\n".join(lines)))
    leaked = [c.kind for c in CREDENTIALS if shown(c.secret, readable(shown_text, "text"))]
    assert leaked == []
    assert shown_text.count("<redacted") >= len(CREDENTIALS)


@pytest.mark.parametrize("text", FALSE_POSITIVES)
def test_look_alikes_stay_readable(text: str) -> None:
    assert redact(text) == text
    assert clean(text, max_len=None) == text
    assert clean_log(text) == [text]


def test_look_alikes_next_to_a_credential_stay_readable() -> None:
    """A redaction in the same text changes nothing around it."""
    cred = CREDENTIALS[0]
    for text in FALSE_POSITIVES:
        out = clean(f"{text} | {cred.text}", max_len=None)
        assert out.startswith(f"{text} | "), out
        assert not shown(cred.secret, out)
