"""The per-workspace SQLite index: location, schema, incremental refresh, status.

The members are imported on first use, so that importing one module of the package
(`wherein.index.location`, `wherein.index.status`) does not load the chunker and numpy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wherein.lazy import lazy_members

if TYPE_CHECKING:
    from wherein.index.location import data_home, index_dir
    from wherein.index.refresh import RefreshReport, embed_pending, index_lock, refresh_index
    from wherein.index.status import read_status
    from wherein.index.store import Store, open_store

_MODULE_OF = {
    "RefreshReport": "refresh",
    "Store": "store",
    "data_home": "location",
    "embed_pending": "refresh",
    "index_dir": "location",
    "index_lock": "refresh",
    "open_store": "store",
    "read_status": "status",
    "refresh_index": "refresh",
}

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


__getattr__, __dir__ = lazy_members(__name__, _MODULE_OF)
