"""One search, checked and resolved before anything is ranked: a frozen `SearchRequest`.

`build_request` turns what a caller asked (a query, a limit, a path, a focus) into the
request every later step reads; no step takes the caller's arguments one by one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from wherein.config import Settings
from wherein.errors import UsageError
from wherein.file_filter import FileFilter
from wherein.index.location import index_dir
from wherein.packages.plan import PackagePlan, plan_packages
from wherein.related import Place
from wherein.roots import RootPlan, configured_roots
from wherein.scope import Scope, narrowest_prefix, relative_folder, resolve_scope
from wherein.text_match import TextMatch

if TYPE_CHECKING:
    from wherein.index.refresh import Progress

__all__ = ["MAX_LIMIT", "MAX_QUERY_CHARS", "SearchRequest", "build_request"]

MAX_QUERY_CHARS = 2000
MAX_LIMIT = 200


@dataclass(frozen=True)
class SearchRequest:
    """One search, resolved: what to rank, where, and with which budget."""

    text: str
    limit: int
    workspace: Path
    settings: Settings
    scope: Scope
    prefixes: list[str]
    plan: RootPlan
    budget: float
    signals: frozenset[str]
    warnings: tuple[str, ...]
    excerpt_lines: int
    # The words BM25, the vectors and the signals rank by; None: by the text match alone.
    rank_text: str | None
    index_directory: Path  # `index_dir(workspace)`, worked out once per search
    files: FileFilter | None = None
    match: TextMatch | None = None
    related: Place | None = None
    packages: PackagePlan | None = None  # the shared package indexes ranked beside the workspace
    progress: Progress | None = None  # hears the refresh's stages (a terminal's bar)


def build_request(
    query: str,
    *,
    workspace: Path,
    settings: Settings,
    signals: frozenset[str],
    limit: int | None = None,
    path: str | None = None,
    focus: str | None = None,
    cold_budget_s: float | None = None,
    excerpt_lines: int | None = None,
) -> SearchRequest:
    """One search's checked request, ranking `query` as written (the callers set the mode).

    Raises:
        UsageError: an empty query, a bad limit, or a path outside the workspace.
    """
    limit = settings["search.limit"] if limit is None else limit
    text, warnings = _validate(query, limit)
    plan = configured_roots(workspace, settings)
    directory = index_dir(workspace)
    packages = plan_packages(workspace, settings, directory)
    labelled = (*plan.extra, *packages.roots)
    scope = resolve_scope(workspace, focus, settings, roots=labelled)
    if scope.notice:
        warnings.append(scope.notice)
    under = relative_folder(workspace, path, "--path", labelled) if path else None
    if scope.focus:  # a root whose label is the focus's first folder in the workspace is dropped
        plan = configured_roots(workspace, settings, scope.focus)
    plan = packages.with_overlay(plan)
    return SearchRequest(
        text=text,
        limit=limit,
        workspace=workspace,
        settings=settings,
        scope=scope,
        prefixes=narrowest_prefix(scope.focus, under),
        plan=plan,
        budget=settings["search.cold_budget_s"] if cold_budget_s is None else cold_budget_s,
        signals=signals,
        warnings=(*warnings, *plan.problems, *packages.problems),
        excerpt_lines=settings["search.excerpt_lines"] if excerpt_lines is None else excerpt_lines,
        rank_text=text,
        index_directory=directory,
        packages=packages,
    )


def _validate(query: str, limit: int) -> tuple[str, list[str]]:
    warnings = []
    text = " ".join(query.split())
    if not text:
        raise UsageError("The query is empty. Say what you are looking for, in words or a name.")

    if len(text) > MAX_QUERY_CHARS:
        text = text[:MAX_QUERY_CHARS]
        warnings.append(f"The query was cut to its first {MAX_QUERY_CHARS} characters.")
    if limit < 1:
        raise UsageError(f"--limit {limit} is not allowed: ask for at least 1 result.")
    if limit > MAX_LIMIT:
        raise UsageError(f"--limit {limit} is too large: ask for at most {MAX_LIMIT} results.")
    return text, warnings
