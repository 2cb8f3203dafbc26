"""The one migrations runner: numbered functions, `PRAGMA user_version` counts those applied.

Each corpus lists its own migrations, `mNNN_<what>(conn)` run once in order inside the
caller's write transaction, as llm's `embeddings_migrations.py` does.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence

from wherein.errors import IndexError_

__all__ = ["Migration", "apply_migrations", "run_statements"]

Migration = Callable[[sqlite3.Connection], None]


def run_statements(conn: sqlite3.Connection, script: str) -> None:
    """Run `;`-separated statements in the open transaction."""
    # executescript() would COMMIT first; statement by statement keeps a migration atomic.
    for statement in script.split(";"):
        if statement.strip():
            conn.execute(statement)


def apply_migrations(
    conn: sqlite3.Connection, migrations: Sequence[Migration], label: str = "index"
) -> None:
    """Bring the schema up to date; `PRAGMA user_version` holds the count applied.

    The caller holds a write transaction (BEGIN IMMEDIATE), so the version read here
    cannot change before the migrations run, and all of them commit or none.

    Raises:
        IndexError_: the file has a newer schema than this wherein knows.
    """
    (applied,) = conn.execute("PRAGMA user_version").fetchone()
    if applied > len(migrations):
        raise IndexError_(
            f"The {label} was written by a newer wherein (schema {applied}; this one knows "
            f"{len(migrations)}). Upgrade wherein, or delete the {label} to rebuild it."
        )
    for number, migration in enumerate(migrations[applied:], start=applied + 1):
        migration(conn)
        # PRAGMA takes no bound parameters; `number` is an int from enumerate.
        conn.execute(f"PRAGMA user_version = {int(number)}")
