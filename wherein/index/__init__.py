"""The per-workspace SQLite index: location, schema, incremental refresh, status."""

from wherein.index.location import data_home, index_dir
from wherein.index.refresh import RefreshReport, embed_pending, index_lock, refresh_index
from wherein.index.status import read_status
from wherein.index.store import Store, open_store

__all__ = [
    "RefreshReport",
    "Store",
    "data_home",
    "embed_pending",
    "index_dir",
    "index_lock",
    "open_store",
    "read_status",
    "refresh_index",
]
