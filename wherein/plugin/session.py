"""One MCP session of `recall`: its id, usage meter, background work and warm models.

Besides the index job an agent may start, a session fills the configured model's
vector tier in the background (`wherein.index.backfill`) from its first search on,
and keeps the workspace's index resident (`wherein.resident`) between searches.

A session is one connection from a host: for `wherein serve` over stdio, one process. The SDK
exposes no session id on stdio, so one is minted per session unless the host names one in
`WHEREIN_SESSION_ID`, `CLAUDE_CODE_SESSION_ID` (Claude Code sets it in the environment of
the stdio servers it starts, since 2.1.132: the transcript's sessionId, which is what
`wherein statusline` looks the session's rows up by) or `CLAUDE_SESSION_ID`.
"""

from __future__ import annotations

import logging
import os
import threading
import uuid
from collections.abc import Mapping
from pathlib import Path

import anyio

from wherein.backoff import Backoff
from wherein.config import Settings
from wherein.embedding.base import Embedder
from wherein.errors import EmbedderError, WhereinError
from wherein.plugin.jobs import IndexJob
from wherein.plugin.usage import UsageMeter
from wherein.resident import ResidentIndex

__all__ = ["SESSION_ENV", "RecallSession", "session_id"]

logger = logging.getLogger(__name__)

