"""Build or refresh the history index from this user's transcripts, incrementally.

Per conversation (one transcript file): an unchanged size and mtime is skipped without reading;
an unchanged sha256 is not parsed again; a changed one is parsed and only its changed
messages are rewritten. Vectors are keyed by the message text's hash, so a conversation that
grew embeds only its new messages. Transcripts that disappeared drop out. A different embedder
than the one the index was built with clears the vectors first: two vector spaces never mix.
"""

from __future__ import annotations

import errno
import hashlib
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from wherein.config import Settings, load_settings
from wherein.embedding.base import Embedder
from wherein.errors import EmbedderError, NoLocalEmbedder
from wherein.history.embedder import local_embedder
from wherein.history.search import EMBEDDER_KEY
from wherein.history.store import (
    ConversationState,
    Fingerprint,
    HistoryStore,
    history_index_path,
    open_history_store,
)
from wherein.history.transcripts import Transcript, find_transcripts, read_conversation
from wherein.meter.jsonl import LEDGER_FILE_MAX_BYTES, ReadStats
from wherein.safe_files import UnsafeFile, open_regular

__all__ = ["EMBED_BATCH", "HistorySummary", "index_history"]

# Texts per embed call: MiniLM batches 32 internally; 64 keeps progress moving and a crash
# loses little.
EMBED_BATCH = 64
# Conversations written per transaction: fewer commits, and a crash loses one batch at most.
WRITE_BATCH = 64
HASH_BLOCK = 1 << 20

Progress = Callable[[str, int, int], None]


@dataclass
class HistorySummary:
    """What one run of `index_history` did."""

    transcripts: int = 0
    read: int = 0  # transcripts parsed because their content changed
    messages_written: int = 0
    dropped: int = 0
    embedded: int = 0
    cleared: bool = False  # vectors of a previous embedder were discarded
    conversations: int = 0  # with at least one message, after the run
    messages: int = 0
    seconds: float = 0.0
    unreadable: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (
            f"{self.conversations} conversations ({self.messages} messages) in the history "
            f"index; {self.read} transcripts read, {self.dropped} dropped, {self.embedded} "
            f"messages embedded in {self.seconds:.1f} s"
        )


def index_history(
    settings: Settings | None = None,
    *,
    embedder: Embedder | None = None,
    environ: Mapping[str, str] | None = None,
    progress: Progress | None = None,
) -> HistorySummary:
    """Bring the history index up to date with the transcripts on this machine.

    Args:
        settings: the user's settings, loaded when not given (no workspace file applies).
        embedder: used as given (tests); otherwise `local_embedder(settings)`, chosen before
            anything is read so a refused embedder leaves the index untouched.
        progress: called with (stage, done, total).

    Raises:
        ConfigError: the configured embedder would send text off this machine.
        NoLocalEmbedder: no local embedder answered; what was read stays, pending a vector.
    """
    started = time.monotonic()
    if embedder is None:
        embedder = local_embedder(settings or load_settings(None, environ))
    summary = HistorySummary()
    store = open_history_store(history_index_path(environ), create=True)
    try:
        if store.notice:
            summary.notices.append(store.notice)
        summary.cleared = _claim_for(store, embedder)
        transcripts = find_transcripts(environ)
        summary.transcripts = len(transcripts)
        _read_changed(store, transcripts, summary, progress)
        _embed_pending(store, embedder, summary, progress)
        counts = store.counts()
        summary.conversations, summary.messages = counts["conversations"], counts["messages"]
    finally:
        store.close()
    summary.seconds = time.monotonic() - started
    return summary


def _claim_for(store: HistoryStore, embedder: Embedder) -> bool:
    """Record the embedder's identity; returns True when another one's vectors were cleared."""
    key = embedder.identity.key()
    stored = store.get_meta(EMBEDDER_KEY)
    if stored == key:
        return False
    with store.transaction() as conn:
        store.clear_vectors(conn)
        store.set_meta(conn, EMBEDDER_KEY, key)
    return stored is not None


