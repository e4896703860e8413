"""The shipped demo tenant on disk: where its two data files live inside the installed package, and how to
read them. Reading needs none of the story builders, so opening the demo tenant stays light."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.sim.bundle import CaseBundle

BUNDLE_FILE = "demo-tenant.json.gz"
EXPECTATIONS_FILE = "demo-expectations.json"
# The off-spec tenant (core/sim/demo/stories/off_spec.py): data a real control plane does not send, apart.
OFFSPEC_BUNDLE_FILE = "offspec-tenant.json.gz"
OFFSPEC_EXPECTATIONS_FILE = "offspec-expectations.json"


def _data_file(name: str) -> Path:
    return Path(str(resources.files("core.sim.demo").joinpath("data", name)))


def demo_bundle_path() -> Path:
    """Where the shipped demo bundle lives inside the installed package."""
    return _data_file(BUNDLE_FILE)


def demo_expectations_path() -> Path:
    return _data_file(EXPECTATIONS_FILE)


def load_demo_bundle() -> CaseBundle:
    """The shipped demo bundle, read and validated by core.sim.bundle."""
    from core.sim.bundle import load_bundle

    return load_bundle(demo_bundle_path())


def demo_expectations() -> list[dict[str, Any]]:
    """The shipped expectations (a list of dicts, one per hand-shaped case)."""
    data: list[dict[str, Any]] = json.loads(demo_expectations_path().read_text(encoding="utf-8"))
    return data


def offspec_bundle_path() -> Path:
    return _data_file(OFFSPEC_BUNDLE_FILE)


def load_offspec_bundle() -> CaseBundle:
    """The off-spec tenant: a bundle of its own, whose data a 2.24 control plane does not send."""
    from core.sim.bundle import load_bundle

    return load_bundle(offspec_bundle_path())


def offspec_expectations() -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(_data_file(OFFSPEC_EXPECTATIONS_FILE).read_text(encoding="utf-8"))
    return data
