"""The per-workspace SQLite index: location, schema, incremental refresh, status.

The members are imported on first use, so that importing one module of the package
(`wherein.index.location`, `wherein.index.status`) does not load the chunker and numpy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_MODULE_OF})
