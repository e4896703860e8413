"""Reading and validating case bundles (`runai-triage/case@1`, see docs/case-format.md).

Validation walks the document in a fixed order (format, capturedAt, clusters, projects, workloads entry by
entry, kubernetes, faults, nodes) and stops at the first problem, so the same broken file always gives the same
message. Objects are kept as raw dicts: the simulator serves them back exactly as written.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.models.gc_pause import gc_paused
from core.models.json_keys import decode_unique, first_duplicate, object_pairs
from core.models.safe_json import json_type
from core.sim.fault_kinds import PARAMS, check_fault_kind
from core.sim.faults import Fault, parse_match

FORMAT = "runai-triage/case@1"
KUBE_RESOURCES: frozenset[str] = frozenset({"pods", "pods/log", "events", "nodes"})
REQUIRED_WORKLOAD_KEYS: tuple[str, ...] = (
    "id",
    "name",
    "clusterId",
    "projectName",
    "phase",
    "phaseUpdatedAt",
)

_SHOW_LIMIT = 60


def show(value: object) -> str:
    """A short, single-line, control-character-free rendering of a value for error messages."""
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    cleaned = "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" for ch in text[: _SHOW_LIMIT * 2])
    if len(cleaned) > _SHOW_LIMIT or len(text) > _SHOW_LIMIT * 2:
        cleaned = cleaned[:_SHOW_LIMIT] + f"... ({len(text)} chars)"
    return cleaned


def parse_instant(value: object) -> datetime | None:
    """An ISO-8601 timestamp as an aware UTC datetime, or None. A time without an offset is taken as UTC."""
    if not isinstance(value, str) or not value or len(value) > 64:
        return None
    text = value.strip()
    if text.endswith(("z", "Z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    try:
        return parsed.astimezone(UTC)
    except OverflowError:  # year 1 or 9999 with an offset has no UTC instant
        return None




class BundleError(ValueError):
    """A bundle that cannot be used, naming the file, the JSON path of the problem, and the problem."""

    def __init__(
        self, problem: str, path: str = "$", file: str = "<bundle>", hint: str | None = None
    ) -> None:
        self.file = file
        self.path = path
        self.problem = problem
        self.hint = hint
        # `$` (the top of the JSON) means nothing to a user: a problem there is the file's own.
        text = f"{file}: {problem}" if path == "$" else f"{file}: {path}: {problem}"
        if hint:
            text += f" ({hint})"
        super().__init__(text)


@dataclass
class CaseBundle:
    source: str
    captured_at: datetime
    clusters: list[dict[str, Any]]
    projects: list[dict[str, Any]]
    workloads: list[dict[str, Any]]
    kubernetes: dict[str, Any] | None
    faults: list[Fault]
    raw: dict[str, Any]
    _by_id: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False, compare=False)
    # Run:ai's nodes (`GET /api/v1/clusters/{clusterUuid}/nodes` as returned): the top-level `nodes` list.
    nodes: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self._by_id:
            self._by_id = {str(e["workload"]["id"]): e for e in self.workloads}

    def workload_entry(self, workload_id: str) -> dict[str, Any] | None:
        """The raw entry ({workload, events?, spec?, pods?, history?, metrics?}) for a workload id, if any."""
        return self._by_id.get(workload_id)


def load_bundle(path: str | Path) -> CaseBundle:
    """Read a bundle from a `.json` or `.json.gz` file (gzip is detected by content, not only by name)."""
    p = Path(path)
    name = str(p)
    try:
        raw = _read_capped(p, MAX_BUNDLE_BYTES)
    except FileNotFoundError:
        raise BundleError("file not found", file=name, hint="check the path given to --case") from None
    except IsADirectoryError:
        raise BundleError("is a directory, not a bundle file", file=name) from None
    except OSError as exc:
        raise BundleError(f"cannot read the file: {exc.strerror or exc}", file=name) from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = _gunzip(raw, MAX_BUNDLE_BYTES)
        except (OSError, EOFError, zlib.error) as exc:
            raise BundleError(f"damaged gzip data: {exc}", file=name) from None
        except ValueError as exc:
            raise BundleError(str(exc), file=name) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BundleError(f"not UTF-8 text (bad byte at offset {exc.start})", file=name) from None
    try:
        with gc_paused():  # a bundle is one large acyclic document: nothing for the collector to find in it
            data = _decode(raw, text, name)
    except BundleError:
        raise
    except json.JSONDecodeError as exc:
        raise BundleError(
            f"not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}", file=name
        ) from None
    except RecursionError:
        raise BundleError("JSON nested too deeply", file=name) from None
    except ValueError as exc:
        # json.loads refuses integer literals longer than Python converts (4,300 digits by default).
        why = "an integer literal longer than 4,300 digits" if "digits" in str(exc) else str(exc)
        raise BundleError(f"not usable JSON: {why}", file=name) from None
    return parse_bundle(data, source=name)


def _decode(raw: bytes, text: str, name: str) -> Any:
    """The bundle's JSON: by jiter when no object gives a key twice (the common case, and the faster reader),
    else by json.loads; a key given twice with different values is refused, naming where (which value was
    meant cannot be told, and the simulator would serve one of them silently)."""
    unique, data = decode_unique(raw.removeprefix(b"\xef\xbb\xbf"))
    if unique:
        return data
    data = json.loads(text, object_pairs_hook=object_pairs)
    found = first_duplicate(data)
    if found is not None:
        path, duplicate = found
        raise BundleError(
            f"{duplicate.given}: a bundle must give each key once",
            path=path,
            file=name,
            hint="keep the value you mean and delete the other",
        )
    return data


# The demo tenant inflates to under 6 MiB; a bundle past this is a mistake or a bomb, not a case.
MAX_BUNDLE_BYTES = 512 * 1024 * 1024


def _read_capped(path: Path, cap: int) -> bytes:
    """The file's bytes, refused past ``cap``: a huge file, or one that never ends (``--case /dev/zero``, a
    pipe), costs at most the cap, never all the memory there is."""
    with path.open("rb") as stream:
        raw = stream.read(cap + 1)
    if len(raw) > cap:
        raise BundleError(f"larger than {cap // (1024 * 1024)} MiB; not a case bundle", file=str(path))
    return raw


def _gunzip(raw: bytes, cap: int) -> bytes:
    """Inflate a gzip file a slice at a time, refusing to grow past ``cap`` bytes."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out: list[bytes] = []
    size = 0
    pending = raw
    while pending and not inflater.eof:
        piece = inflater.decompress(pending, 16 * 1024 * 1024)
        size += len(piece)
        if size > cap:
            raise ValueError(f"inflates to more than {cap // (1024 * 1024)} MiB; not a case bundle")
        out.append(piece)
        pending = inflater.unconsumed_tail
    if not inflater.eof:
        raise EOFError("compressed data ended before the end-of-stream marker")
    return b"".join(out)


