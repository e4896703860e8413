"""The README's promises: the quick start CI runs, and the RBAC example it prints is the one that ships."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README, flags=re.S)


def test_ci_runs_the_readme_test_command() -> None:
    test_command = next(block.strip() for block in _blocks("sh") if "pytest" in block)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test_command in ci.splitlines()


def test_quick_start_opens_the_demo() -> None:
    first = _blocks("sh")[0].strip()
    assert first.startswith("python3 -m venv .venv && .venv/bin/pip install -e .")
    assert first.endswith("runai-triage --demo")


def test_readme_rbac_matches_the_shipped_cluster_role() -> None:
    shown = yaml.safe_load(_blocks("yaml")[0])
    shipped = [
        doc
        for doc in yaml.safe_load_all((ROOT / "core/sources/rbac/runai-triage-reader.yaml").read_text())
        if doc and doc.get("kind") == "ClusterRole"
    ]
    assert shown == shipped[0]
