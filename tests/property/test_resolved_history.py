"""Issue 31's property: a signal a later event took back is history, whatever the case.

Each example takes a diagnosed case of the suite (the rule, infrastructure, multi-pod, first-failure and probe
bundles) whose workload ran, and adds to its Run:ai events and history, between its creation and its first move
to Running, signals that were resolved before that run: Docker Hub's 429 on a pull and then the image pulled and
the container started, a preemption by a higher-priority workload and then the workload requeued and run again,
a volume that failed to mount and then did. Whether the resolution is an explicit kubelet event or only the
workload's move to Running is drawn too. Asserted every time: the outcome, category and recurrence count are
those of the case as it is, and the report lists each added signal under what was resolved (`superseded`, and
the text's "Resolved earlier" line).
"""

from __future__ import annotations

import copy
import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from core.models.report import Report
from core.report.render import to_text
from tests.engine.test_rule_cases import diagnose_bundle
from tests.paths import CASES
from tests.property.strategies import PROPERTY_SETTINGS

Json = dict[str, Any]
GROUPS = ("rules", "infra", "multipod", "firstfailure", "probes")
WHAT = {"pull": "image pull error", "preemption": "preemption", "mount": "volume mount failure"}
IMAGE = "docker.io/library/python:3.12-slim"
HUB_429 = (
    f'Failed to pull image "{IMAGE}": failed to pull and unpack image "{IMAGE}": failed to copy: httpReadSeeker: '
    "failed open: unexpected status code https://registry-1.docker.io/v2/library/python/manifests/sha256:9c1f: "
    "429 Too Many Requests - Server message: toomanyrequests: You have reached your unauthenticated pull rate limit. "
    "https://www.docker.com/increase-rate-limit"
)
MOUNT = (
    "Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data kube-api-access-7m2kq]: "
    "timed out waiting for the condition"
)


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _stamp(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def _lookback(text: str) -> timedelta:
    unit = {"m": 60, "h": 3600, "d": 86400}[text[-1]]
    return timedelta(seconds=int(text[:-1]) * unit)


def _room(bundle: Json) -> tuple[Json, datetime, datetime] | None:
    """The requested workload's entry, and the span between its creation (or the lookback's start) and its
    first move to Running, when it ran and there is room for a resolved signal before that."""
    request = bundle["request"]
    entry = next((w for w in bundle["workloads"] if w["workload"].get("id") == request.get("workload_id")), None)
    if entry is None:
        return None
    runs = [
        _time(r["meta"]["creationTimestamp"]) for r in entry.get("history") or ()
        if (r.get("spec") or {}).get("phaseUpdate", {}).get("phase") == "Running"
    ]
    if not runs:
        return None
    start = max(_time(entry["workload"]["createdAt"]),
                _time(bundle["capturedAt"]) - _lookback(request.get("lookback", "24h")))
    first_run = min(runs)
    if first_run - start < timedelta(minutes=4):
        return None
    return entry, start, first_run


def _eligible() -> list[Path]:
    found = []
    for group in GROUPS:
        for path in sorted((CASES / group).glob("*.json")):
            bundle = json.loads(path.read_text(encoding="utf-8"))
            expect = bundle.get("expect") or {}
            if "request" in bundle and expect.get("outcome") == "diagnosed" and _room(bundle) is not None:
                found.append(path)
    return found


CASE_FILES = _eligible()
_BASE: dict[Path, Report] = {}


def _event(entry: Json, at: datetime, reason: str, message: str, pod: Json | None, *, kind: str = "Pod",
           name: str | None = None, type_: str = "Warning", source: str = "kubelet") -> None:
    """A Run:ai event about the workload, in its events and its history (as Run:ai keeps both)."""
    w = entry["workload"]
    target = name or (pod or {}).get("name") or f"{w['name']}-0-0"
    event = {
        "id": f"resolved-{reason}-{_stamp(at)}", "createdAt": _stamp(at), "type": type_,
        "clusterId": w["clusterId"], "reason": reason, "message": message, "source": source,
        "involvedObject": {"uid": (pod or {}).get("id") if kind == "Pod" else f"{kind}-{target}", "kind": kind,
                           "name": target, "namespace": w.get("namespace") or ""},
    }
    if isinstance(entry.get("events"), list):  # a case whose events endpoint fails keeps failing
        entry["events"].append(event)
    entry.setdefault("history", []).append(
        {"meta": {"creationTimestamp": _stamp(at), "type": "Event"}, "spec": {"event": event}}
    )


def _phase(entry: Json, at: datetime, phase: str, message: str = "") -> None:
    entry["history"].append(
        {"meta": {"creationTimestamp": _stamp(at), "type": "PhaseUpdate"},
         "spec": {"phaseUpdate": {"phase": phase, "phaseMessage": message}}}
    )


def add_resolved(bundle: Json, kinds: list[str], fractions: tuple[float, float], explicit: bool) -> Json:
    """The bundle with `kinds` of resolved signals added before the workload's first run."""
    out = copy.deepcopy(bundle)
    room = _room(out)
    assert room is not None
    entry, start, first_run = room
    span = first_run - start
    low, high = sorted(fractions)
    failed_at = start + span * (0.1 + 0.4 * low)
    resolved_at = max(start + span * (0.55 + 0.4 * high), failed_at + timedelta(seconds=30))
    pod = next(iter(entry.get("pods") or ()), None)
    name = entry["workload"]["name"]
    for i, kind in enumerate(kinds):
        at = failed_at + timedelta(seconds=5 * i)
        if kind == "pull":
            _event(entry, at, "Failed", HUB_429, pod)
            _event(entry, at + timedelta(seconds=1), "Failed", "Error: ErrImagePull", pod)
            if explicit:
                _event(entry, resolved_at, "Pulled", f'Successfully pulled image "{IMAGE}" in 41.2s (41.2s including '
                       "waiting). Image size: 52314112 bytes.", pod, type_="Normal")
        elif kind == "mount":
            _event(entry, at, "FailedMount", MOUNT, pod)
        else:
            _phase(entry, start + (at - start) / 2, "Running")
            victim = f"{entry['workload'].get('namespace')}/{(pod or {}).get('name', name)}"
            taker = f"Pod {victim} was preempted by higher priority workload runai-prod/pg-chat-serving-0"
            _event(entry, at, "Evict", taker, pod, kind="PodGroup", name=f"pg-{name}-0", type_="Normal",
                   source="kai-scheduler")
            _phase(entry, at + timedelta(seconds=2), "Pending", "Waiting for resources")
    if explicit:
        _event(entry, resolved_at + timedelta(seconds=1), "Started", "Started container main", pod, type_="Normal")
    entry["history"].sort(key=lambda r: r["meta"]["creationTimestamp"])
    if isinstance(entry.get("events"), list):
        entry["events"].sort(key=lambda e: e["createdAt"], reverse=True)
    return out


async def _base(path: Path, bundle: Json) -> Report:
    if path not in _BASE:
        _BASE[path] = (await diagnose_bundle(bundle, **bundle["request"]))[0]
    return _BASE[path]


@PROPERTY_SETTINGS
@given(
    path=st.sampled_from(CASE_FILES),
    kinds=st.lists(st.sampled_from(sorted(WHAT)), min_size=1, max_size=3, unique=True),
    fractions=st.tuples(st.floats(0, 1), st.floats(0, 1)),
    explicit=st.booleans(),
)
async def test_resolved_earlier_signals_never_change_the_verdict(
    path: Path, kinds: list[str], fractions: tuple[float, float], explicit: bool
) -> None:
    bundle = json.loads(path.read_text(encoding="utf-8"))
    base = await _base(path, bundle)
    changed = add_resolved(bundle, kinds, fractions, explicit)
    report, _ = await diagnose_bundle(changed, **changed["request"])
    assert (report.outcome, report.category, report.recurrence.count) == (
        base.outcome, base.category, base.recurrence.count
    ), (path.stem, kinds, report.reason)
    said = {item.what for item in report.superseded}
    for kind in kinds:
        assert WHAT[kind] in said, (path.stem, kind, [i.text for i in report.superseded])
    assert "Resolved earlier, not the cause" in to_text(report), path.stem


def test_the_property_covers_every_group() -> None:
    """Enough of the suite is eligible (it ran, with room before its first run) for the property to mean much."""
    groups = {p.parent.name for p in CASE_FILES}
    assert {"rules", "multipod", "firstfailure"} <= groups, groups
    assert len(CASE_FILES) >= 40, len(CASE_FILES)
