"""wherein: answer "where is this handled?" with a few ranked code excerpts."""

from wherein.errors import WhereinError
from wherein.search import Hit, SearchResult, run_search

__all__ = ["Hit", "SearchResult", "WhereinError", "__version__", "run_search"]

__version__ = "0.1.0"
