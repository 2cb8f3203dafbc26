"""wherein: answer "where is this handled?" with a few ranked code excerpts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from wherein.errors import WhereinError
from wherein.lazy import lazy_members

if TYPE_CHECKING:
    from wherein.search import Hit, SearchResult, run_search

__all__ = ["Hit", "SearchResult", "WhereinError", "__version__", "run_search"]

__version__ = "0.1.0"

# The search stack (numpy, onnxruntime, tree-sitter) loads on first use, not on
# `import wherein`: `wherein config get` and `wherein status` should not pay a second for it.
__getattr__, __dir__ = lazy_members(
    __name__, dict.fromkeys(("Hit", "SearchResult", "run_search"), "search")
)
