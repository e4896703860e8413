"""The suite-wide read-only audit, as a pytest plugin (registered by tests/conftest.py).

Every audited simulator (`ControlPlane(audited=True)`, the default) counts each request it answers in
`core.sim.audit`, and keeps the ones that break the rule. When a test process ends, this plugin sums up what its
simulators saw. Under pytest-xdist each worker sends its summary to the controller with the worker's final report
(`workeroutput`), and the controller judges the union; without xdist the one process judges its own. A request
other than GET and the two token POSTs, or any read of a Secret, fails the session (exit status 1) with the
offending requests listed; so does a full run in which the simulators saw almost nothing (an audit over nothing
proves nothing), and a worker that ended without a summary.

Simulators in processes the tests start (the program's simulator process, a headless command run as a
subprocess) write what they answered to files in a directory the session names in RUNAI_TRIAGE_AUDIT_DIR
(core.sim.audit); the controller reads them at the end and judges them with the rest, as "child processes".
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

from core.sim import audit

KEY = "runai_triage_read_only_audit"
# In a run of more tests than this, the simulators must have answered more requests than MIN_REQUESTS.
FULL_RUN_TESTS = 50
MIN_REQUESTS = 100
SHOWN = 20

Summary = dict[str, Any]


def _summary(tests_run: int) -> Summary:
    """What this process's simulators saw: plain JSON-able values, so xdist can carry them to the controller."""
    return {
        "tests": tests_run,
        "requests": audit.counted(),
        "writes": [f"{r.method} {r.path} -> {r.status}" for r in audit.write_violations()],
        "secretReads": [f"{r.method} {r.path} -> {r.status}" for r in audit.secret_reads()],
    }


def _children_summary(folder: Path) -> Summary:
    """What the simulators of the session's child processes answered, from their files (`METHOD path status`)."""
    requests = 0
    writes: list[str] = []
    secret_reads: list[str] = []
    for log in sorted(folder.glob("*.log")):
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            method, _, rest = line.partition(" ")
            path, _, status = rest.rpartition(" ")
            if not method or not path:
                continue  # a line cut short by a child killed mid-write
            requests += 1
            shown = f"{method} {path} -> {status}"
            if audit.is_write(method, path):
                writes.append(shown)
            if audit.is_secret_read(path):
                secret_reads.append(shown)
    return {"tests": 0, "requests": requests, "writes": writes, "secretReads": secret_reads}


def judge(summaries: dict[str, Summary | None]) -> list[str]:
    """The audit's findings over every test process (name -> summary, None when it sent none); [] is clean."""
    problems: list[str] = []
    for name, summary in sorted(summaries.items()):
        if summary is None:
            problems.append(f"{name} ended without an audit summary: its requests could not be checked")
            continue
        for kind, label in (("writes", "a write request"), ("secretReads", "a Secret read")):
            problems += [f"{name}: {label} reached a simulator: {line}" for line in summary[kind][:SHOWN]]
            if len(summary[kind]) > SHOWN:
                problems.append(f"{name}: ... and {len(summary[kind]) - SHOWN} more")
    tests = sum(s["tests"] for s in summaries.values() if s)
    requests = sum(s["requests"] for s in summaries.values() if s)
    if tests > FULL_RUN_TESTS and requests <= MIN_REQUESTS:
        problems.append(
            f"{tests} tests ran but the simulators recorded only {requests} requests: are they still audited?"
        )
    return problems


class ReadOnlyAudit:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.tests_run = 0
        self.from_workers: dict[str, Summary | None] = {}
        self.problems: list[str] = []
        self.requests = 0
        self.from_children = 0
        self.folder: Path | None = None
        audit.keep_in_memory()  # this process's own planes are judged from memory
        if getattr(config, "workerinput", None) is None:  # the controller (or the one process): names the folder
            self.folder = Path(tempfile.mkdtemp(prefix="runai-triage-audit-"))
            os.environ[audit.AUDIT_DIR_ENV] = str(self.folder)

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_call(self, item: pytest.Item) -> None:
        # Counted where the test runs (an xdist controller only replays reports, it runs no test).
        self.tests_run += 1

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        # A worker that crashed has no workeroutput: None, which judge() reports.
        output = getattr(node, "workeroutput", None) or {}
        self.from_workers[f"worker {node.gateway.id}"] = output.get(KEY)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        summary = _summary(self.tests_run)
        workeroutput = getattr(self.config, "workeroutput", None)
        if workeroutput is not None:  # an xdist worker: the controller judges
            workeroutput[KEY] = summary
            return
        summaries = {**self.from_workers, "this process": summary}
        if self.folder is not None:
            children = _children_summary(self.folder)
            summaries["child processes"] = children
            self.from_children = children["requests"]
            shutil.rmtree(self.folder, ignore_errors=True)
        self.problems = judge(summaries)
        self.requests = sum(s["requests"] for s in summaries.values() if s)
        if self.problems and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if getattr(self.config, "workeroutput", None) is not None:
            return
        if not self.problems:
            terminalreporter.write_line(
                f"read-only audit: {self.requests} simulator requests ({self.from_children} of them in child "
                "processes), no write"
            )
            return
        terminalreporter.section("read-only audit FAILED", red=True)
        for line in self.problems:
            terminalreporter.write_line(line, red=True)


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(ReadOnlyAudit(config), "runai-triage-read-only-audit")
