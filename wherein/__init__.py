"""wherein: answer "where is this handled?" with a few ranked code excerpts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from wherein.errors import WhereinError

if TYPE_CHECKING:
    from wherein.search import Hit, SearchResult, run_search

__all__ = ["Hit", "SearchResult", "WhereinError", "__version__", "run_search"]

__version__ = "0.1.0"

# The search stack (numpy, onnxruntime, tree-sitter) loads on first use, not on
# `import wherein`: `wherein config get` and `wherein status` should not pay a second for it.
_FROM_SEARCH = frozenset({"Hit", "SearchResult", "run_search"})


def __getattr__(name: str):
    if name in _FROM_SEARCH:
        from wherein import search

        return getattr(search, name)
    raise AttributeError(f"module 'wherein' has no attribute {name!r}")
