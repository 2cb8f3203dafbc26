"""Storage shared by every corpus: the SQLite file, migrations, the lexical engine, vectors.

The code index (`wherein.index`) and the history index (`wherein.history`) keep only their
own tables and readers on top. Members are imported on first use, so that the data home
(`wherein.storage.paths`) costs no SQLite or numpy import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wherein.lazy import lazy_members

if TYPE_CHECKING:
    from wherein.storage.aside import move_aside
    from wherein.storage.database import Database, DatabaseKind, open_database, start_again
    from wherein.storage.lexical import lexical_order, write_terms
    from wherein.storage.migrations import apply_migrations
    from wherein.storage.paths import data_home
    from wherein.storage.transaction import write_transaction
    from wherein.storage.vectors import stack_vectors

_MODULE_OF = {
    "Database": "database",
    "DatabaseKind": "database",
    "apply_migrations": "migrations",
    "data_home": "paths",
    "lexical_order": "lexical",
    "move_aside": "aside",
    "open_database": "database",
    "stack_vectors": "vectors",
    "start_again": "database",
    "write_terms": "lexical",
    "write_transaction": "transaction",
}

__all__ = [
    "Database",
    "DatabaseKind",
    "apply_migrations",
    "data_home",
    "lexical_order",
    "move_aside",
    "open_database",
    "stack_vectors",
    "start_again",
    "write_terms",
    "write_transaction",
]


__getattr__, __dir__ = lazy_members(__name__, _MODULE_OF)
