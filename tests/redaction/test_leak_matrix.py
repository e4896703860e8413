"""The leak matrix through the real commands: each credential form, planted in every field a bundle carries, run
through `record` (its stdout in text with --verbose, Markdown and JSON, its stderr, and the bundle it writes) and
`diagnose` (the default text). Every cell must show no piece of the secret; the text planted around it must
show (so a cell checks text that really arrived).

The engine's own outputs (text, --verbose, Markdown, JSON, the app's progress events) are checked for every
form in test_end_to_end, and the recording for every form in tests/integration/test_record; here the forms that
came last (webhooks on any host, tokens a log wrapped, Secrets printed whole, tokens as URL users) and a sample
of the others go through the commands themselves.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from tests.redaction.corpus import CREDENTIALS, MORE_KINDS, Credential
from tests.redaction.leaks import readable, shown
from tests.redaction.planting import MARKERS, credentials_bundle
from tui.cli import main as cli_main

FORMS = [c for c in CREDENTIALS if c.kind in MORE_KINDS] + [c for c in CREDENTIALS if c.kind not in MORE_KINDS][::8]
OUTPUTS = ("record text --verbose", "record markdown", "record json", "record stderr", "record bundle", "diagnose text")


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(argv)
    return code, out.getvalue(), err.getvalue()


def _cells(cred: Credential, tmp_path: Path) -> dict[str, tuple[str, str]]:
    """Each output of the two commands for `cred`'s workload: (what a reader sees, the form to read it as)."""
    bundle, [story] = credentials_bundle([cred])
    case = tmp_path / "hostile.json"
    case.write_text(json.dumps(bundle), encoding="utf-8")
    ids = ["--case", str(case), "--cluster-id", story.cluster, "--workload-id", story.id]
    cells: dict[str, tuple[str, str]] = {}
    for fmt, extra in (("text", ["--verbose"]), ("markdown", []), ("json", [])):
        target = tmp_path / f"recorded-{fmt}.json"
        code, out, err = _cli(["record", *ids, "--format", fmt, *extra, "--out", str(target)])
        assert code == 0, err
        cells[f"record {fmt}{' --verbose' if extra else ''}"] = (out, fmt)
        cells["record stderr"] = (err, "text")
        cells["record bundle"] = (target.read_text(encoding="utf-8"), "json")
    code, out, err = _cli(["diagnose", *ids])
    assert code == 0, err
    cells["diagnose text"] = (out + err, "text")
    return cells


@pytest.mark.parametrize("cred", FORMS, ids=[c.kind for c in FORMS])
def test_no_output_of_record_or_diagnose_shows_the_secret(cred: Credential, tmp_path: Path) -> None:
    cells = _cells(cred, tmp_path)
    assert set(cells) == set(OUTPUTS)
    leaks = [name for name, (output, fmt) in cells.items() if shown(cred.secret, readable(output, fmt))]
    assert leaks == [], f"{cred.kind} shown in: {leaks}"
    # The planted text around the secret arrived where the report quotes it, and in the bundle.
    for name in ("record text --verbose", "record markdown", "record json", "record bundle"):
        output, fmt = cells[name]
        assert MARKERS["workload phaseMessage"] in readable(output, fmt), name


def test_the_matrix_holds_every_late_form_and_a_sample_of_the_rest() -> None:
    kinds = {c.kind for c in FORMS}
    assert set(MORE_KINDS) <= kinds and len(MORE_KINDS) >= 30
    assert len(kinds) > len(MORE_KINDS)