# Checked in this order; the first that is set names the session in usage.jsonl.
SESSION_ENV = ("WHEREIN_SESSION_ID", "CLAUDE_CODE_SESSION_ID", "CLAUDE_SESSION_ID")
MAX_SESSION_ID_CHARS = 128
# A cancelled job stops at its next file or batch of 64 chunks: seconds at most. Past this the
# thread is abandoned (it is a daemon) rather than holding the host's shutdown hostage.
JOB_STOP_TIMEOUT_S = 15.0
# After a background fill fails, the next starts no sooner than this, the wait doubling with
# each failure in a row up to the ceiling: an endpoint that hangs is not asked on every search.
FILL_RETRY_S = 30.0
FILL_RETRY_CEILING_S = 600.0
# After the configured model could not start, searches rank without it this long before the
# next attempt.
EMBEDDER_RETRY_S = 30.0


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
        self._fast_embedders: dict[str, Embedder | None] = {}
        self._embedder_lock = threading.Lock()
        self.resident = ResidentIndex()
        self._backfill: threading.Thread | None = None
        self._backfill_stop = threading.Event()
        self._closed = False
        self.backfill_error: str | None = None
        self._fill_rest = Backoff(FILL_RETRY_S, FILL_RETRY_CEILING_S)
        self._fill_key: str | None = None  # the embedding settings of the last fill
        self._embedder_error: str | None = None  # why the configured model last failed to load
        self._embedder_rest = Backoff(EMBEDDER_RETRY_S, EMBEDDER_RETRY_S)
        self._embedder_failed_key: str | None = None  # the embedding settings it failed for

    def start_index(self, settings: Settings) -> tuple[IndexJob, bool]:
        """Start a background index job, or return the one running; True if started now."""
        if self.job is not None and self.job.running:
            return self.job, False
        self._stop_backfill()  # the job fills the same tier, holding the index throughout
        self.fill_not_needed()  # the job says how its own fill went
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

        key = _embedding_key(settings)
        with self._embedder_lock:
            if key not in self._embedders:
                if self.embedder_resting(settings) is not None:
                    return None  # it failed a moment ago: not asked again yet
                try:
                    self._embedders = {key: create_embedder(settings)}
                except EmbedderError as err:
                    self._embedder_error = str(err)
                    self._embedder_failed_key = key
                    self._embedder_rest.miss()
                    return None
            return self._embedders[key]

    def embedder_resting(self, settings: Settings) -> str | None:
        """Why the configured model is not tried for this search, while it rests after it
        could not start (a probe of a hung endpoint costs each search up to 10 s); else None."""
        left = self._embedder_rest.left()
        if self._embedder_failed_key != _embedding_key(settings) or left <= 0:
            return None
        return (
            f"The configured model could not start: {self._embedder_error} Ranked without its "
            f"vectors; it is tried again in {left:.0f} s."
        )

    def fast_embedder(self, settings: Settings) -> Embedder | None:
        """The fast tier's model, loaded once; None without a fast tier or when it cannot load."""
        from wherein.embedding.registry import create_fast_embedder, fast_tier_identity

        key = str(fast_tier_identity(settings))
        with self._embedder_lock:
            if key not in self._fast_embedders:
                try:
                    self._fast_embedders = {key: create_fast_embedder(settings)}
                except EmbedderError:
                    self._fast_embedders = {key: None}
            return self._fast_embedders[key]

    def start_backfill(self, settings: Settings) -> bool:
        """Fill the configured model's tier in a background thread unless one is running.

        Nothing starts when the configured model is the fast one (searches fill it) or its
        model cannot load (the search says why). Returns True if a thread started now.
        """
        from wherein.embedding.registry import fast_tier_identity

        if self._closed or self.backfill_running() or fast_tier_identity(settings) is None:
            return False
        if self.job is not None and self.job.running:
            return False
        key = _embedding_key(settings)
        if key != self._fill_key:  # another model configured since the last failure
            self.fill_not_needed()
        if self._fill_rest.left() > 0:
            return False  # the last fill failed a moment ago (`backfill_error` says why)
        self._fill_key = key
        self._backfill_stop = threading.Event()
        self._backfill = threading.Thread(
            target=self._run_backfill, args=(settings,), name="wherein-backfill", daemon=True
        )
        self._backfill.start()
        return True

    def _run_backfill(self, settings: Settings) -> None:
        from wherein.index.backfill import backfill_full_tier

        stop = self._backfill_stop
        embedder = self.embedder(settings)  # loads here, so starting never blocks the caller
        if embedder is None:
            self._fill_failed(f"the configured model could not start: {self._embedder_error}")
            return
        try:
            done = backfill_full_tier(self.workspace, embedder, stop, guard=self.resident.lock)
        except WhereinError as err:
            self._fill_failed(str(err))
            return
        except Exception as err:  # a thread's end is silent: say it, as for the errors above
            logger.exception("background fill of recall session %s", self.id)
            self._fill_failed(f"{type(err).__name__}: {err}")
            return
        self.fill_not_needed()
        logger.info("recall session %s embedded %d chunks in the background", self.id, done)

    def fill_not_needed(self) -> None:
        """Forget a failed fill: nothing is left to fill, or an index job or another model
        takes over, so its message and its wait are over."""
        self.backfill_error = None
        self._fill_rest.clear()

    def _fill_failed(self, why: str) -> None:
        """Keep why the fill stopped, and wait longer before the next one after each failure."""
        wait = self._fill_rest.miss()
        self.backfill_error = (
            f"Filling the configured model's vectors stopped: {why} Tried again in {wait:g} s "
            "at the earliest, or by recall action=index."
        )
        logger.warning("%s", self.backfill_error)

    def backfill_running(self) -> bool:
        return self._backfill is not None and self._backfill.is_alive()

    def _stop_backfill(self) -> None:
        """Ask the background fill to stop at its next batch and wait (bounded) for it."""
        self._backfill_stop.set()
        backfill = self._backfill
        if backfill is not None and backfill.is_alive():
            backfill.join(JOB_STOP_TIMEOUT_S)

    async def aclose(self) -> None:
        """Stop the background work of this session and wait (bounded) for it."""
        self._closed = True
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(self._stop_backfill)
        with self.resident.lock:
            self.resident.drop_store()
        job = self.job
        if job is None or not job.running:
            return
        job.cancel("the session ended")
        with anyio.CancelScope(shield=True):
            stopped = await anyio.to_thread.run_sync(job.wait, JOB_STOP_TIMEOUT_S)
        if not stopped:
            logger.warning(
                "Index job %s did not stop within %.0f s; abandoning it", job.id, JOB_STOP_TIMEOUT_S
            )


def _embedding_key(settings: Settings) -> str:
    """The configured embedding settings as one key: a model loaded, or failed, for them."""
    return repr(sorted(settings.section("embedding").items()))
