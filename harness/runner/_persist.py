"""The run directory as durable state (X-81, O-1): written as things happen, read on ``--resume``.

    DIR/run.json            the plan's sha256, id and path, the models: what a resume must match
    DIR/plan.json           the plan as it ran (every default filled in): what ``harness rescore`` compares with
    DIR/trials.jsonl        one TrialRecord per line, appended the moment a trial ends
    DIR/calls.jsonl         one line per settled model call: the budget a resume restores
    DIR/store.sqlite        the durable session store of every trial (SqliteStore)
    DIR/transcripts/<group>/<stage>/<repeat>[~<attempt>].jsonl   one line per provider request/response
    DIR/run.lock            the OS lock of the process running in DIR (``_lock``)

Lines are flushed as they are written, so a killed process loses at most the trial it was running,
and fsynced by a thread of this directory (``_Syncer``) right after, so the event loop that runs the
trials never waits on the disk (Q-3: one fsync per model call took as long as the calls' ideal wall
time); a torn last line (killed mid-write) is ignored on read and cut off before the next append.

Every attempt of a trial keeps its own record and transcript: an id is written once, except by a
``skipped`` placeholder (a trial or retry the runner never started, so it has no transcript), which
the attempt that later runs under its id supersedes (the last line of an id wins). A write the disk
refuses raises ``StorageError`` naming this directory (``_storage``).
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from pydantic import BaseModel, ValidationError

from harness.results._records import TrialRecord, transcript_name
from harness.results._transcripts import write_transcript_lines
from protocols import InvalidInput
from protocols._text import json_text

from ._budget import Spent
from ._storage import StorageError, storage_problem

MANIFEST = "run.json"
TRIALS = "trials.jsonl"
CALLS = "calls.jsonl"
STORE = "store.sqlite"
PLAN = "plan.json"
RENDERED = "rendered"
"""The prompts a local server rendered for the preflight, one file per group and request."""


class ResumeRefused(InvalidInput):
    """``--resume`` on a directory that is not this plan's run (exit 2)."""


