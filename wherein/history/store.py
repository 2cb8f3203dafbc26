"""The history index: `$WHEREIN_HOME/history/index.db`, derived from transcripts, never them.

Deleting the file costs one re-embed and nothing else. How the file is opened, migrated,
checked and written is `wherein.storage.database`'s, shared with the code index; its
keywords go to the same FTS5 engine (`wherein.storage.lexical`), keyed by message id.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from wherein.errors import HistoryMissing, IndexError_, IndexUnwritable
from wherein.history.migrations import MIGRATIONS
from wherein.history.records import Conversation
from wherein.ranking.tokens import tokenize
from wherein.storage.aside import database_not_regular
from wherein.storage.database import (
    Database,
    DatabaseKind,
    delete_sources,
    marked_batches,
    open_database,
    select_by_ids,
    start_again,
)
from wherein.storage.lexical import (
    delete_terms,
    joined_terms,
    lexical_order,
    matching_rows,
    write_terms,
)
from wherein.storage.paths import data_home, refused_advice
from wherein.storage.vectors import stack_vectors, vector_rows, write_vectors

__all__ = [
    "ConversationState",
    "Fingerprint",
    "HistoryStore",
    "MessageRow",
    "history_index_path",
    "open_history_store",
    "text_hash",
]

HISTORY_DIR = "history"
INDEX_FILE_NAME = "index.db"
APPLICATION_ID = 0x57484853  # "WHHS": a wherein history index, not a code index
# SQLite reads a negative LIMIT as none: the keyword ranker filters every match itself.
NO_LIMIT = -1


def history_index_path(environ: Mapping[str, str] | None = None) -> Path:
    """`<data home>/history/index.db`, beside the code indexes under `workspaces/`."""
    return data_home(environ) / HISTORY_DIR / INDEX_FILE_NAME


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Fingerprint:
    """What a transcript looked like when read: stat for the fast path, sha256 for the truth."""

    size: int
    mtime_ns: int
    sha256: str


@dataclass(frozen=True)
class ConversationState:
    id: int
    fingerprint: Fingerprint


@dataclass(frozen=True)
class MessageRow:
    """A message as read back for a result, with its conversation."""

    id: int
    position: int
    count: int  # messages in the conversation
    author: str
    time: float | None
    text: str
    conversation_id: int
    source: str
    session: str
    project: str
    path: str


def open_history_store(path: Path, *, create: bool) -> HistoryStore:
    """Open the history index at `path`, checking the whole file.

    A file that is not a history index, or is corrupt, or anything but a regular file at
    the name of the database or its `-wal` or `-shm`, is moved aside to
    `<name>.broken-<time>` when `create` is set, and a fresh one started; `notice` says so.

    Raises:
        HistoryMissing: `create` is false and there is no index yet.
        IndexUnwritable: the directory or the file cannot be written.
        IndexBusy: another process held the file locked for BUSY_TIMEOUT_S.
        IndexError_: `create` is false and the file is damaged or not a history index.
    """
    if not create:
        try:
            irregular = database_not_regular(path)
            present = path.is_file()
        except OSError as err:  # the folder may not be searched (mode 000)
            raise IndexUnwritable(
                f"Cannot read the history index at {path}: {err.strerror or err}. "
                f"{refused_advice(path.parent, err)}."
            ) from err
        if irregular is not None:
            raise _unreadable(path, irregular)
        if not present:
            raise HistoryMissing(f"No history index at {path}. Run 'wherein history index' first.")

    def damaged(why: str) -> HistoryStore:
        if not create:
            raise _unreadable(path, why)
        return start_again(HistoryStore, path, why, "")

    return open_database(HistoryStore, path, damaged, verify=True)


def _unreadable(path: Path, why: str) -> IndexError_:
    return IndexError_(
        f"The history index at {path} is unreadable ({why}). Run 'wherein history index' to "
        "rebuild it."
    )


class HistoryStore(Database):
    """The one history index of this user."""

    KIND = DatabaseKind(
        "history index", APPLICATION_ID, MIGRATIONS, kept="vectors and conversations"
    )

    # -- conversations --------------------------------------------------------

    def conversation_states(self) -> dict[str, ConversationState]:
        rows = self.conn.execute("SELECT path, id, size, mtime_ns, sha256 FROM conversations")
        return {p: ConversationState(i, Fingerprint(s, m, h)) for p, i, s, m, h in rows}

    def write_conversation(
        self,
        conn: sqlite3.Connection,
        path: str,
        fingerprint: Fingerprint,
        conversation: Conversation,
    ) -> int:
        """Make the index hold `conversation` for `path`; returns how many messages changed.

        A message whose position, author, time and text are unchanged keeps its row (and so
        its terms and vector): a conversation that grew writes only its new messages.
        """
        values = (
            conversation.source,
            conversation.session,
            conversation.project,
            fingerprint.size,
            fingerprint.mtime_ns,
            fingerprint.sha256,
        )
        row = conn.execute("SELECT id FROM conversations WHERE path = ?", (path,)).fetchone()
        if row is None:
            conversation_id = conn.execute(
                "INSERT INTO conversations(source, session, project, size, mtime_ns, sha256, "
                "path) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (*values, path),
            ).lastrowid
        else:
            conversation_id = row[0]
            conn.execute(
                "UPDATE conversations SET source = ?, session = ?, project = ?, size = ?, "
                "mtime_ns = ?, sha256 = ? WHERE id = ?",
                (*values, conversation_id),
            )
        kept = {
            position: (message_id, (author, when, digest))
            for message_id, position, author, when, digest in conn.execute(
                "SELECT id, position, author, time, text_hash FROM messages "
                "WHERE conversation_id = ?",
                (conversation_id,),
            )
        }
        terms: list[tuple[int, str]] = []
        changed = 0
        for position, message in enumerate(conversation.messages, start=1):
            digest = text_hash(message.text)
            old = kept.pop(position, None)
            if old is not None and old[1] == (message.author, message.time, digest):
                continue
            changed += 1
            tokens = tokenize(message.text)
            if old is not None:
                self._delete_messages(conn, [old[0]])
            message_id = conn.execute(
                "INSERT INTO messages(conversation_id, position, author, time, text, text_hash, "
                "n_tokens) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    conversation_id,
                    position,
                    message.author,
                    message.time,
                    message.text,
                    digest,
                    len(tokens),
                ),
            ).lastrowid
            terms.append((message_id, joined_terms(tokens)))
        self._delete_messages(conn, [message_id for message_id, _ in kept.values()])
        write_terms(conn, terms)
        return changed

    def _delete_messages(self, conn: sqlite3.Connection, ids: Sequence[int]) -> None:
        for batch, marks in marked_batches(list(ids)):
            delete_terms(conn, marks, batch)
            conn.execute(f"DELETE FROM messages WHERE id IN ({marks})", batch)

    def touch_conversation(
        self, conn: sqlite3.Connection, state: ConversationState, size: int, mtime_ns: int
    ) -> None:
        conn.execute(
            "UPDATE conversations SET size = ?, mtime_ns = ? WHERE id = ?",
            (size, mtime_ns, state.id),
        )

    def delete_conversations(self, conn: sqlite3.Connection, ids: Iterable[int]) -> None:
        delete_sources(conn, "conversations", "messages", "conversation_id", list(ids))

    # -- vectors --------------------------------------------------------------

    def pending_texts(self, limit: int) -> list[tuple[str, str]]:
        """(text_hash, text) of distinct messages that have no vector yet."""
        return self.conn.execute(
            "SELECT text_hash, min(text) FROM messages m WHERE NOT EXISTS "
            "(SELECT 1 FROM vectors v WHERE v.text_hash = m.text_hash) "
            "GROUP BY text_hash LIMIT ?",
            (limit,),
        ).fetchall()

    def pending_count(self) -> int:
        (count,) = self.conn.execute(
            "SELECT count(*) FROM messages m WHERE NOT EXISTS "
            "(SELECT 1 FROM vectors v WHERE v.text_hash = m.text_hash)"
        ).fetchone()
        return int(count)

    def put_vectors(self, conn: sqlite3.Connection, items: Sequence[tuple[str, np.ndarray]]):
        write_vectors(conn, "vectors", vector_rows(items))

    def drop_orphan_vectors(self, conn: sqlite3.Connection) -> None:
        conn.execute("DELETE FROM vectors WHERE text_hash NOT IN (SELECT text_hash FROM messages)")

    def clear_vectors(self, conn: sqlite3.Connection) -> None:
        conn.execute("DELETE FROM vectors")

    # -- reads for search -----------------------------------------------------

    def has_messages(self) -> bool:
        return self.conn.execute("SELECT 1 FROM messages LIMIT 1").fetchone() is not None

    def keyword_order(self, terms: Sequence[str]) -> list[int]:
        """Ids of every message holding one of `terms`, by BM25 score, best first."""
        return [message_id for message_id, _ in lexical_order(self.conn, terms, NO_LIMIT)]

    def holding(self, terms: Sequence[str]) -> set[int]:
        """Ids of the messages holding one of `terms`."""
        return matching_rows(self.conn, terms)

    def vectors(self) -> tuple[np.ndarray, np.ndarray]:
        """(message ids, unit vectors) of the messages that have a vector."""
        rows = self.conn.execute(
            "SELECT m.id, v.vector FROM messages m JOIN vectors v ON v.text_hash = m.text_hash "
            "ORDER BY m.id"
        ).fetchall()
        return stack_vectors(rows)

    def message_rows(self, ids: Sequence[int]) -> dict[int, MessageRow]:
        select = (
            "SELECT m.id, m.position, (SELECT count(*) FROM messages n "
            "WHERE n.conversation_id = m.conversation_id), m.author, m.time, m.text, "
            "c.id, c.source, c.session, c.project, c.path FROM messages m "
            "JOIN conversations c ON c.id = m.conversation_id WHERE m.id IN"
        )
        return {row[0]: MessageRow(*row) for row in select_by_ids(self.conn, select, list(ids))}

    def counts(self) -> dict[str, int]:
        conversations, messages, vectors = self.conn.execute(
            "SELECT (SELECT count(DISTINCT conversation_id) FROM messages), "
            "(SELECT count(*) FROM messages), (SELECT count(*) FROM vectors)"
        ).fetchone()
        return {"conversations": conversations, "messages": messages, "vectors": vectors}
