"""A signal that a later event took back is history, not the cause.

The seed classifies the terminal failure. A failure signal that something later took back did not end the
workload: a pull error (Docker Hub's 429) followed by the image pulled and the container started, a mount that
failed and then mounted, an init container that failed once and then completed, a node NotReady that was Ready
again before the pod started, a preemption after which the workload was requeued and ran again. One rule covers
them all: a signal is superseded when a later mark about the same object (core/diagnosis/marks.py) shows the
step it blocked done, before the failure being diagnosed. A mark after that failure takes nothing back (a node
Ready again after it killed the pod does not clear it), and a signal or mark with no time decides nothing here.

What is superseded stays cited, and the report says it as history: what it was, when, what took it back and
how long the run that followed lasted (`Resolved`, `history_items`).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from core.diagnosis.history_analysis import Occurrence
from core.diagnosis.marks import Mark, Step
from core.diagnosis.observations import Observation
from core.diagnosis.signals import SignalKind

K = SignalKind
# The kills a preemption brings (SIGTERM, then SIGKILL after the grace period): part of the run it ended. The
# scheduler's event and the kubelet's kill are a few seconds apart either way round.
_PREEMPTION_KILLS = frozenset({K.SIGTERMED, K.SIGKILLED})
_KILL_SLACK = timedelta(minutes=2)
_CONFIG_REASONS = frozenset({"createcontainerconfigerror", "createcontainererror"})


def blocked_step(obs: Observation) -> Step | None:
    """The step of the pod's (or workload's) start that the signal says did not get done; None for a signal
    that blocks no step (an exit, an OOM kill, an eviction: they end a run, and the last one decides)."""
    kind, sig = obs.kind, obs.signal
    if kind is K.PREEMPTED:
        return Step.RUNNING
    if kind is K.IMAGE_PULL:
        return Step.INIT_DONE if sig.init else Step.PULLED
    if kind is K.MOUNT_FAILED:
        return Step.CREATED if (sig.reason or "").lower() in _CONFIG_REASONS else Step.MOUNTED
    if kind is K.CREATE_CONTAINER_CONFIG_ERROR:
        return Step.INIT_DONE if sig.init else Step.CREATED
    if kind is K.INIT_FAILED:
        return Step.INIT_DONE
    if kind is K.START_ERROR:
        return Step.INIT_DONE if sig.init else Step.STARTED
    if kind is K.SANDBOX_FAILED:
        return Step.SANDBOX
    if kind is K.NODE_NOT_READY:
        return Step.NODE_READY
    return None


def _image_key(image: str) -> str:
    """`python:3.12`, `docker.io/library/python:3.12` and `index.docker.io/library/python:3.12` alike."""
    text = image.strip().lower()
    for prefix in ("docker.io/", "index.docker.io/", "registry-1.docker.io/"):
        if text.startswith(prefix):
            text = text[len(prefix) :]
            if "/" not in text.split(":", 1)[0].split("@", 1)[0] or text.startswith("library/"):
                text = text.removeprefix("library/")
            break
    name = text.split("@", 1)[0]
    if ":" not in name.rsplit("/", 1)[-1] and "@" not in text:
        text += ":latest"
    return text


def _same_pod(mark: Mark, obs: Observation) -> bool:
    return mark.pod is None or obs.pod is None or mark.pod == obs.pod


def _same_container(mark: Mark, obs: Observation) -> bool:
    a, b = mark.container, obs.signal.container
    return a is None or b is None or a == b


def _image_of(obs: Observation) -> str | None:
    resource = obs.signal.resource
    if obs.kind is K.IMAGE_PULL and resource:
        return resource
    return None


def _repository(key: str) -> str:
    """`python:3.12`, `python@sha256:...` -> `python` (a port in the registry host is kept)."""
    name = key.split("@", 1)[0]
    head, _, last = name.rpartition("/")
    return f"{head}/{last.split(':', 1)[0]}" if head else last.split(":", 1)[0]


def _same_image(mark: Mark, obs: Observation) -> bool | None:
    """Whether the mark's image is the one the pull failed for (a digest and a tag of one repository alike, as a
    runtime reports the image it resolved); None when either is not known."""
    image = _image_of(obs)
    if image is None or mark.image is None:
        return None
    a, b = _image_key(image), _image_key(mark.image)
    if a == b:
        return True
    return ("@" in a or "@" in b) and _repository(a) == _repository(b)


def resolves(mark: Mark, obs: Observation, step: Step) -> bool:
    """Whether `mark` (already known to be later) shows done the step `obs` blocked, for the same object."""
    if step is Step.RUNNING:  # a preemption: the workload (any of its pods) ran again
        return mark.step in (Step.STARTED, Step.RUNNING)
    if mark.step is Step.RUNNING:  # the workload ran: every pod got past its start
        return True
    if step is Step.NODE_READY:
        if mark.step is Step.NODE_READY:
            return obs.node is not None and mark.node == obs.node
        same = (obs.pod is not None and mark.pod == obs.pod) or (obs.node is not None and mark.node == obs.node)
        return mark.step >= Step.STARTED and same
    if not _same_pod(mark, obs) or mark.step is Step.NODE_READY:
        return False
    if step in (Step.MOUNTED, Step.SANDBOX):
        return mark.step >= step
    image = _same_image(mark, obs)
    main = mark.init is not True  # a main container's mark, or one whose kind of container is not known
    if step is Step.INIT_DONE:
        return _init_done(mark, obs, image)
    if step is Step.PULLED:
        if mark.step is Step.PULLED:
            return image is not False
        if mark.step in (Step.CREATED, Step.STARTED) and main:
            return image is True or (image is None and _same_container(mark, obs))
        return False
    if step is Step.CREATED:
        return mark.step in (Step.CREATED, Step.STARTED) and main and _same_container(mark, obs)
    if step is Step.STARTED:
        return mark.step is Step.STARTED and main and _same_container(mark, obs)
    return False


def _init_done(mark: Mark, obs: Observation, image: bool | None) -> bool:
    """An init container's failure is taken back by its completion, by its image pulled (a pull failure), by a
    main container created or started (they start only once every init container completed), or by another
    container started after it (init containers run one after another)."""
    failed = obs.signal.container
    if mark.step is Step.INIT_DONE:
        return mark.container is None or failed is None or mark.container == failed
    if mark.step is Step.PULLED:
        return obs.kind is K.IMAGE_PULL and image is True
    if mark.step < Step.CREATED:
        return False
    if mark.init is False:
        return True
    return mark.container is not None and failed is not None and mark.container != failed


@dataclass(frozen=True, slots=True)
class Resolved:
    """A signal taken back: the step it blocked and the first later mark that shows that step done."""

    obs: Observation
    step: Step
    mark: Mark


@dataclass(frozen=True, slots=True)
class Supersession:
    kept: tuple[Observation, ...]  # what the verdict may rest on
    resolved: tuple[Resolved, ...]  # history: signals a later event took back
    marks: tuple[Mark, ...] = ()  # the marks weighed (the report reads how long the last run lasted from them)

    @property
    def superseded(self) -> bool:
        return bool(self.resolved)


NOTHING = Supersession((), ())


def supersede(observations: Iterable[Observation], marks: Iterable[Mark], end: datetime | None) -> Supersession:
    """The observations split into those that stand and those a later mark (no later than `end`, the failure
    being diagnosed; None: no bound) took back."""
    usable = sorted((m for m in marks if end is None or m.at <= end), key=lambda m: m.at)
    times = [m.at for m in usable]
    kept: list[Observation] = []
    resolved: list[Resolved] = []
    for obs in observations:
        step = blocked_step(obs)
        mark = None
        if step is not None and obs.at is not None:
            start = bisect.bisect_right(times, obs.at)
            mark = next((m for m in usable[start:] if resolves(m, obs, step)), None)
        if mark is None or step is None:
            kept.append(obs)
        else:
            resolved.append(Resolved(obs, step, mark))
    preempted = [r for r in resolved if r.step is Step.RUNNING]
    if preempted:
        kept, resolved = _with_preemption_kills(kept, resolved, preempted)
    return Supersession(tuple(kept), tuple(resolved), tuple(usable))


def _with_preemption_kills(
    kept: list[Observation], resolved: list[Resolved], preempted: Sequence[Resolved]
) -> tuple[list[Observation], list[Resolved]]:
    """The kills a resolved preemption brought (between it and the resume) go into history with it."""
    still: list[Observation] = []
    for obs in kept:
        cause = None
        if obs.kind in _PREEMPTION_KILLS and obs.at is not None:
            cause = next(
                (p for p in preempted if p.obs.at is not None and p.obs.at - _KILL_SLACK <= obs.at < p.mark.at), None
            )
        if cause is None:
            still.append(obs)
        else:
            resolved.append(Resolved(obs, Step.RUNNING, cause.mark))
    return still, resolved


def standing(occurrence: Occurrence) -> list[Observation]:
    """An occurrence's own signals less what a later event in it took back, before it ended."""
    return list(supersede(occurrence.observations, occurrence.marks, occurrence.end).kept)


def resolved_texts(sup: Supersession) -> set[tuple[str, str]]:
    """The citations (text, source) of the signals taken back that no standing signal shares: what the report
    shows as history rather than as evidence of the failure."""
    standing = {(o.text, o.source) for o in sup.kept}
    return {(r.obs.text, r.obs.source) for r in sup.resolved} - standing
