"""Background index jobs: one thread per job, owned by the session that started it.

A job is cancelled through `build_index`'s progress callback, which raises `JobCancelled` at
the next file or embedding batch. The index stays consistent because its writes are
transactional: a cancelled job keeps what it committed, and the next run resumes from there.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wherein.config import Settings
from wherein.errors import WhereinError
from wherein.indexing import IndexSummary, build_index

__all__ = ["IndexJob", "JobCancelled"]

logger = logging.getLogger(__name__)

BuildIndex = Callable[..., IndexSummary]


class JobCancelled(Exception):  # noqa: N818 - a signal, not an error shown to anyone
    """Raised inside the job's thread to stop it at the next safe point."""


class IndexJob:
    """One run of `build_index` in a thread, with its progress as plain counters."""

    def __init__(
        self, workspace: Path, settings: Settings, build: BuildIndex = build_index
    ) -> None:
        self.id = uuid.uuid4().hex[:12]
        self.workspace = workspace
        self._settings = settings
        self._build = build
        self._lock = threading.Lock()
        self._cancel = threading.Event()
        self._finished = threading.Event()
        self._started = time.monotonic()
        self._ended: float | None = None
        self.state = "running"  # running | done | failed | cancelled
        self.stage = "starting"  # starting | scan | embed | finished
        self.files_done = self.files_total = 0
        self.chunks_done = self.chunks_total = 0
        self.summary: str | None = None
        self.error: str | None = None
        self._thread = threading.Thread(
            target=self._run, name=f"wherein-index-{self.id}", daemon=True
        )

    def start(self) -> IndexJob:
        self._thread.start()
        return self

    @property
    def running(self) -> bool:
        return not self._finished.is_set()

    def cancel(self, reason: str) -> None:
        """Ask the job to stop at its next file or batch."""
        if self.running:
            self._cancel.set()
            logger.info("Cancelling index job %s of %s: %s", self.id, self.workspace, reason)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job ends; True if it did within `timeout`."""
        return self._finished.wait(timeout)

    def _progress(self, stage: str, done: int, total: int) -> None:
        """Record what is committed, then stop here if asked: the next step is not begun.

        Only the stages the tool's schema names are recorded: "model" (the configured model
        starting) is the CLI's bar, and the job stays at the stage before it meanwhile.
        """
        with self._lock:
            if stage == "scan":
                self.stage = stage
                self.files_done, self.files_total = done, total
            elif stage in ("fast", "embed"):
                self.stage = stage
                self.chunks_done, self.chunks_total = done, total
        if self._cancel.is_set():
            raise JobCancelled

    def _run(self) -> None:
        try:
            summary = self._build(
                self.workspace, self._settings, wait=False, progress=self._progress
            )
        except JobCancelled:
            self._end("cancelled", error="Cancelled: the session that started it ended.")
            logger.info("Index job %s cancelled after %d chunks", self.id, self.chunks_done)
        except WhereinError as err:
            self._end("failed", error=str(err))
        except Exception as err:  # noqa: BLE001 - a thread has no caller to re-raise to
            logger.exception("Index job %s failed", self.id)
            self._end("failed", error=f"{type(err).__name__}: {err}. This is a bug in wherein.")
        else:
            self._end("done", summary=summary.line())
            logger.info("Index job %s done: %s", self.id, summary.line())

    def _end(self, state: str, summary: str | None = None, error: str | None = None) -> None:
        with self._lock:
            self.state = state
            self.stage = "finished"
            self.summary = summary
            self.error = error
            self._ended = time.monotonic()
        self._finished.set()

    def snapshot(self, state: str | None = None) -> dict[str, Any]:
        """The `job` block of a result; `state` overrides the reported state ("started")."""
        with self._lock:
            end = self._ended if self._ended is not None else time.monotonic()
            return {
                "id": self.id,
                "state": state or self.state,
                "stage": self.stage,
                "files_done": self.files_done,
                "files_total": self.files_total,
                "chunks_done": self.chunks_done,
                "chunks_total": self.chunks_total,
                "elapsed_s": round(end - self._started, 2),
                "summary": self.summary,
                "error": self.error,
            }

    def describe(self) -> str:
        """One sentence on where the job stands."""
        s = self.snapshot()
        if s["state"] == "done":
            return f"Index job {s['id']} finished: {s['summary']}."
        if s["state"] in ("failed", "cancelled"):
            return f"Index job {s['id']} {s['state']}: {s['error']}"
        if s["stage"] == "fast":
            where = f"fast-tier vectors {s['chunks_done']}/{s['chunks_total']}"
        elif s["stage"] == "embed":
            where = f"embedding chunks {s['chunks_done']}/{s['chunks_total']}"
        elif s["stage"] == "scan":
            where = f"reading files {s['files_done']}/{s['files_total']}"
        else:
            where = "starting"
        return f"Index job {s['id']} is running: {where}, {s['elapsed_s']:.0f} s so far."
