"""The `status` command: the index, the embedder and its endpoint, the focus and the roots.

It reads the records `index.status.read_status` and `embedding.probe.describe_embedder`
return and renders them twice: `--json` (docs/contracts.md) and lines of text.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from wherein.cli.arguments import settings_for, workspace_choice
from wherein.cli.output import dump, show
from wherein.errors import UsageError

if TYPE_CHECKING:  # imported by the command itself: `import wherein.cli` stays light
    from wherein.embedding.probe import EmbedderStatus
    from wherein.index.status import IndexStatus

__all__ = ["handle_status"]


def handle_status(args: argparse.Namespace) -> int:
    from wherein.embedding.probe import describe_embedder
    from wherein.embedding.registry import configured_model, fast_tier_identity
    from wherein.index.status import read_status
    from wherein.roots import configured_roots
    from wherein.scope import marker_names, resolve_scope
    from wherein.storage.room import low_room

    choice = workspace_choice(args)
    workspace = choice.path
    settings = settings_for(workspace)
    plan = configured_roots(workspace, settings)
    index = read_status(workspace, marker_names(settings["scope.focus_markers"]), plan.extra)
    try:
        resolved = resolve_scope(workspace, None, settings, roots=plan.extra)
        scope = resolved.to_json()
        if resolved.notice:
            scope["error"] = resolved.notice
    except UsageError as err:  # a stale configured focus must not hide the rest of the status
        scope = {"focus": settings["scope.focus"], "resolved_by": "explicit", "error": str(err)}
    # A refused endpoint URL raises ConfigError here: exit 2, as for every command.
    embedder = describe_embedder(settings, index.embedder)
    status = index.to_json()
    status["workspace_chosen_by"] = choice.to_json()
    status["scope"] = scope
    status["root_problems"] = list(plan.problems)
    # "embedder" is the configured one and whether it answered; the index's stored identity
    # moves to "index_embedder".
    status.pop("embedder", None)
    status["index_embedder"] = index.embedder
    status["embedder"] = embedder.to_json()
    status["endpoint_error"] = embedder.error
    failure = index.embed_failure(configured_model(settings)) if index.readable else None
    room = low_room(index.index_path.parent, index.pending_chunks) if index.readable else None
    if index.readable:
        status["embed_failure"] = failure
        status["low_disk"] = room
    if args.json:
        dump(status)
        return 0
    show(f"workspace  {index.workspace} ({choice.describe()})")
    show(f"index      {index.index_path}")
    show(f"endpoint   {_endpoint_line(embedder)}")
    if not index.exists:
        show("state      no index yet: run 'wherein index'")
        _print_scopes(scope, index, plan.problems, settings["scope.focus_markers"])
        return 0
    if index.error is not None:
        show(f"state      unreadable: {index.error}")
        return 1
    show(f"files      {index.files} indexed, {index.skipped_files} skipped")
    show(f"chunks     {index.chunks} ({index.pending_chunks} waiting for a vector)")
    show(f"embedder   {index.embedder or '(none yet)'}")
    if failure and index.pending_chunks:
        show(f"failed     the last 'wherein index' could not embed: {failure}")
    if room:
        show(f"disk       {room}")
    if _made_by_another_model(index.embedder, embedder):
        show(
            "note       the configured model is another: searches rank by the fast tier and "
            "keywords until 'wherein index' embeds the chunks again"
        )
    fast = index.fast_tier
    # No fast tier of its own when the configured model is that model (`static`).
    if fast and (fast["model"] or (fast["pending"] and fast_tier_identity(settings))):
        model = fast["model"] or "none written yet"
        show(f"fast tier  {fast['chunks']} chunks, {fast['pending']} waiting ({model})")
    _print_scopes(scope, index, plan.problems, settings["scope.focus_markers"])
    return 0


def _print_scopes(
    scope: dict[str, Any], index: IndexStatus, problems: Sequence[str], markers: list[str]
) -> None:
    """The focus, the marked folders one could focus on, and the extra roots."""
    focus = f"{scope['focus'] or '(whole workspace)'}, {scope['resolved_by']}"
    show(f"focus      {focus}: {scope['error']}" if "error" in scope else f"focus      {focus}")
    if markers and index.scopes is not None:
        show(f"scopes     {len(index.scopes)} folders marked by {', '.join(markers)}")
        for item in index.scopes:
            show(f"  {item['focus']}  {item['chunks']} chunks in {item['files']} files")
    for root in index.roots or []:
        show(
            f"root       {root['label']}={root['path']}  {root['chunks']} chunks in "
            f"{root['files']} files"
        )
    for problem in problems:
        show(f"unusable   {problem}")
    if not index.roots and not problems:
        show("roots      none: 'wherein roots suggest' lists library folders you could add")


def _made_by_another_model(stored: str | None, embedder: EmbedderStatus) -> bool:
    """Whether the index's vectors ("provider:model:dim") come from another model than the
    configured one (whose model name an in-process provider may leave unsaid)."""
    from wherein.embedding.base import EmbedderIdentity  # light: as `describe_embedder` uses

    identity = EmbedderIdentity.from_key(stored) if stored else None
    if identity is None:
        return False
    return identity.provider != embedder.provider or embedder.model not in (None, identity.model)


def _endpoint_line(embedder: EmbedderStatus) -> str:
    name = f"{embedder.provider}, {embedder.model or 'default model'}"
    if embedder.url is None:
        return f"in process ({name})"
    if embedder.answered:
        return f"{embedder.url} ({name}, {embedder.dim} dims): answered"
    return f"{embedder.url} ({name}): configured, no answer: {embedder.error}"
