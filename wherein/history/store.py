"""The history index: `$WHEREIN_HOME/history/index.db`, derived from transcripts, never them.

Deleting the file costs one re-embed and nothing else. Every write runs in an explicit
transaction, so a process killed mid-index leaves the previous committed state.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from wherein.errors import IndexBusy, IndexError_, IndexUnwritable
from wherein.history.errors import HistoryMissing
from wherein.history.migrations import MIGRATIONS, apply_migrations
from wherein.history.records import Conversation
from wherein.index.aside import SQLITE_SUFFIXES, database_not_regular, move_aside
from wherein.index.location import data_home
from wherein.index.transaction import (
    is_unwritable,
    read_meta,
    write_meta,
    write_transaction,
)
from wherein.index.vector_cache import stack_vectors
from wherein.ranking.tokens import tokenize

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
BUSY_TIMEOUT_S = 30.0
SQL_VARIABLE_BATCH = 500  # well under SQLite's default limit of 32766 bound variables


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
    """Open the history index at `path`.

    A file that is not a history index, or is corrupt, or anything but a regular file at
    the name of the database or its `-wal` or `-shm`, is moved aside to
    `<name>.broken-<time>` when `create` is set, and a fresh one started; `notice` says so.

    Raises:
        HistoryMissing: `create` is false and there is no index yet.
        IndexUnwritable: the directory or the file cannot be written.
        IndexBusy: another process held the file locked for BUSY_TIMEOUT_S.
        IndexError_: `create` is false and the file is damaged or not a history index.
    """
    irregular = database_not_regular(path)
    if not create and irregular is not None:
        raise _unreadable(path, irregular)
    if not create and not path.is_file():
        raise HistoryMissing(f"No history index at {path}. Run 'wherein history index' first.")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if irregular is not None:
            return _start_again(path, irregular)
        return HistoryStore(path)
    except OSError as err:
        raise _unwritable(path, err) from err
    except sqlite3.OperationalError as err:
        if is_unwritable(err):
            raise _unwritable(path, err) from err
        if "locked" in str(err).lower():  # busy is not broken: never move a live index aside
            raise IndexBusy(
                f"The history index at {path} stayed locked by another process for "
                f"{BUSY_TIMEOUT_S:g} s. Try again when it has finished."
            ) from err
        raise
    except sqlite3.DatabaseError as err:  # not a history index, or damaged
        if not create:
            raise _unreadable(path, str(err)) from err
        return _start_again(path, str(err))


def _start_again(path: Path, why: str) -> HistoryStore:
    """Move the unusable index aside with its companions and open a new one in its place."""
    try:
        aside = move_aside(path, SQLITE_SUFFIXES)
    except OSError as err:
        raise _unwritable(path, err) from err
    store = HistoryStore(path)
    store.notice = f"The history index at {path} was unreadable ({why}); moved it to {aside}."
    return store


def _unreadable(path: Path, why: str) -> IndexError_:
    return IndexError_(
        f"The history index at {path} is unreadable ({why}). Run 'wherein history index' to "
        "rebuild it."
    )


def _unwritable(path: Path, err: BaseException) -> IndexUnwritable:
    return IndexUnwritable(
        f"Cannot write the history index at {path}: {err}. Free some disk space or set "
        "WHEREIN_HOME to a writable directory."
    )


class HistoryStore:
    """The one history index of this user."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.notice: str | None = None
        self.conn = sqlite3.connect(str(path), isolation_level=None, timeout=BUSY_TIMEOUT_S)
        try:
            self._prepare()
        except BaseException:
            self.conn.close()
            raise

    def _prepare(self) -> None:
        conn = self.conn
        app_id, version, tables = _header(conn)
        if app_id not in (0, APPLICATION_ID) or (app_id == 0 and (version or tables)):
            raise sqlite3.DatabaseError("not a wherein history index")
        conn.execute("PRAGMA journal_mode=WAL").fetchone()
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        if app_id == 0 or version < len(MIGRATIONS):
            with self.transaction():
                if _header(conn)[0] == 0:
                    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                apply_migrations(conn)
        (verdict,) = conn.execute("PRAGMA quick_check(1)").fetchone()
        if verdict != "ok":
            raise sqlite3.DatabaseError(f"integrity check failed: {' '.join(verdict.split())}")

    def close(self) -> None:
        self.conn.close()

    def transaction(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception."""
        return write_transaction(self.conn, lambda err: _unwritable(self.path, err))

    def get_meta(self, key: str) -> str | None:
        return read_meta(self.conn, key)

    def set_meta(self, conn: sqlite3.Connection, key: str, value: str) -> None:
        write_meta(conn, key, value)

    # -- conversations --------------------------------------------------------

    def conversation_states(self) -> dict[str, ConversationState]:
        rows = self.conn.execute("SELECT path, id, size, mtime_ns, sha256 FROM conversations")
        return {p: ConversationState(i, Fingerprint(s, m, h)) for p, i, s, m, h in rows}

    def touch_conversation(
        self, conn: sqlite3.Connection, state: ConversationState, size: int, mtime_ns: int
    ) -> None:
        conn.execute(
            "UPDATE conversations SET size = ?, mtime_ns = ? WHERE id = ?",
            (size, mtime_ns, state.id),
        )

    def delete_conversations(self, conn: sqlite3.Connection, ids: Iterable[int]) -> None:
        for batch in _batches(list(ids)):
            marks = ",".join("?" * len(batch))
            conn.execute(
                f"DELETE FROM postings WHERE message_id IN "
                f"(SELECT id FROM messages WHERE conversation_id IN ({marks}))",
                batch,
            )
            conn.execute(f"DELETE FROM messages WHERE conversation_id IN ({marks})", batch)
            conn.execute(f"DELETE FROM conversations WHERE id IN ({marks})", batch)

    def write_conversation(
        self,
        conn: sqlite3.Connection,
        path: str,
        fingerprint: Fingerprint,
        conversation: Conversation,
        term_ids: dict[str, int],
    ) -> int:
        """Make the index hold `conversation` for `path`; returns how many messages changed.

        A message whose position, author, time and text are unchanged keeps its row (and so
        its postings and vector): a conversation that grew writes only its new messages.
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
        postings: list[tuple[int, int, int]] = []
        changed = 0
        for position, message in enumerate(conversation.messages, start=1):
            digest = text_hash(message.text)
            old = kept.pop(position, None)
            if old is not None and old[1] == (message.author, message.time, digest):
                continue
            changed += 1
            counts: dict[str, int] = {}
            for term in tokenize(message.text):
                counts[term] = counts.get(term, 0) + 1
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
                    sum(counts.values()),
                ),
            ).lastrowid
            for term, count in counts.items():
                term_id = term_ids.get(term)
                if term_id is None:
                    term_id = conn.execute("INSERT INTO terms(term) VALUES (?)", (term,)).lastrowid
                    term_ids[term] = term_id
                postings.append((term_id, message_id, count))
        self._delete_messages(conn, [message_id for message_id, _ in kept.values()])
        conn.executemany("INSERT INTO postings(term_id, message_id, tf) VALUES (?, ?, ?)", postings)
        return changed

    def _delete_messages(self, conn: sqlite3.Connection, ids: Sequence[int]) -> None:
        for batch in _batches(list(ids)):
            marks = ",".join("?" * len(batch))
            conn.execute(f"DELETE FROM postings WHERE message_id IN ({marks})", batch)
            conn.execute(f"DELETE FROM messages WHERE id IN ({marks})", batch)

    def term_ids(self) -> dict[str, int]:
        return dict(self.conn.execute("SELECT term, id FROM terms"))

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
        conn.executemany(
            "INSERT OR REPLACE INTO vectors(text_hash, vector) VALUES (?, ?)",
            [(h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in items],
        )

    def drop_orphan_vectors(self, conn: sqlite3.Connection) -> None:
        conn.execute("DELETE FROM vectors WHERE text_hash NOT IN (SELECT text_hash FROM messages)")

    def clear_vectors(self, conn: sqlite3.Connection) -> None:
        conn.execute("DELETE FROM vectors")

    # -- reads for search -----------------------------------------------------

    def message_table(self) -> tuple[np.ndarray, np.ndarray]:
        """Ids and token counts of every message, by id."""
        data = self.conn.execute("SELECT id, n_tokens FROM messages ORDER BY id").fetchall()
        table = np.array(data, dtype=np.int64).reshape(-1, 2)
        return table[:, 0], table[:, 1]

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        """Message ids and term counts for one term."""
        rows = self.conn.execute(
            "SELECT p.message_id, p.tf FROM postings p JOIN terms t ON t.id = p.term_id "
            "WHERE t.term = ?",
            (term,),
        ).fetchall()
        data = np.array(rows, dtype=np.int64).reshape(-1, 2)
        return data[:, 0], data[:, 1]

    def document_frequencies(self) -> np.ndarray:
        rows = self.conn.execute("SELECT count(*) FROM postings GROUP BY term_id").fetchall()
        return np.array([r[0] for r in rows], dtype=np.int64)

    def vectors(self) -> tuple[np.ndarray, np.ndarray]:
        """(message ids, unit vectors) of the messages that have a vector."""
        rows = self.conn.execute(
            "SELECT m.id, v.vector FROM messages m JOIN vectors v ON v.text_hash = m.text_hash "
            "ORDER BY m.id"
        ).fetchall()
        return stack_vectors(rows)

    def message_rows(self, ids: Sequence[int]) -> dict[int, MessageRow]:
        found: dict[int, MessageRow] = {}
        for batch in _batches(list(ids)):
            marks = ",".join("?" * len(batch))
            for row in self.conn.execute(
                "SELECT m.id, m.position, (SELECT count(*) FROM messages n "
                "WHERE n.conversation_id = m.conversation_id), m.author, m.time, m.text, "
                "c.id, c.source, c.session, c.project, c.path FROM messages m "
                f"JOIN conversations c ON c.id = m.conversation_id WHERE m.id IN ({marks})",
                batch,
            ):
                found[row[0]] = MessageRow(*row)
        return found

    def counts(self) -> dict[str, int]:
        conversations, messages, vectors = self.conn.execute(
            "SELECT (SELECT count(DISTINCT conversation_id) FROM messages), "
            "(SELECT count(*) FROM messages), (SELECT count(*) FROM vectors)"
        ).fetchone()
        return {"conversations": conversations, "messages": messages, "vectors": vectors}


def _header(conn: sqlite3.Connection) -> tuple[int, int, int]:
    """(application_id, user_version, table count), read as one snapshot."""
    return conn.execute(
        "SELECT (SELECT application_id FROM pragma_application_id()), "
        "(SELECT user_version FROM pragma_user_version()), "
        "(SELECT count(*) FROM sqlite_master)"
    ).fetchone()


def _batches(items: list, size: int = SQL_VARIABLE_BATCH) -> Iterator[list]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