def parse_bundle(data: object, source: str = "<bundle>") -> CaseBundle:
    """Validate already-decoded JSON as a bundle; raises BundleError for the first problem found."""
    return _Validator(source).bundle(data)


class _Validator:
    def __init__(self, source: str) -> None:
        self.source = source

    @staticmethod
    def join(path: str, key: str) -> str:
        return key if path == "$" else f"{path}.{key}"

    def fail(self, path: str, problem: str, hint: str | None = None) -> BundleError:
        return BundleError(problem, path=path, file=self.source, hint=hint)

    def obj(self, value: object, path: str, what: str = "an object") -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, f"expected {what}, got {json_type(value)}")
        return value

    def lst(self, value: object, path: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(path, f"expected a list, got {json_type(value)}")
        return value

    def text(self, container: dict[str, Any], key: str, path: str) -> str:
        if key not in container:
            raise self.fail(path, f"missing required key '{key}'")
        value = container[key]
        if not isinstance(value, str) or not value:
            raise self.fail(self.join(path, key), f"expected a non-empty string, got {json_type(value)}")
        return value

    def instant(self, container: dict[str, Any], key: str, path: str) -> datetime:
        if key not in container:
            raise self.fail(path, f"missing required key '{key}'")
        parsed = parse_instant(container[key])
        if parsed is None:
            raise self.fail(
                self.join(path, key),
                f"not an ISO-8601 timestamp: {show(container[key])}",
                hint="write it like 2026-11-30T12:00:00Z",
            )
        return parsed

    def optional_objects(self, root: dict[str, Any], key: str, path: str) -> list[dict[str, Any]]:
        if key not in root or root[key] is None:
            return []
        items = self.lst(root[key], path)
        for i, item in enumerate(items):
            self.obj(item, f"{path}[{i}]")
        return items

    # -- top level -------------------------------------------------------------------------------------------
    def bundle(self, data: object) -> CaseBundle:
        root = self.obj(data, "$", "a JSON object at the top level")
        if "format" not in root:
            raise self.fail("$", "missing required key 'format'", hint=f'add "format": "{FORMAT}"')
        fmt = root["format"]
        if fmt != FORMAT:
            raise self.fail("format", f"unsupported format '{show(fmt)}'; this tool reads {FORMAT}")
        captured_at = self.instant(root, "capturedAt", "$")
        clusters = self.optional_objects(root, "clusters", "clusters")
        projects = self.optional_objects(root, "projects", "projects")
        if "workloads" not in root:
            raise self.fail(
                "$", "missing required key 'workloads'", hint="use an empty list for no workloads"
            )
        workloads = self.lst(root["workloads"], "workloads")
        seen: dict[str, int] = {}
        for i, entry in enumerate(workloads):
            wid = self.entry(entry, f"workloads[{i}]")
            if wid in seen:
                raise self.fail(
                    f"workloads[{i}].workload.id",
                    f"duplicate workload id '{show(wid)}' (also workloads[{seen[wid]}])",
                )
            seen[wid] = i
        kubernetes = self.kubernetes(root["kubernetes"], "kubernetes") if "kubernetes" in root else None
        faults = self.faults(root.get("faults"), "faults")
        nodes = self.optional_objects(root, "nodes", "nodes")
        for i, item in enumerate(nodes):
            self.text(item, "name", f"nodes[{i}]")
        return CaseBundle(
            source=self.source,
            captured_at=captured_at,
            clusters=clusters,
            projects=projects,
            workloads=workloads,
            kubernetes=kubernetes,
            faults=faults,
            raw=root,
            nodes=nodes,
        )

    # -- workload entries ------------------------------------------------------------------------------------
    def entry(self, value: object, path: str) -> str:
        entry = self.obj(value, path)
        if "workload" not in entry:
            raise self.fail(path, "missing required key 'workload'")
        wl = self.obj(entry["workload"], f"{path}.workload")
        wpath = f"{path}.workload"
        for key in REQUIRED_WORKLOAD_KEYS:
            if key == "phaseUpdatedAt":
                self.instant(wl, key, wpath)
            else:
                self.text(wl, key, wpath)
        if "events" in entry and entry["events"] is not None:
            events = entry["events"]
            if not isinstance(events, list):
                raise self.fail(f"{path}.events", f"expected a list or null, got {json_type(events)}")
            for j, ev in enumerate(events):
                self.obj(ev, f"{path}.events[{j}]")
        if "spec" in entry and entry["spec"] is not None:
            self.obj(entry["spec"], f"{path}.spec", "an object or null")
        if "pods" in entry:
            for j, pod in enumerate(self.lst(entry["pods"], f"{path}.pods")):
                self.obj(pod, f"{path}.pods[{j}]")
        if "history" in entry:
            for j, rec in enumerate(self.lst(entry["history"], f"{path}.history")):
                rpath = f"{path}.history[{j}]"
                record = self.obj(rec, rpath)
                if "meta" not in record:
                    raise self.fail(rpath, "missing required key 'meta'")
                self.instant(self.obj(record["meta"], f"{rpath}.meta"), "creationTimestamp", f"{rpath}.meta")
        if "metrics" in entry:
            for j, series in enumerate(self.lst(entry["metrics"], f"{path}.metrics")):
                self.series(series, f"{path}.metrics[{j}]")
        # Multi-pod additions (case-format.md): each pod's own series, the v2 document, inference revisions.
        if "podMetrics" in entry and entry["podMetrics"] is not None:
            per_pod = self.obj(entry["podMetrics"], f"{path}.podMetrics", "an object (pod id -> series) or null")
            for pod_id, items in per_pod.items():
                for j, series in enumerate(self.lst(items, f"{path}.podMetrics.{pod_id}")):
                    self.series(series, f"{path}.podMetrics.{pod_id}[{j}]")
        if "specV2" in entry and entry["specV2"] is not None:
            self.obj(entry["specV2"], f"{path}.specV2", "an object or null")
        if "inferenceRevisions" in entry and entry["inferenceRevisions"] is not None:
            for j, item in enumerate(self.lst(entry["inferenceRevisions"], f"{path}.inferenceRevisions")):
                rpath = f"{path}.inferenceRevisions[{j}]"
                revision = self.obj(item, rpath)
                self.obj(revision.get("revision"), f"{rpath}.revision")
                for key in ("pods", "events", "history"):
                    if key in revision and revision[key] is not None:
                        for k, value in enumerate(self.lst(revision[key], f"{rpath}.{key}")):
                            self.obj(value, f"{rpath}.{key}[{k}]")
        return str(wl["id"])

    def series(self, value: object, path: str) -> None:
        series = self.obj(value, path)
        self.text(series, "type", path)
        labels = series.get("labels")
        if labels is not None:
            self.obj(labels, f"{path}.labels", "an object or null")
        values = series.get("values")
        if values is None:
            return
        for k, sample in enumerate(self.lst(values, f"{path}.values")):
            spath = f"{path}.values[{k}]"
            point = self.obj(sample, spath)
            self.instant(point, "timestamp", spath)
            if "value" not in point:
                raise self.fail(spath, "missing required key 'value'")
            if not isinstance(point["value"], str | int | float) or isinstance(point["value"], bool):
                raise self.fail(
                    f"{spath}.value", f"expected a number as a string, got {json_type(point['value'])}"
                )

    # -- kubernetes ------------------------------------------------------------------------------------------
    def kubernetes(self, value: object, path: str) -> dict[str, Any]:
        kube = self.obj(value, path)
        for key in ("pods", "nodes"):
            for j, item in enumerate(self.optional_objects(kube, key, f"{path}.{key}")):
                meta = self.obj(item.get("metadata"), f"{path}.{key}[{j}].metadata")
                self.text(meta, "name", f"{path}.{key}[{j}].metadata")
                if key == "pods":
                    self.text(meta, "namespace", f"{path}.{key}[{j}].metadata")
        self.optional_objects(kube, "events", f"{path}.events")
        for j, log in enumerate(self.optional_objects(kube, "logs", f"{path}.logs")):
            lpath = f"{path}.logs[{j}]"
            for key in ("namespace", "pod", "container"):
                self.text(log, key, lpath)
            if "text" not in log:
                raise self.fail(lpath, "missing required key 'text'")
            if not isinstance(log["text"], str):
                raise self.fail(f"{lpath}.text", f"expected a string, got {json_type(log['text'])}")
            if not isinstance(log.get("previous", False), bool):
                raise self.fail(
                    f"{lpath}.previous", f"expected true or false, got {json_type(log['previous'])}"
                )
        forbidden = kube.get("forbidden")
        if forbidden is not None:
            for j, name in enumerate(self.lst(forbidden, f"{path}.forbidden")):
                if name not in KUBE_RESOURCES:
                    raise self.fail(
                        f"{path}.forbidden[{j}]",
                        f"unknown resource name '{show(name)}'",
                        hint="use pods, pods/log, events or nodes",
                    )
        return kube

    # -- faults ----------------------------------------------------------------------------------------------
    def faults(self, value: object, path: str) -> list[Fault]:
        if value is None:
            return []
        out: list[Fault] = []
        for i, item in enumerate(self.lst(value, path)):
            fpath = f"{path}[{i}]"
            fault = self.obj(item, fpath)
            if "match" not in fault:
                raise self.fail(fpath, "missing required key 'match'")
            parsed = parse_match(fault["match"]) if isinstance(fault["match"], str) else None
            if parsed is None:
                raise self.fail(
                    f"{fpath}.match",
                    f"bad match {show(fault['match'])}",
                    hint='write "<METHOD> <path template>", e.g. "GET /api/v1/workloads/{id}/history"',
                )
            status = self._int(fault, "status", fpath, required=True)
            times = self._int(fault, "times", fpath, required=True)
            assert status is not None and times is not None
            if status != 0 and not 100 <= status <= 599:
                raise self.fail(
                    f"{fpath}.status", f"HTTP status out of range: {status}", hint="use 0 for no answer"
                )
            if times < 0:
                raise self.fail(f"{fpath}.times", f"must not be negative, got {times}")
            delay = self._int(fault, "delayMs", fpath, required=False)
            if delay is not None and delay < 0:
                raise self.fail(f"{fpath}.delayMs", f"must not be negative, got {delay}")
            retry_after = fault.get("retryAfter")
            if retry_after is not None and (
                isinstance(retry_after, bool) or not isinstance(retry_after, int | float) or retry_after < 0
            ):
                raise self.fail(
                    f"{fpath}.retryAfter",
                    f"expected a non-negative number of seconds, got {show(retry_after)}",
                )
            body = fault.get("body")
            if body is not None and not isinstance(body, str):
                raise self.fail(f"{fpath}.body", f"expected a string, got {json_type(body)}")
            kind_problem = check_fault_kind(fault)
            if kind_problem is not None:
                raise self.fail(fpath, kind_problem)
            method, template = parsed
            out.append(
                Fault(
                    method=method,
                    template=template,
                    status=status,
                    times=times,
                    retry_after=float(retry_after) if retry_after is not None else None,
                    delay_ms=delay,
                    body=body,
                    kind=fault.get("kind"),
                    params={k: v for k, v in fault.items() if k in (*PARAMS, "field")},
                )
            )
        return out

    def _int(self, item: dict[str, Any], key: str, path: str, *, required: bool) -> int | None:
        if key not in item or item[key] is None:
            if required:
                raise self.fail(path, f"missing required key '{key}'")
            return None
        value = item[key]
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(
                self.join(path, key), f"expected an integer, got {json_type(value)}: {show(value)}"
            )
        return value
