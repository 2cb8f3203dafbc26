"""The `recall` tool itself: check the arguments, run the action, meter it, shape the result.

The MCP layer (server.py) only moves arguments in and results out; everything the model reads
is decided here and in presentation.py. Arguments are cleaned once, as they arrive
(`schema.clean_arguments`). Every line of text outside the fence goes through
`untrusted.one_line` in `_finish`, so a value a repository wrote (a root, a folder, a setting)
stays on its own line; the fence is the one place file text appears as written. Blocking work
(ranking, the index) runs in a worker thread so the connection keeps answering pings and
cancellations.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio

from wherein.config import Settings, load_settings
from wherein.errors import UsageError, WhereinError
from wherein.index.tiers import FULL, TIERS
from wherein.packages.plan import package_roots
from wherein.plugin.configure import run_configure
from wherein.plugin.jobs import IndexJob
from wherein.plugin.policy import check_agent_change
from wherein.plugin.presentation import render_hits
from wherein.plugin.schema import ACTIONS, AGENT_MAX_LIMIT, clean_arguments, validate_arguments
from wherein.plugin.scoping import folder_inside
from wherein.plugin.session import RecallSession
from wherein.plugin.status import describe_status
from wherein.roots import configured_roots
from wherein.search import SearchResult, run_related, run_search
from wherein.storage.paths import permission_refused
from wherein.untrusted import echo_folder, one_line
from wherein.usage_ledger import UsageRow, append_usage_row, paths_hash

__all__ = ["RecallOutcome", "run_recall"]

logger = logging.getLogger(__name__)

ReportProgress = Callable[[float, float | None, str | None], Awaitable[None]]
# How often a foreground index job is polled for progress to report to the host.
FOREGROUND_POLL_S = 0.25
_SOURCES = {
    "user": "your config file",
    "workspace": "the workspace's .wherein.toml",
    "env": "WHEREIN_SEARCH_LIMIT",
}


@dataclass(frozen=True)
class RecallOutcome:
    """One tool result: the structured object (which carries `text`) and whether it failed."""

    structured: dict[str, Any]
    is_error: bool

    @property
    def text(self) -> str:
        return self.structured["text"]


@dataclass
class _Parts:
    """What an action produced, before the meter and the common fields are added.

    `lines` are sentences that may quote repository text, escaped onto one line each when the
    result is finished; `fence` is the fenced block of excerpts, which goes last as it is.
    """

    lines: list[str]
    fields: dict[str, Any]
    fence: str | None = None
    ok: bool = True
    results: int = 0
    source_chars: int = 0
    paths: tuple[str, ...] = ()


async def run_recall(
    session: RecallSession, arguments: dict[str, Any], report_progress: ReportProgress | None = None
) -> RecallOutcome:
    """Run one `recall` call; errors of ours become an error result, never an exception."""
    action = arguments.get("action", "search") if isinstance(arguments, dict) else "search"
    if action not in ACTIONS:
        action = "search"
    try:
        arguments = clean_arguments(arguments)
        if action == "configure":
            _refuse_widening(arguments)
        validate_arguments(arguments)
        settings = load_settings(session.workspace)
        handler = {
            "search": _search,
            "related": _search,
            "index": _index,
            "status": _status,
            "configure": _configure,
        }[action]
        parts = await handler(session, settings, arguments, report_progress)
        for warning in settings.warnings:  # in both channels, as every other warning
            parts.fields.setdefault("warnings", []).append(warning)
            parts.lines.append(f"Note: {warning}")
    except WhereinError as err:
        parts = _failed(action, type(err).__name__, str(err))
    except PermissionError as err:  # the path refused and what to do, escaped by _failed
        parts = _failed(action, "IndexUnwritable", permission_refused(err))
    except Exception as err:  # a bug must still answer, and not with text from a repository
        logger.exception("recall %s failed", action)
        internal = f"an internal error ({type(err).__name__}); the server's log has the details."
        parts = _failed(action, "InternalError", internal)
    return _finish(session, action, parts)


def _failed(action: str, kind: str, message: str) -> _Parts:
    message = one_line(message)
    error = {"kind": kind, "message": message}
    return _Parts([f"recall {action} failed: {message}"], {"error": error}, ok=False)


def _refuse_widening(arguments: dict[str, Any]) -> None:
    """Name a refused setting before the schema does: its message says why and who may set it."""
    config = arguments.get("config")
    changes = config.get("set") if isinstance(config, dict) else None
    if isinstance(changes, dict):
        for key, value in changes.items():
            check_agent_change(key, value)


def _finish(session: RecallSession, action: str, parts: _Parts) -> RecallOutcome:
    """Add job news, meter the call, write the usage row, and put the text first."""
    news = session.job_news()
    lines = parts.lines
    if news is not None and "job" not in parts.fields:
        parts.fields["job"] = news.snapshot()
        lines = [news.describe(), *lines]
    shown = [one_line(line) for line in lines]
    if parts.fence is not None:
        shown.append(parts.fence)
    text = "\n".join(shown)
    # Hosts hand the model the structured fields too, outside the fence: each string in
    # them (a path, a folder, a setting a repository wrote) is escaped as the text shows it.
    fields = {key: _escaped(value) for key, value in parts.fields.items()}
    structured: dict[str, Any] = {"text": text, "action": action, "ok": parts.ok, **fields}
    returned = len(json.dumps(structured, ensure_ascii=False))
    session.meter.record(action, returned, parts.source_chars, ok=parts.ok)
    append_usage_row(
        UsageRow(
            time=time.time(),
            session=session.id,
            workspace=str(session.workspace),
            action=action,
            results=parts.results,
            returned_chars=returned,
            source_chars=parts.source_chars,
            paths_hash=paths_hash(parts.paths),
        )
    )
    usage = session.meter.to_json()
    if usage is not None and (action in ("search", "status")):
        structured["text"] = f"{text}\n{usage['line']}"
        if action == "status":  # a search's model reads the line; the figures are for status
            structured["usage"] = usage
    return RecallOutcome(structured, is_error=not parts.ok)


def _escaped(value: Any) -> Any:
    """`value` with every string in it, at any depth, made one safe line (`one_line`)."""
    if isinstance(value, str):
        return one_line(value)
    if isinstance(value, dict):
        return {key: _escaped(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_escaped(item) for item in value]
    return value


async def _search(session, settings: Settings, args, _progress) -> _Parts:
    """action=search, and action=related (the chunks like the one at query=FILE:LINE)."""
    related = args.get("action") == "related"
    query = args.get("query")
    if related and query is None:
        raise UsageError("Argument query is missing: for action=related, give FILE or FILE:LINE.")
    if query is None and args.get("exact") is None:
        raise UsageError(
            "Argument query is missing. Say what you are looking for, in words or a name, "
            "or pass action=status, index or configure."
        )
    files, match = _narrowing(args, related)
    workspace = session.workspace
    # A folder of an extra source root is named by its label, as its results are.
    roots = (
        *configured_roots(workspace, settings).extra,
        *package_roots(workspace, settings),
    )
    path = folder_inside(workspace, args["path"], "path", roots) if args.get("path") else None
    # "" or "." is an explicit choice of the whole workspace, over a configured or marked scope.
    focus = (
        folder_inside(workspace, args["focus"], "focus", roots)
        if args.get("focus")
        else args.get("focus")
    )
    limit, capped = _limit(settings, args.get("limit"))
    embedder = await anyio.to_thread.run_sync(session.embedder, settings)
    fast_embedder = await anyio.to_thread.run_sync(session.fast_embedder, settings)
    # While the configured model rests after it could not start, the search does not try it.
    resting = session.embedder_resting(settings) if embedder is None else None
    tiers = frozenset(TIERS) - {FULL.name} if resting else frozenset(TIERS)

    def search() -> SearchResult:
        if related:
            return run_related(
                query,
                workspace=workspace,
                settings=settings,
                limit=limit,
                path=path or None,
                focus=focus,
                files=files,
                fast_embedder=fast_embedder,
                resident=session.resident,
            )
        return run_search(
            query or "",
            workspace=workspace,
            settings=settings,
            limit=limit,
            path=path or None,
            focus=focus,
            embedder=embedder,
            fast_embedder=fast_embedder,
            tiers=tiers,
            resident=session.resident,
            files=files,
            match=match,
        )

    result = await anyio.to_thread.run_sync(search)
    warnings = [*([resting] if resting else []), *result.warnings]
    if result.pending_chunks:
        session.start_backfill(settings)
    else:
        session.fill_not_needed()
    _, block = render_hits(result.hits)
    count = len(result.hits)
    where = f" under {path}" if path else ""
    about = f"for {result.query!r}"
    if result.origin is not None:  # the text says what was compared; the schema stays as it was
        # Its place only: its declared names are the repository's text (a Markdown chunk's
        # are its headings, prose of anyone's choosing), which stays inside the fence.
        about = f"like {result.origin.label}"
    focus_words = _focus_words(result.scope, args.get("focus"))
    lines = [f"{count} result{'s' if count != 1 else ''} {about}{where}{focus_words}."]
    if capped:
        lines.append(f"Note: {capped}")
    if session.backfill_error and not session.backfill_running():
        warnings.append(session.backfill_error)  # a fill that stopped: disk full, no model
    lines += [f"Note: {warning}" for warning in warnings]
    if result.pending_chunks:
        if session.backfill_running():
            filling = "this session is embedding them now"
        else:
            filling = "recall action=index finishes them"
        lines.append(
            f"{result.pending_chunks} chunks in {result.pending_files} files have no vector from "
            f"the configured model yet (the fast tier and keywords cover them); {filling}."
        )
    # What a program needs beside the text, and no more: a Claude Code model reads all of it.
    fields: dict[str, Any] = {"results": [_result_fields(hit) for hit in result.hits]}
    if result.scope.focus:
        fields["scope"] = result.scope.to_json()
    if result.pending_chunks:
        fields["pending"] = {"files": result.pending_files, "chunks": result.pending_chunks}
    if warnings:
        fields["warnings"] = warnings
    job = session.job
    if job is not None and job.running:
        fields["job"] = job.snapshot()
        lines.append(job.describe())
    return _Parts(
        lines,
        fields,
        block,
        results=count,
        source_chars=result.source_chars,
        paths=tuple(hit.path for hit in result.hits),
    )


def _narrowing(args: dict[str, Any], related: bool):
    """The file filter and exact match the arguments ask for (each None when not asked).

    Raises:
        UsageError: a bad language or pattern, or `exact` with action=related.
    """
    from wherein.file_filter import file_filter
    from wherein.text_match import exact_match

    lang, glob, exclude = args.get("lang") or (), args.get("glob") or (), args.get("exclude") or ()
    names = ("Argument lang", "Argument glob", "Argument exclude")
    files = file_filter(lang, glob, exclude, names) if lang or glob or exclude else None
    exact = args.get("exact")
    if exact is not None and related:
        raise UsageError("Argument exact does not apply to action=related; leave it out.")
    return files, (exact_match(exact, "Argument exact") if exact is not None else None)


def _limit(settings: Settings, asked: int | None) -> tuple[int, str | None]:
    """How many results to return, and the note when a config file asked for more than the
    agent may have: the schema caps `limit`, and this caps `search.limit` from any file."""
    if asked is not None:
        return asked, None
    configured = settings["search.limit"]
    if configured <= AGENT_MAX_LIMIT:
        return configured, None
    where = _SOURCES.get(settings.sources["search.limit"], "the settings")
    return AGENT_MAX_LIMIT, (
        f"search.limit is {configured} in {where}, above the agent's cap: at most "
        f"{AGENT_MAX_LIMIT} results are returned."
    )


def _focus_words(scope, asked: str | None) -> str:
    """The focus a search ranked inside, in the text: a marker or a setting may have chosen it."""
    if not scope.focus:
        return ""
    if asked:
        return f", ranked inside {scope.focus}"
    why = "a focus marker file" if scope.resolved_by == "marker" else "scope.focus"
    # Not the agent's choice: the repository named the folder (a marker's place, its file's
    # scope.focus), and this heads the answer, outside the fence.
    shown = echo_folder(scope.focus)
    return f", ranked inside {shown} (chosen by {why}; focus='.' searches everything)"


def _result_fields(hit) -> list[Any]:
    """`[path, start_line, end_line]` in rank order, and the absolute path for a result from
    an extra root: the title in the text says the rest. Named keys would cost a Claude Code
    model ~40 characters a result, which is what made its answers 30% over the text."""
    location: list[Any] = [hit.path, hit.start_line, hit.end_line]
    if hit.source_path:
        location.append(hit.source_path)
    return location


async def _index(session, settings: Settings, args, report_progress) -> _Parts:
    # Off the event loop: starting a job first stops the background fill at its next batch.
    job, started = await anyio.to_thread.run_sync(session.start_index, settings)
    if args.get("run_in_background", True):
        if started:
            text = (
                f"Index job {job.id} started in the background. Search works meanwhile; "
                "recall action=status shows its progress."
            )
        else:
            text = f"An index job is already running; not starting another. {job.describe()}"
        return _Parts([text], {"job": job.snapshot("started" if started else None)})
    await _follow(job, report_progress)
    session.mark_job_reported()
    snapshot = job.snapshot()
    if snapshot["state"] != "done":
        return _Parts(
            [job.describe()],
            {
                "job": snapshot,
                "error": {"kind": "IndexJobFailed", "message": one_line(snapshot["error"] or "")},
            },
            ok=False,
        )
    return _Parts([job.describe()], {"job": snapshot})


# A foreground job's progress is one number across its stages, each stage one unit: MCP
# requires it to increase with each notification, and each stage counts from zero again
# (files scanned, then chunks given fast vectors, then chunks embedded).
PROGRESS_STAGES = ("scan", "fast", "embed")


async def _follow(job: IndexJob, report_progress: ReportProgress | None) -> None:
    """Wait for a foreground job, reporting progress; cancel it if the call is cancelled."""
    sent = 0.0
    try:
        while job.running:
            await anyio.sleep(FOREGROUND_POLL_S)
            s = job.snapshot()
            if report_progress is None or s["stage"] not in PROGRESS_STAGES:
                continue
            stage = PROGRESS_STAGES.index(s["stage"])
            if stage:
                done, total = s["chunks_done"], s["chunks_total"]
            else:
                done, total = s["files_done"], s["files_total"]
            overall = round(stage + (min(done, total) / total if total else 0.0), 4)
            if overall > sent:  # never repeated, never back (a second embedding pass)
                sent = overall
                await report_progress(overall, len(PROGRESS_STAGES), one_line(job.describe()))
    except anyio.get_cancelled_exc_class():
        job.cancel("the call that started it was cancelled")
        raise


async def _status(session, settings: Settings, _args, _progress) -> _Parts:
    building = session.job is not None and session.job.running
    fields, lines = await anyio.to_thread.run_sync(
        describe_status, session.workspace, settings, building
    )
    fields = {"workspace": str(session.workspace), **fields}
    detector = session.resident.change_detector()
    if detector is not None:
        kind, reason = detector
        fields["changes"] = {"detector": kind, "reason": reason}
        if kind == "walk":
            lines.append(f"Changes: each search walks the tree ({reason}).")
        else:
            lines.append(
                "Changes: watched with inotify."
                if reason is None
                else f"Changes: each search checks every indexed file by stat ({reason})."
            )
    if session.backfill_running():
        lines.append("This session is embedding the chunks left without a vector.")
    elif session.backfill_error:
        fields["fill_error"] = session.backfill_error
        lines.append(f"Note: {session.backfill_error}")
    if session.job is not None:
        fields["job"] = session.job.snapshot()
        lines.append(session.job.describe())
        session.mark_job_reported()
    return _Parts(lines, fields)


async def _configure(session, _settings: Settings, args, _progress) -> _Parts:
    block, lines = await anyio.to_thread.run_sync(
        run_configure, session.workspace, args.get("config") or {}
    )
    return _Parts(lines, {"config": block})
