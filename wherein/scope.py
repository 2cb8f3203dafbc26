"""Focus scopes: the one folder of a large workspace a search ranks inside.

Resolution, most explicit first: the caller's `focus` (`--focus`, the tool's
`focus`), then the configured `scope.focus`; else the nearest folder enclosing
the current directory that carries a marker file (`scope.focus_markers`); else
the whole workspace. Nothing is inferred from the query: a scope is chosen, and
`status` lists the marked folders so that choosing is reading a list.

A scope is a window, not a relevance filter: when the best match inside it is
weak next to what lies outside (`scope_gap`), the search says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wherein.config import SOURCE_USER, SOURCE_WORKSPACE, Settings
from wherein.errors import UsageError
from wherein.root_folders import root_folder
from wherein.untrusted import echo, echo_folder, echo_name
from wherein.workspace import Root

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "WEAK_GAP",
    "Scope",
    "marker_scope",
    "narrowest_prefix",
    "relative_folder",
    "resolve_scope",
    "scope_gap",
    "unmatched_notice",
    "weak_notice",
]

RESOLVED_EXPLICIT = "explicit"
RESOLVED_MARKER = "marker"
RESOLVED_WORKSPACE = "workspace"

# The best chunk outside the focus beats the best inside by at least this many standard
# deviations of the scope's own similarities: the focus is probably the wrong window.
# Measured with scripts/measure_scopes.py (10 real libraries, 120 docstring queries, each
# focused on its own library and on another; threshold chosen on 5 libraries, checked on 5):
# figures in the README, "Focus scopes and extra source roots".
WEAK_GAP = 0.5
# Below this many embedded chunks a scope's spread is noise; the index's spread stands in.
MIN_SPREAD_CHUNKS = 10


@dataclass(frozen=True)
class Scope:
    """The part of the workspace a search ranks, and how it was chosen."""

    focus: str | None  # a folder relative to the workspace; None for the whole workspace
    resolved_by: str  # "explicit" | "marker" | "workspace"
    # Why a focus the workspace's own file names was passed over, for the caller to say.
    notice: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"focus": self.focus, "resolved_by": self.resolved_by}


def resolve_scope(
    workspace: Path,
    focus: str | None,
    settings: Settings,
    cwd: Path | None = None,
    roots: Sequence[Root] = (),
) -> Scope:
    """The scope of one search or index run.

    `focus` "" or "." is an explicit choice of the whole workspace: the way to step out of
    a marked or configured scope. With `roots` (the extra source roots), a focus may name
    one of them by its label (`wherein.root_folders`).

    A `scope.focus` from the workspace's own file, or from your own (which serves every
    workspace), that cannot be used here is passed over, the scope's `notice` saying why.

    Raises:
        UsageError: the focus given, or `scope.focus` from the environment, is outside the
            workspace or not a folder.
    """
    if focus is not None:
        return _explicit(workspace, focus, "--focus", roots)
    if settings["scope.focus"]:
        source = settings.sources.get("scope.focus")
        try:
            return _explicit(
                workspace,
                settings["scope.focus"],
                "scope.focus",
                roots,
                repository_wrote=source == SOURCE_WORKSPACE,
            )
        except UsageError as err:
            if source == SOURCE_WORKSPACE:
                # Whoever made the repository chose it: a folder it lacks is no reason to stop.
                named = "The workspace's .wherein.toml names it"
            elif source == SOURCE_USER:
                # Your own file serves every workspace (recall's `configure` writes there by
                # default): a folder one of them lacks must not stop the others.
                named = "Your own config file names it for every workspace"
            else:
                raise  # the environment's, set for this run: yours to mend
            notice = f"{err} {named}: searched the whole workspace."
            return Scope(None, RESOLVED_WORKSPACE, notice)
    markers = marker_names(settings["scope.focus_markers"])
    found = marker_scope(workspace, _current_dir() if cwd is None else cwd, markers)
    if found is not None:
        return Scope(found, RESOLVED_MARKER)
    return Scope(None, RESOLVED_WORKSPACE)


def _explicit(
    workspace: Path, value: str, flag: str, roots: Sequence[Root], repository_wrote: bool = False
) -> Scope:
    if not value.strip():
        return Scope(None, RESOLVED_EXPLICIT)
    folder = relative_folder(workspace, value, flag, roots, repository_wrote=repository_wrote)
    return Scope(folder or None, RESOLVED_EXPLICIT)


def relative_folder(
    workspace: Path,
    value: str,
    flag: str,
    roots: Sequence[Root] = (),
    *,
    repository_wrote: bool = False,
) -> str:
    """`value` as a '/'-separated folder relative to `workspace` ("" for the workspace), or
    inside one of the extra source `roots` as its results are labelled (`label/sub`).
    A value the workspace's own file wrote (`repository_wrote`) is quoted only where it
    reads as a path (`untrusted.echo_name`).

    Raises:
        UsageError: the folder escapes the workspace (`..`, absolute, symlink), is missing, or
            cannot be looked up (a NUL, a name too long, an unknown ~user, a symlink loop).
    """
    shown = echo_name(value) if repository_wrote else echo(value)
    try:
        candidate = Path(value).expanduser()
        if not candidate.is_absolute():
            candidate = workspace / candidate
        resolved = candidate.resolve()
        is_dir = resolved.is_dir()
    except (OSError, RuntimeError, ValueError) as err:
        raise UsageError(
            f"{flag} {shown} cannot be looked up in {workspace} "
            f"({getattr(err, 'strerror', None) or err}). Name an existing folder inside it."
        ) from None
    try:
        rel = resolved.relative_to(workspace)
    except ValueError:
        in_root = root_folder(roots, value, flag)
        if in_root is not None:
            return in_root
        raise UsageError(
            f"{flag} {shown} is outside the workspace {workspace}. Name a folder inside it."
        ) from None
    if not is_dir:
        in_root = root_folder(roots, value, flag)
        if in_root is not None:
            return in_root
        raise UsageError(f"{flag} {shown} is not a folder in {workspace}. Name an existing one.")
    return rel.as_posix() if rel.parts else ""


def narrowest_prefix(focus: str | None, under: str | None) -> list[str]:
    """The one folder a search ranks in when both a focus and `--path` are given.

    Raises:
        UsageError: the two folders are disjoint, so nothing could be ranked.
    """
    folders = [f for f in (focus, under) if f]
    if len(folders) < 2:
        return folders
    inner, outer = sorted(folders, key=len, reverse=True)
    if inner != outer and not inner.startswith(outer + "/"):
        raise UsageError(
            f"--path {under} is outside the focus {focus}. Name a folder inside the focus, "
            "or search with --focus . for the whole workspace."
        )
    return [inner]


def scope_gap(similarities: np.ndarray, inside: np.ndarray) -> float | None:
    """How far the best chunk outside the scope beats the best inside, in standard
    deviations of the scope's own similarities to the query (negative: the scope wins).

    Scale-free, so it means the same for every embedder; None when either side is empty.
    """
    import numpy as np  # only a search with vectors gets here; `status` needs no numpy

    own, out = similarities[inside], similarities[~inside]
    if len(own) == 0 or len(out) == 0:
        return None
    pool = own if len(own) >= MIN_SPREAD_CHUNKS else similarities
    spread = float(np.std(pool))
    if spread <= 0.0:
        return None
    return (float(out.max()) - float(own.max())) / spread


def weak_notice(focus: str, gap: float) -> str:
    """The warning for a weak best match inside the focus."""
    return (
        f"The best match inside the focus {echo_folder(focus)} is weak: chunks outside it match "
        f"the query better (by {gap:.1f} standard deviations of the focus's own similarities). "
        "A focus is a window, not a relevance filter: retry with --focus . to search the "
        "whole workspace."
    )


def unmatched_notice(focus: str) -> str:
    """The warning when, ranking by keywords only, nothing inside the focus matched."""
    return (
        f"Nothing inside the focus {echo_folder(focus)} matches the query's words, while files "
        "outside it do. A focus is a window, not a relevance filter: retry with --focus . to "
        "search the whole workspace."
    )


def marker_names(markers: list[str]) -> list[str]:
    """The configured marker file names (`config_keys.focus_marker_problem` checked them
    where the setting was read)."""
    return [m.strip() for m in markers if m.strip()]


def marker_scope(workspace: Path, cwd: Path | None, markers: list[str]) -> str | None:
    """The nearest folder from `cwd` up to (not including) the workspace root that holds a
    marker file, relative to the workspace; None if `cwd` is outside it or none does.

    The workspace root itself is never a marker scope: it would narrow nothing.
    """
    if not markers or cwd is None:
        return None
    try:
        rel = cwd.resolve().relative_to(workspace)
    except (ValueError, OSError):
        return None
    parts = rel.parts
    while parts:
        folder = workspace.joinpath(*parts)
        if any(_is_file(folder / name) for name in markers):
            return "/".join(parts)
        parts = parts[:-1]
    return None


def _current_dir() -> Path | None:
    try:
        return Path.cwd()
    except OSError:  # the current directory was deleted under us
        return None


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False