def _read_changed(
    store: HistoryStore,
    transcripts: list[Transcript],
    summary: HistorySummary,
    progress: Progress | None,
) -> None:
    states = store.conversation_states()
    present = {str(t.path) for t in transcripts}
    pending: list[tuple[Transcript, Fingerprint, ConversationState | None]] = []
    touched: list[tuple[ConversationState, os.stat_result]] = []
    for done, transcript in enumerate(transcripts, start=1):
        if progress:
            progress("Reading conversations", done, len(transcripts))
        key = str(transcript.path)
        state = states.get(key)
        try:
            info = os.lstat(transcript.path)  # a link is judged as a link, never followed
            if state and (info.st_size, info.st_mtime_ns) == (
                state.fingerprint.size,
                state.fingerprint.mtime_ns,
            ):
                continue
            digest = _sha256(transcript)
        except (OSError, UnsafeFile) as err:
            reason = err if isinstance(err, UnsafeFile) else err.strerror or err
            summary.unreadable.append(f"{key}: {reason}")
            present.discard(key)  # unreadable now is not deleted: keep what was indexed
            states.pop(key, None)
            continue
        if state and state.fingerprint.sha256 == digest:
            touched.append((state, info))
        else:
            pending.append((transcript, Fingerprint(info.st_size, info.st_mtime_ns, digest), state))
        if len(pending) >= WRITE_BATCH:
            _write(store, pending, summary)
            pending = []
    _write(store, pending, summary)
    gone = [state.id for key, state in states.items() if key not in present]
    summary.dropped = len(gone)
    if not (touched or gone or summary.read):
        return
    with store.transaction() as conn:
        for state, info in touched:
            store.touch_conversation(conn, state, info.st_size, info.st_mtime_ns)
        store.delete_conversations(conn, gone)
        store.drop_orphan_vectors(conn)


def _write(store: HistoryStore, pending, summary: HistorySummary) -> None:
    """Parse and write a batch of changed transcripts in one transaction."""
    if not pending:
        return
    parsed = []
    for transcript, fingerprint, _state in pending:
        stats = ReadStats()
        conversation = read_conversation(transcript, stats)
        if stats.unreadable:  # vanished or locked between hashing and reading
            summary.unreadable.extend(stats.unreadable)
            continue
        parsed.append((str(transcript.path), fingerprint, conversation))
    with store.transaction() as conn:
        for key, fingerprint, conversation in parsed:
            summary.messages_written += store.write_conversation(
                conn, key, fingerprint, conversation
            )
    summary.read += len(parsed)


def _embed_pending(
    store: HistoryStore, embedder: Embedder, summary: HistorySummary, progress: Progress | None
) -> None:
    total = store.pending_count()
    width = embedder.identity.dimension
    while True:
        batch = store.pending_texts(EMBED_BATCH)
        if not batch:
            return
        try:
            vectors = embedder.embed([text for _, text in batch])
        except EmbedderError as err:
            raise NoLocalEmbedder(
                f"No local embedder answered while indexing history: {err} "
                f"{store.pending_count()} messages stay pending; run 'wherein history index' "
                "again when it answers."
            ) from err
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.shape != (len(batch), width):
            raise EmbedderError(
                f"The embedder {embedder.identity.key()} returned vectors of shape "
                f"{vectors.shape} for {len(batch)} texts; nothing of this batch was stored."
            )
        with store.transaction() as conn:
            store.put_vectors(conn, [(h, v) for (h, _), v in zip(batch, vectors, strict=True)])
        summary.embedded += len(batch)
        if progress:
            progress("Embedding messages", summary.embedded, max(total, summary.embedded))


def _sha256(transcript: Transcript) -> str:
    """The file's digest, read as its lines will be (see `wherein.meter.jsonl`).

    Raises:
        UnsafeFile: a link, not a regular file, too large or unreadable.
        FileNotFoundError: it vanished since it was found.
    """
    digest = hashlib.sha256()
    handle = open_regular(transcript.path, max_bytes=LEDGER_FILE_MAX_BYTES)
    if handle is None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(transcript.path))
    with handle:
        budget = LEDGER_FILE_MAX_BYTES  # a file growing while it is hashed stops at the cap
        for block in iter(lambda: handle.read(HASH_BLOCK), b""):
            budget -= len(block)
            if budget < 0:
                raise UnsafeFile(f"it is larger than {LEDGER_FILE_MAX_BYTES:,} bytes")
            digest.update(block)
    return digest.hexdigest()
