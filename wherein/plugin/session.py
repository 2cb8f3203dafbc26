"""One MCP session of `recall`: its id, usage meter, background index job and warm embedder.

A session is one connection from a host: for `wherein serve` over stdio, one process. The SDK
exposes no session id on stdio, so one is minted per session unless the host names one in
`WHEREIN_SESSION_ID` or `CLAUDE_SESSION_ID`.
"""

from __future__ import annotations

import logging
import os
import threading
import uuid
from collections.abc import Mapping
from pathlib import Path

import anyio

from wherein.config import Settings
from wherein.embedding.base import Embedder
from wherein.errors import EmbedderError
from wherein.plugin.jobs import IndexJob
from wherein.plugin.usage import UsageMeter

__all__ = ["SESSION_ENV", "RecallSession", "session_id"]

logger = logging.getLogger(__name__)

# Checked in this order; the first that is set names the session in usage.jsonl.
SESSION_ENV = ("WHEREIN_SESSION_ID", "CLAUDE_SESSION_ID")
MAX_SESSION_ID_CHARS = 128
# A cancelled job stops at its next file or batch of 64 chunks: seconds at most. Past this the
# thread is abandoned (it is a daemon) rather than holding the host's shutdown hostage.
JOB_STOP_TIMEOUT_S = 15.0


def session_id(environ: Mapping[str, str] | None = None) -> str:
    """The host's session id from the environment, else a fresh uuid4."""
    env = os.environ if environ is None else environ
    for name in SESSION_ENV:
        value = env.get(name, "").strip()
        if value:
            return value[:MAX_SESSION_ID_CHARS]
    return str(uuid.uuid4())


class RecallSession:
    """State that lives as long as the host's connection, and nothing longer."""

    def __init__(self, workspace: Path, session: str | None = None) -> None:
        self.workspace = workspace
        self.id = session or session_id()
        self.meter = UsageMeter(self.id)
        self.job: IndexJob | None = None
        self._job_reported = True
        self._embedders: dict[str, Embedder] = {}
        self._embedder_lock = threading.Lock()

    def start_index(self, settings: Settings) -> tuple[IndexJob, bool]:
        """Start a background index job, or return the one running; True if started now."""
        if self.job is not None and self.job.running:
            return self.job, False
        self.job = IndexJob(self.workspace, settings).start()
        self._job_reported = False
        return self.job, True

    def job_news(self) -> IndexJob | None:
        """The job whose end this session has not been told of yet, once; else None."""
        if self.job is None or self.job.running or self._job_reported:
            return None
        self._job_reported = True
        return self.job

    def mark_job_reported(self) -> None:
        if self.job is not None and not self.job.running:
            self._job_reported = True

    def embedder(self, settings: Settings) -> Embedder | None:
        """A loaded embedder for these settings, reused across calls (the model loads once).

        Returns None when it cannot start: the search then reports why and ranks by keywords.
        """
        from wherein.embedding.registry import create_embedder

        key = repr(sorted(settings.section("embedding").items()))
        with self._embedder_lock:
            if key not in self._embedders:
                try:
                    self._embedders = {key: create_embedder(settings)}
                except EmbedderError:
                    return None
            return self._embedders[key]

    async def aclose(self) -> None:
        """Cancel this session's index job and wait (bounded) for it to stop."""
        job = self.job
        if job is None or not job.running:
            return
        job.cancel("the session ended")
        with anyio.CancelScope(shield=True):
            stopped = await anyio.to_thread.run_sync(job.wait, JOB_STOP_TIMEOUT_S)
        if not stopped:
            logger.warning("Index job %s did not stop within %.0f s; abandoning it", job.id,
                           JOB_STOP_TIMEOUT_S)  # fmt: skip