class RunDir:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._trials: IO[str] | None = None
        self._calls: IO[str] | None = None
        self._syncer = _Syncer()

    @property
    def store_path(self) -> Path:
        return self.path / STORE

    # creating and resuming -----------------------------------------------------------------------
    def create(self, manifest: dict[str, Any]) -> None:
        if (self.path / MANIFEST).exists():
            raise ResumeRefused(f"{self.path} already holds a run; pass --resume {self.path} to continue it, "
                                "or choose another --out")
        with self._writing():
            self.path.mkdir(parents=True, exist_ok=True)
            _write_json(self.path / MANIFEST, manifest)

    def write_plan(self, plan: BaseModel) -> None:
        with self._writing():
            _write_json(self.path / PLAN, plan.model_dump(mode="json", by_alias=True))

    def write_rendered(self, prompts: dict[str, str]) -> None:
        """``rendered/<group>.<request>.txt``: each prompt the local server rendered before the run (P-80)."""
        if not prompts:
            return
        with self._writing():
            folder = self.path / RENDERED
            folder.mkdir(exist_ok=True)
            for name, prompt in prompts.items():
                safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
                (folder / f"{safe}.txt").write_text(prompt, encoding="utf-8")

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """An ``OSError`` of the disk (full, read-only) as a ``StorageError`` naming this directory."""
        try:
            yield
        except OSError as exc:
            if not storage_problem(exc):
                raise
            raise StorageError(self.path, exc) from None

    def manifest(self) -> dict[str, Any]:
        try:
            data = json.loads((self.path / MANIFEST).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ResumeRefused(f"{self.path} is not a run directory (no {MANIFEST})") from None
        except (OSError, json.JSONDecodeError) as exc:
            raise ResumeRefused(f"{self.path / MANIFEST} cannot be read: {exc}") from None
        if not isinstance(data, dict):
            raise ResumeRefused(f"{self.path / MANIFEST} is not a JSON object")
        return data

    def check_resume(self, plan_sha256: str) -> dict[str, Any]:
        """The stored manifest, or ``ResumeRefused`` when the plan differs (X-5, X-81)."""
        manifest = self.manifest()
        if manifest.get("planSha256") != plan_sha256:
            raise ResumeRefused(
                f"{self.path} ran plan sha256 {manifest.get('planSha256')}, this plan is {plan_sha256}: "
                "a run never mixes two plans (X-5); start a new run instead")
        return manifest

    def update_manifest(self, **changes: Any) -> None:
        manifest = self.manifest()
        manifest.update(changes)
        with self._writing():
            _write_json(self.path / MANIFEST, manifest)

    # records -------------------------------------------------------------------------------------
    def records(self) -> list[TrialRecord]:
        """Every attempt recorded, in the order written; a placeholder superseded by the attempt
        that later ran under its id is dropped (the last line of an id wins)."""
        by_id: dict[str, TrialRecord] = {}
        for line in _lines(self.path / TRIALS):
            try:
                record = TrialRecord.model_validate_json(line)
            except ValidationError:
                continue  # a torn last line from a killed process
            by_id.pop(record.id, None)
            by_id[record.id] = record
        return list(by_id.values())

    def _call_records(self) -> Iterator[dict[str, Any]]:
        """calls.jsonl's readable records (a torn last line is skipped)."""
        for line in _lines(self.path / CALLS):
            try:
                call = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(call, dict):
                yield call

    def spent(self) -> Spent:
        """The budget used by every call this run already made (X-81), from calls.jsonl."""
        spent = Spent()
        for call in self._call_records():
            spent.wallSeconds = max(spent.wallSeconds, float(call.get("wallSeconds", 0.0)))
            if call.get("cached"):  # served from the response cache: nothing was spent
                spent.cachedResponses += 1
                continue
            spent.llmCalls += 1
            spent.usd += float(call.get("usd", 0.0))
            spent.inputTokens += int(call.get("inputTokens", 0))
            spent.cachedInputTokens += int(call.get("cachedInputTokens", 0))
            spent.outputTokens += int(call.get("outputTokens", 0))
        spent.wallSeconds = max(spent.wallSeconds, self._reported_wall_seconds())
        return spent

    def _reported_wall_seconds(self) -> float:
        """The wall time the last process reported (report.json) ran on after its last call; 0 if unknown."""
        try:
            report = json.loads((self.path / "report.json").read_text(encoding="utf-8"))
            return float(report["budget"]["spent"]["wallSeconds"])
        except (OSError, ValueError, KeyError, TypeError):
            return 0.0

    def calibration(self) -> dict[str, float]:
        """model → the largest reported / estimated input-token ratio among this run's calls so far
        (calls.jsonl), so a resumed run reserves as the stopped one had learnt to (``BudgetLedger``)."""
        ratios: dict[str, float] = {}
        for call in self._call_records():
            try:
                model, reported, estimate = call["model"], int(call["inputTokens"]), int(call["estimatedInputTokens"])
            except (KeyError, TypeError, ValueError):
                continue
            if call.get("usage") == "provider" and not call.get("cached") and reported > 0 and estimate > 0:
                ratios[model] = max(1.0, reported / estimate, ratios.get(model, 1.0))
        return ratios

    def append_record(self, record: TrialRecord) -> None:
        with self._writing():
            self._syncer.check()
            if self._trials is None:
                self._trials = _open_append(self.path / TRIALS)
            try:
                _append(self._trials, record.model_dump_json())
            except OSError:
                _drop(self._trials)
                self._trials = None
                raise
            self._syncer.dirty(self._trials)

    def append_call(self, call: dict[str, Any]) -> None:
        with self._writing():
            self._syncer.check()
            if self._calls is None:
                self._calls = _open_append(self.path / CALLS)
            try:
                _append(self._calls, _encode_call(call))
            except OSError:
                _drop(self._calls)
                self._calls = None
                raise
            self._syncer.dirty(self._calls)

    def transcript_attempts(self, group: str, stage: str, repeat: int) -> list[int]:
        """The attempts of a repeat that have a transcript on disk, with or without a record (a
        process killed between the two leaves a transcript only): their ids are not reused."""
        folder = self.path / "transcripts" / group / stage
        out = []
        for path in folder.glob(f"{repeat}*.jsonl") if folder.is_dir() else []:
            head, _, attempt = path.stem.partition("~")
            if head == str(repeat) and (attempt == "" or attempt.isdigit()):
                out.append(int(attempt or 0))
        return out

    def write_transcript(self, record: TrialRecord, snapshots: list[bytes]) -> Path:
        """One line per provider request/response of the trial: each snapshot's JSON text as the store
        holds it (already redacted by the engine), given in UTF-8, with ``trialId`` first, never decoded
        again (``write_transcript_lines``)."""
        path = self.path / transcript_name(record)
        tmp = path.with_suffix(".jsonl.tmp")
        with self._writing():
            path.parent.mkdir(parents=True, exist_ok=True)
            try:
                with tmp.open("wb") as fh:
                    write_transcript_lines(fh, record.id, snapshots)
                os.replace(tmp, path)
            except OSError:
                tmp.unlink(missing_ok=True)  # a full disk keeps no half transcript
                raise
        return path

    def close(self) -> None:
        """Wait for the last fsync, then close the files. A failed fsync raises ``StorageError``."""
        try:
            with self._writing():
                self._syncer.stop()
        finally:
            for fh in (self._trials, self._calls):
                if fh is not None:
                    _drop(fh)
            self._trials = self._calls = None


class _Syncer:
    """fsyncs the appended files on a thread of its own: a batch of lines costs one fsync per file, and
    the caller (the event loop) never waits for the disk. ``stop`` waits until everything written is
    synced; an fsync's ``OSError`` is raised by the next ``check`` or by ``stop``.

    Group commit: the first line after a quiet spell is synced at once; lines written while a sync runs
    or within ``window_s`` after it wait for the next one, so a busy run wakes this thread at most once per
    window instead of once per line (each wake-up took the GIL from the event loop: Q-3 measured 0.5 to
    0.8 ms per model call in ``notify``). Every line is flushed to the OS when written (``_append``); the
    window only delays its fsync."""

    def __init__(self, window_s: float = 0.05) -> None:
        self._pending: dict[int, IO[str]] = {}
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._idle = False
        """The thread waits for work (a ``dirty`` must wake it), rather than sitting out its window."""
        self._error: OSError | None = None
        self.window_s = window_s
        self.wakeups = 0
        """How often ``dirty`` woke the thread (tests: a burst of lines wakes it once)."""

    def dirty(self, fh: IO[str]) -> None:
        with self._cond:
            self._pending[id(fh)] = fh
            if self._thread is None:
                self._stopping = False
                self._thread = threading.Thread(target=self._run, name="run-dir-fsync", daemon=True)
                self._thread.start()
            elif self._idle:
                self._idle = False
                self.wakeups += 1
                self._cond.notify_all()

    def check(self) -> None:
        if self._error is None:  # read without the lock: an error set meanwhile is raised by the next check
            return
        with self._cond:
            error, self._error = self._error, None
        if error is not None:
            raise error

    def stop(self) -> None:
        with self._cond:
            thread, self._stopping = self._thread, True
            self._cond.notify_all()
        if thread is not None:
            thread.join()
        with self._cond:
            self._thread = None
        self.check()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._pending and not self._stopping:
                    self._idle = True
                    self._cond.wait()
                self._idle = False
                if not self._pending:
                    return
                batch = list(self._pending.values())
                self._pending.clear()
            for fh in batch:
                try:
                    os.fsync(fh.fileno())
                except ValueError:  # closed meanwhile (a failed write dropped it): nothing left to sync
                    pass
                except OSError as exc:
                    with self._cond:
                        self._error = self._error or exc
            with self._cond:  # sit out the window: what is written meanwhile shares the next fsync
                if not self._stopping:
                    self._cond.wait(self.window_s)


_encode_call = json_text
"""A calls.jsonl line: ``json.dumps(call, ensure_ascii=False)``, by the encoder ``json_text`` keeps."""


def _open_append(path: Path) -> IO[str]:
    """Open a JSON-lines file for appending, first dropping a torn last line (a killed process's
    half-written record): appended after it, the next record would share its line and be lost."""
    try:
        with path.open("rb+") as fh:
            data = fh.read()
            if data and not data.endswith(b"\n"):
                fh.truncate(data.rfind(b"\n") + 1)
                fh.flush()
                os.fsync(fh.fileno())
    except FileNotFoundError:
        pass
    return path.open("a", encoding="utf-8")


def _drop(fh: IO[str]) -> None:
    """Close a file a write failed on: the next append reopens it and first cuts the torn line."""
    try:
        fh.close()
    except OSError:
        pass


def _append(fh: IO[str], line: str) -> None:
    """Write and flush one line (the ``_Syncer`` fsyncs it)."""
    fh.write(line + "\n")
    fh.flush()


def _lines(path: Path) -> list[str]:
    try:
        return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except FileNotFoundError:
        return []


def _write_json(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
