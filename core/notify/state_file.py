"""The file a watch keeps its ledger in (`--state`): written so that nothing it recorded is lost.

- One writer: `lock()` takes an exclusive lock on `<file>.lock` for as long as the watch runs (fcntl.flock, so
  the kernel lets go when the process dies, even by SIGKILL). A second watch on the same file is refused, and
  told which process holds it.
- Atomic writes: each save writes a temporary file of its own (a unique name beside the file), flushes it to
  disk, and renames it over the file, so a reader sees the old content or the new, never a half. Before that,
  the old file is kept as `<file>.bak` (a hard link, so no moment passes without a file).
- Reading: a file that cannot be read (truncated, not JSON, not a watch state, too large) is never overwritten.
  When `<file>.bak` can be read, the watch goes on from it and the bad file is kept aside under a name that says
  so; when it cannot, the watch refuses to start (`StateUnreadable`) and changes nothing. An empty file holds no
  record, so it is read as a fresh start (or its `.bak`, when there is one). A file of a newer version is refused
  (`StateTooNew`): this version would drop what it does not know.
- `prepare()` checks, before anything is delivered, that the file can be written where it is: a directory, or a
  place this user cannot write, is a usage error (`StateUnusable`) rather than a warning at every delivery.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from core.usage import Opt, Worded

try:
    import fcntl
except ImportError:  # pragma: no cover - not on POSIX: no lock (said in the README)
    fcntl = None  # type: ignore[assignment]

MAX_BYTES = 16 * 1024 * 1024
_SCHEMA = re.compile(r"^runai-triage/watch-state@(\d{1,4})$")
# The option that names the file, as data: the command line says it as its flag (`worded`), plain words as a file.
STATE = Opt("state", plainly="the state file")


class StateProblem(Worded):
    """The state file cannot be used; `usage`: the option is wrong (exit 2), not the run (exit 1). Its message
    names the option as data (`worded`)."""

    usage = False


class StateUnusable(StateProblem):
    usage = True


class StateLocked(StateProblem):
    pass


class StateTooNew(StateProblem):
    pass


class StateUnreadable(StateProblem):
    pass


@dataclass(frozen=True, slots=True)
class Loaded:
    """What was read: the document (None for a fresh start), its version, and what is worth saying about it."""

    data: dict[str, Any] | None
    version: int | None = None
    note: str | None = None


class StateFile:
    def __init__(self, path: Path, versions: tuple[int, ...]) -> None:
        self.path = path
        self.backup = path.with_name(path.name + ".bak")
        self.lock_path = path.with_name(path.name + ".lock")
        self.versions = versions
        self._lock: TextIO | None = None

    # -- before the watch starts ---------------------------------------------------------------------------
    def prepare(self) -> None:
        """Raise StateUnusable when the file cannot be kept where it is."""
        if self.path.is_dir():
            raise StateUnusable(STATE, f" {self.path} is a directory: give the path of a file (it is created)")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, probe = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".probe")
            os.close(fd)
            os.unlink(probe)
        except OSError as exc:
            raise StateUnusable(
                STATE, f" {self.path}: cannot write there ({exc.strerror or exc}); give a file in a directory this "
                "user can write"
            ) from None
        if self.path.exists() and not os.access(self.path, os.R_OK):
            raise StateUnusable(STATE, f" {self.path}: this user cannot read it")

    def lock(self) -> None:
        """Hold the file for this process alone, until `unlock` or the process ends; StateLocked otherwise."""
        if fcntl is None:
            return
        handle = open(self.lock_path, "a+", encoding="utf-8")  # noqa: SIM115 - held for the watch's life
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            holder = handle.read(40).strip()
            handle.close()
            who = f" (process {holder})" if holder.isdigit() else ""
            raise StateLocked(
                f"{self.path} is in use by another watch{who}: two watches on one state file would deliver every "
                "failure twice. Stop the other one, or give this one its own ", Opt("state"), " file."
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        self._lock = handle

    def unlock(self) -> None:
        if self._lock is not None:
            self._lock.close()  # closing the descriptor releases the lock
            self._lock = None

    # -- reading -------------------------------------------------------------------------------------------
    def load(self) -> Loaded:
        """The document in the file, recovered from its `.bak` when the file itself cannot be read."""
        if not self.path.exists():
            return Loaded(None)
        found = self._read(self.path)
        if isinstance(found, Loaded):
            return found
        problem = found
        backup = self._read(self.backup) if self.backup.exists() else "there is no earlier copy"
        if isinstance(backup, Loaded) and backup.data is not None:
            aside = self._set_aside(problem)
            note = (f"{self.path} could not be read ({problem}); it is kept as {aside.name}, and the watch goes on "
                    f"from the copy saved before it ({self.backup.name}): the deliveries recorded after that copy "
                    "may be made again")
            return Loaded(backup.data, backup.version, note)
        if problem == "it is empty":
            return Loaded(None, note=f"{self.path} was empty: starting afresh")
        why = backup if isinstance(backup, str) else "the earlier copy is empty"
        raise StateUnreadable(
            f"{self.path} could not be read ({problem}), and {self.backup.name} cannot replace it ({why}). It was "
            "left as it is: move it aside to start afresh (what it recorded may then be delivered again), or "
            "give another ", Opt("state"), " file."
        )

    def _read(self, path: Path) -> Loaded | str:
        """The document, or why it cannot be read. A newer version raises StateTooNew."""
        try:
            size = path.stat().st_size
            if size > MAX_BYTES:
                return f"it is larger than {MAX_BYTES // (1024 * 1024)} MiB"
            if size == 0:
                return "it is empty"
            data = json.loads(path.read_bytes().decode("utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            return f"{type(exc).__name__}: {str(exc)[:120]}"
        schema = data.get("schema") if isinstance(data, dict) else None
        matched = _SCHEMA.match(schema) if isinstance(schema, str) else None
        if matched is None:
            return "it is not a runai-triage watch state"
        version = int(matched.group(1))
        if version > max(self.versions):
            raise StateTooNew(
                f"{path} was written by a newer runai-triage ({schema}); this one reads versions up to "
                f"{max(self.versions)}, and would lose what it does not know. Run the newer version, or give this "
                "watch another ", Opt("state"), " file."
            )
        if version not in self.versions:
            return f"version {version} is not one this runai-triage reads"
        return Loaded(data, version)

    def _set_aside(self, problem: str) -> Path:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        aside = self.path.with_name(f"{self.path.name}.unreadable-{stamp}-{os.getpid()}")
        with contextlib.suppress(OSError):
            os.replace(self.path, aside)
        return aside

    # -- writing -------------------------------------------------------------------------------------------
    def save(self, data: dict[str, Any]) -> str | None:
        """Write the document atomically, the old file kept as `.bak`; returns why it could not be, or None."""
        text = json.dumps(data, separators=(",", ":"), ensure_ascii=False) + "\n"
        parent = self.path.parent
        scratch: str | None = None
        try:
            fd, scratch = tempfile.mkstemp(dir=parent, prefix=f".{self.path.name}.", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
                out.flush()
                os.fsync(out.fileno())
            if self.path.exists():
                self._keep_old(scratch)
            os.replace(scratch, self.path)
            scratch = None
            _sync_directory(parent)
        except OSError as exc:
            return f"the watch's state could not be written to {self.path}: {exc.strerror or exc}"
        finally:
            if scratch is not None:
                with contextlib.suppress(OSError):
                    os.unlink(scratch)
        return None

    def _keep_old(self, scratch: str) -> None:
        """The file as it is becomes `.bak`: linked under a unique name, then renamed over the old `.bak`."""
        linked = scratch + ".bak"
        try:
            os.link(self.path, linked)
        except OSError:  # a file system without hard links: a copy
            Path(linked).write_bytes(self.path.read_bytes())
        os.replace(linked, self.backup)


def _sync_directory(path: Path) -> None:
    # The rename is durable once the directory is: a crash right after a save keeps the new file.
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
