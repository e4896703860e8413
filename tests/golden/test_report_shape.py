"""The text report a person reads (issue 24), measured over every golden report (demo stories, shared examples,
rule, infrastructure, first-failure, multi-pod and probe bundles): a median of at most 18 lines and at most 40 for
any (the 32-pod cascade included), no message quoted on two evidence lines, no two evidence lines the same once
their pods, times and counts are set aside (issue 34), every quoted message of the JSON evidence either shown or
counted in the report's "and N more lines"; and the shared OOM example reads like the seed's own example,
line for line in kind.

The numbers are printed by `.venv/bin/python -m tests.benchmarks.report_lengths --golden`.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.golden.make_golden import GOLDEN
from tests.golden.report_shape import Shape, evidence_lines, measure, summarise

MEDIAN_LINES = 18
MAX_LINES = 40
CASCADE_32 = "demo/dist-node-lost-cascade"


def _shapes() -> dict[str, Shape]:
    shapes: dict[str, Shape] = {}
    for path in sorted(GOLDEN.glob("*/*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        if "text" in record:
            doc = json.loads("\n".join(record["json"]))
            pods = [e["pod"] for e in doc.get("terminationOrder") or []]
            shapes[f"{path.parent.name}/{path.stem}"] = measure(
                "\n".join(record["text"]), doc["evidence"], doc["workload"].get("name") or "", pods
            )
    return shapes


SHAPES = _shapes()


def test_the_reports_are_short_enough_to_read() -> None:
    summary = summarise(SHAPES)
    assert summary.reports >= 150, "the golden reports are all there"
    assert summary.median_lines <= MEDIAN_LINES, summary
    assert summary.max_lines <= MAX_LINES, summary
    assert SHAPES[CASCADE_32].lines <= MAX_LINES


@pytest.mark.parametrize("key", sorted(SHAPES))
def test_each_signal_once_and_nothing_unaccounted(key: str) -> None:
    shape = SHAPES[key]
    assert shape.duplicates == 0, "a message stands on two evidence lines"
    assert len(shape.unseen) <= shape.left_out, (shape.unseen, shape.left_out)
    # Issue 34: one line per message and state, naming the pods; not one per pod, time or count.
    assert not shape.alike, shape.alike


def test_every_bundle_of_the_suite_is_measured() -> None:
    groups = {key.split("/")[0] for key in SHAPES}
    assert {"demo", "examples", "rules", "infra", "firstfailure", "multipod", "probes"} <= groups, groups
    # The bundles built to repeat themselves (tests/engine/mp_fold_cases.py) are among them.
    assert {"multipod/fold-nine-pods-exit-one", "multipod/fold-three-workers-oom-no-samples"} <= set(SHAPES)


# The seed's example (runai-diagnose-failed-workload.md, "Examples — what a good answer looks like").
SEED_EXAMPLE = """\
Category: OOM_KILLED
Workload: training-job-42 | Phase: Failed | Project: ml-team

Evidence:
- Event reason: OOMKilled; message: "Container trainer was OOM killed" (source: get_workload_status)
- Submitted memory request/limit: 32 GiB / 32 GiB (source: get_workload_spec)
- Pod training-job-42-0 k8sPhase: OOMKilled; memory limit: 32 GiB (source: get_workload_pods)
- No CPU-memory samples were recorded before termination (source: get_workload_metrics)
- Previous container exit: 137 (source: kubectl describe pod, namespace runai-ml-team)

History: 3 OOMKilled failures in the last 7 days — recurring memory pressure.

Recommendation:
- Profile memory and raise the 32 GiB limit with sufficient headroom before rerunning.
- Investigate batch size and dataloader growth; consider gradient checkpointing.
- Verify that stale environment variables are not overriding batch size.
"""

_KINDS = (
    ("category", re.compile(r"^(Category|Outcome): ")),
    ("workload", re.compile(r"^(Workload: .+ \| Phase: .+ \| Project: |  id )")),
    ("evidence", re.compile(r"^Evidence:$")),
    ("history", re.compile(r"^History: ")),
    ("missing", re.compile(r"^Missing evidence:$")),
    ("recommendation", re.compile(r"^Recommendation:$")),
    ("item", re.compile(r"^- ")),
    ("blank", re.compile(r"^$")),
)


def kinds(text: str) -> list[str]:
    """Each line's kind, runs of one kind as one (five evidence items are one run of items)."""
    out: list[str] = []
    for line in text.rstrip("\n").split("\n"):
        kind = next((name for name, pattern in _KINDS if pattern.match(line)), "other")
        if not out or out[-1] != kind:
            out.append(kind)
    return out


def test_the_shared_oom_example_reads_like_the_seed_example() -> None:
    record = json.loads((GOLDEN / "examples" / "example-oom.json").read_text(encoding="utf-8"))
    text = "\n".join(record["text"])
    assert kinds(text) == kinds(SEED_EXAMPLE)
    cited = evidence_lines(text.split("\n"))
    assert 3 <= len(cited) <= 8
    assert all(re.search(r" \(sources?: [^()]+\)$", line) for line in cited), "every signal cites its sources"
    assert "OOMKilled" in cited[0], "the signal the category rests on comes first"
    # Quantified as the seed's is: the request and limit, the measured peak against the limit, the exit code.
    assert any("24Gi / 24Gi" in line for line in cited)
    assert any(re.search(r"Peak CPU memory 23\.\d GiB .*of the 24 GiB limit", line) for line in cited)
    assert any("exit 137" in line for line in cited)
