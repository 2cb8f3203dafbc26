"""The `wherein` command: parse, call the library, format. Results to stdout, the rest to stderr.

Arguments are cleaned once, as argparse hands them over (`_clean_arguments`). Whatever is
printed may quote a repository (a file or folder name, a setting, a walk note), so each message
and each line goes out through `untrusted.one_line`, each report through `untrusted.visible`,
and JSON through `untrusted.json_text`: no value can start a line or send a terminal a control
sequence.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from wherein import __version__
from wherein.completion import SHELLS
from wherein.errors import UsageError, WhereinError
from wherein.result_options import add_result_options
from wherein.untrusted import as_text, echo, json_text, one_line, visible

__all__ = ["main"]

# Folders the index records by name, as text: a name that is not UTF-8 cannot be one.
_FOLDER_OPTIONS = frozenset({"workspace", "path", "focus"})
# Files and programs handed to the system as they are, whatever bytes their names hold.
_SYSTEM_PATH_OPTIONS = frozenset({"ledger", "html", "command_name"})
# What `wherein --help` tells a person; the module docstring above is for whoever edits this.
_DESCRIPTION = """\
Find where something is handled in a code repository: ranked code excerpts (path, line range,
a bounded slice of code) for a question in words or a name."""
_EPILOG = """\
examples:
  wherein search "where are search results ranked"   (indexes what it needs first)
  wherein index      embed every chunk with the configured model now
  wherein status     what the index holds, touching nothing
  wherein install    register the recall tool with your coding agents

The workspace is the nearest folder above the current one holding .git or .wherein.toml,
else the current folder; --workspace DIR chooses it.
Exit codes: 0 success, 2 usage error, 1 other failure.
The commands, their --json output, the MCP tool and every setting: docs/contracts.md in the
source repository."""


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one sentence and exit code 2 like ours."""

    def error(self, message: str) -> None:  # type: ignore[override]
        # `prog` is the full command ("wherein", "wherein config set"), so the hint runs as typed.
        self.exit(2, f"wherein: {one_line(message)}. See '{self.prog} --help'.\n")


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="wherein",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"wherein {__version__}")
    commands = parser.add_subparsers(
        dest="command", required=True, parser_class=_Parser, metavar="command", title="commands"
    )

    index = commands.add_parser("index", help="build or refresh the index of a workspace")
    index.add_argument(
        "--workspace", help="the folder to index (default: the project around the current folder)"
    )
    index.add_argument("--focus", help="a folder inside the workspace to embed first")

    search = commands.add_parser("search", help="find where something is handled")
    search.add_argument(
        "query",
        nargs="?",
        default="",
        help="words or a name: 'how are retries handled', 'Session' (optional with -F or --regex)",
    )
    search.add_argument(
        "--workspace", help="the folder to search (default: the project around the current folder)"
    )
    search.add_argument("--limit", type=int, help="how many results (default 8)")
    search.add_argument("--path", help="only results under this folder of the workspace")
    search.add_argument("--focus", help="rank only inside this folder of the workspace")
    add_result_options(search)
    literal = search.add_mutually_exclusive_group()
    literal.add_argument(
        "-F", "--exact", metavar="TEXT", help="only chunks holding TEXT exactly (case-sensitive)"
    )
    literal.add_argument(
        "--regex", metavar="PATTERN", help="only chunks a Python regular expression matches"
    )

    related = commands.add_parser("related", help="the chunks most like the one at FILE[:LINE]")
    related.add_argument(
        "place", metavar="FILE[:LINE]", help="a file as results show it, and a line in it"
    )
    related.add_argument(
        "--workspace", help="the folder to search (default: the project around the current folder)"
    )
    related.add_argument("--limit", type=int, help="how many results (default 8)")
    related.add_argument("--path", help="only results under this folder of the workspace")
    related.add_argument("--focus", help="rank only inside this folder of the workspace")
    add_result_options(related)

    status = commands.add_parser("status", help="what the index holds, touching nothing")
    status.add_argument(
        "--workspace", help="the workspace (default: the project around the current folder)"
    )
    status.add_argument("--json", action="store_true", help="print one JSON object")

    roots = commands.add_parser("roots", help="extra source roots: library code to search too")
    roots_actions = roots.add_subparsers(dest="action", required=True, parser_class=_Parser)
    suggest = roots_actions.add_parser(
        "suggest", help="list the Python and node packages the workspace imports, to add"
    )
    suggest.add_argument(
        "--workspace", help="the workspace (default: the project around the current folder)"
    )
    suggest.add_argument("--json", action="store_true", help="print one JSON object")
    add = roots_actions.add_parser(
        "add", help="add installed packages (NAME[@VERSION], npm:NAME) as shared package roots"
    )
    add.add_argument("names", nargs="+", metavar="NAME", help="a distribution or npm package")
    add.add_argument("--python", help="the environment's python (default: the active one)")
    add.add_argument("--user", action="store_true", help="write your own config file")
    add.add_argument(
        "--workspace", help="the workspace (default: the project around the current folder)"
    )
    add.add_argument("--json", action="store_true", help="print one JSON object")

    indexes = commands.add_parser(
        "indexes", aliases=["list"], help="every index kept: workspace, size, chunks, last used"
    )
    indexes.add_argument("--json", action="store_true", help="print one JSON object")
    forget = commands.add_parser("forget", help="remove the index of one workspace")
    forget.add_argument(
        "workspace",
        nargs="?",
        metavar="WORKSPACE",
        help="its folder (it may be gone) or the index's name in 'wherein indexes' "
        "(default: the current workspace)",
    )
    forget.add_argument("--json", action="store_true", help="print one JSON object")
    gc = commands.add_parser("gc", help="remove the indexes whose workspace folder is gone")
    gc.add_argument("--yes", action="store_true", help="remove them without asking")
    gc.add_argument("--json", action="store_true", help="print one JSON object")

    config = commands.add_parser("config", help="read or write a setting")
    config_actions = config.add_subparsers(dest="action", required=True, parser_class=_Parser)
    get = config_actions.add_parser("get", help="print a setting's value and where it came from")
    get.add_argument("key")
    get.add_argument("--workspace", help="the workspace whose .wherein.toml applies")
    setter = config_actions.add_parser("set", help="write a setting to your config file")
    setter.add_argument("key")
    setter.add_argument("value")
    setter.add_argument("--workspace", help="the workspace for --workspace-file")
    setter.add_argument(
        "--workspace-file", action="store_true", help="write the workspace's .wherein.toml"
    )

    serve = commands.add_parser("serve", help="serve the recall tool to an agent (MCP, stdio)")
    serve.add_argument(
        "--workspace", help="the folder to serve (default: the project around the current folder)"
    )

    history = commands.add_parser("history", help="recall your own agent conversations")
    history_actions = history.add_subparsers(dest="action", required=True, parser_class=_Parser)
    history_actions.add_parser("index", help="index Claude Code and Codex transcripts")
    recall = history_actions.add_parser("search", help="quote the conversations that match")
    recall.add_argument("query", help="what the conversation was about")
    recall.add_argument("--limit", type=int, help="how many conversations (default 5)")
    recall.add_argument("--json", action="store_true", help="print one JSON object")

    install = commands.add_parser("install", help="register wherein with your coding agents")
    uninstall = commands.add_parser("uninstall", help="remove wherein from your coding agents")
    for sub in (install, uninstall):
        sub.add_argument(
            "agents",
            nargs="*",
            metavar="AGENT",
            help="claude, codex, cursor, ... (default: every agent found)",
        )
        scope = sub.add_mutually_exclusive_group()
        scope.add_argument("--user", action="store_true", help="your own config (install default)")
        scope.add_argument("--project", action="store_true", help="the workspace's config files")
        sub.add_argument(
            "--workspace", help="the project (default: the one around the current folder)"
        )
        sub.add_argument("--dry-run", action="store_true", help="print the diff, write nothing")
        sub.add_argument(
            "--statusline",
            action="store_true",
            help="Claude Code's status line: wherein's recall and cost line (uninstall: it alone)",
        )
    install.add_argument(
        "--with-instructions",
        action="store_true",
        help="also add a note on when to call recall to CLAUDE.md / AGENTS.md",
    )
    install.add_argument(
        "--force",
        action="store_true",
        help="with --statusline, replace a status line you have (uninstall puts it back)",
    )
    install.add_argument(
        "--command",
        dest="command_name",
        help="the program agents run (default: this wherein, by absolute path)",
    )
    doctor = commands.add_parser("doctor", help="check the setup end to end and say what to fix")
    doctor.add_argument(
        "--workspace", help="the workspace (default: the project around the current folder)"
    )

    baseline = commands.add_parser("baseline", help="what agent sessions cost, with recall or not")
    baseline.add_argument("--ledger", action="append", metavar="FILE", help="a JSONL ledger")
    baseline.add_argument("--since", help="from this day (YYYY-MM-DD, UTC) or ISO time")
    baseline.add_argument("--until", help="to this day, inclusive, or ISO time")
    baseline.add_argument("--project", help="only requests whose project path contains this")
    baseline.add_argument("--json", action="store_true", help="print one JSON object")
    baseline.add_argument("--html", metavar="FILE", help="also write the report as an HTML page")
    baseline.add_argument(
        "--no-cache", action="store_true", help="read every file again; keep no parse cache"
    )
    baseline.add_argument(
        "--by",
        metavar="GROUP",
        help="a row per day, week, month, session, project or model",
    )

    commands.add_parser(
        "statusline",
        help="one line for Claude Code's status bar: this session's recall calls and cost",
    )

    evaluation = commands.add_parser("eval", help="score search on this repository's history")
    evaluation.add_argument(
        "--workspace", help="the git checkout (default: the project around the current folder)"
    )
    evaluation.add_argument("--commits", type=int, help="mine up to N commits (default 1000)")
    evaluation.add_argument("--since", help="only commits from this day on (YYYY-MM-DD)")
    evaluation.add_argument(
        "--compare",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="also run with this setting, in a temporary index (repeatable)",
    )
    evaluation.add_argument("--tiers", action="store_true", help="also rank by each tier alone")
    evaluation.add_argument("--json", action="store_true", help="print one JSON object")
    evaluation.add_argument("--html", metavar="FILE", help="also write the report as an HTML page")

    completion = commands.add_parser("completion", help="print a shell's tab-completion script")
    completion.add_argument("shell", choices=SHELLS, help="the shell to complete wherein in")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 2 usage error, 1 other failure)."""
    if (sys.argv[1:] if argv is None else list(argv)) == ["statusline"]:
        return _statusline(None)  # runs on every refresh of the agent's status bar: no parser
    args = _build_parser().parse_args(argv)
    try:
        _clean_arguments(args)
        handler = {
            "index": _index,
            "search": _search,
            "related": _related,
            "completion": _completion,
            "status": _status,
            "roots": _roots,
            "config": _config,
            "serve": _serve,
            "baseline": _baseline,
            "install": _install,
            "uninstall": _install,
            "doctor": _doctor,
            "history": _history,
            "eval": _eval,
            "indexes": _housekeeping,
            "list": _housekeeping,
            "forget": _housekeeping,
            "gc": _housekeeping,
            "statusline": _statusline,
        }[args.command]
        code = handler(args)
        sys.stdout.flush()  # here, so a reader that went away is met below, not at exit
        return code
    except BrokenPipeError:
        # `wherein search ... | head -1`: the reader has what it wanted. Nothing may be
        # written to the closed pipe again, or the interpreter reports it as it exits.
        _drop_stdout()
        return 0
    except WhereinError as err:
        _say(str(err))
        return err.exit_code
    except KeyboardInterrupt:
        _say("interrupted; the index keeps what was committed.")
        return 130


def _drop_stdout() -> None:
    """Point stdout at /dev/null, as Python's documentation does for a closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real descriptor (a test's capture)
        pass


def _clean_arguments(args: argparse.Namespace) -> None:
    """Undecodable argv bytes arrive as lone surrogates (PEP 383), which neither the tokenizer
    nor SQLite nor stdout accepts: in text they become U+FFFD; a folder must be UTF-8.

    Raises:
        UsageError: --workspace, --path or --focus names a folder that is not valid UTF-8.
    """
    for name, value in vars(args).items():
        if name in _SYSTEM_PATH_OPTIONS:
            continue
        if isinstance(value, str):
            setattr(args, name, _clean_text(name, value))
        elif isinstance(value, list):
            setattr(args, name, [_clean_text(name, v) if isinstance(v, str) else v for v in value])


def _clean_text(name: str, value: str) -> str:
    text = as_text(value)
    if text != value and name in _FOLDER_OPTIONS:
        try:  # the bytes as typed, `\xff` for each one that is not UTF-8
            shown = os.fsencode(value).decode("utf-8", "backslashreplace")
        except UnicodeEncodeError:  # not from argv: a surrogate no byte decodes to
            shown = value
        raise UsageError(
            f"--{name} {echo(shown)} is not valid UTF-8, and wherein keeps folder names as "
            "text: rename the folder, or name one whose path is UTF-8."
        )
    return text


def _say(message: str) -> None:
    """One message to stderr, on one line whatever the repository put in it."""
    print(f"wherein: {one_line(message)}", file=sys.stderr)


def _show(line: str) -> None:
    """One line to stdout, escaped like `_say`."""
    print(one_line(line))


def _dump(value: Any) -> None:
    """One JSON object to stdout: exact, and nothing a terminal would act on."""
    sys.stdout.write(json_text(value) + "\n")


def _workspace(args: argparse.Namespace) -> Path:
    return _workspace_choice(args).path


def _workspace_choice(args: argparse.Namespace):
    from wherein.workspace_choice import choose_workspace

    return choose_workspace(getattr(args, "workspace", None))


def _settings(workspace: Path | None):
    from wherein.config import load_settings

    settings = load_settings(workspace)
    for warning in settings.warnings:
        _say(warning)
    return settings


def _index(args: argparse.Namespace) -> int:
    from wherein.indexing import build_index
    from wherein.progress import ProgressDisplay

    workspace = _workspace(args)
    settings = _settings(workspace)
    from wherein.roots import plan_roots
    from wherein.scope import resolve_scope

    roots = plan_roots(workspace, settings["scope.source_roots"]).extra
    scope = resolve_scope(workspace, args.focus, settings, roots=roots)

    def waiting() -> None:
        _say(f"another process is indexing {workspace}; waiting for it to finish.")

    with ProgressDisplay(sys.stderr) as display:
        summary = build_index(
            workspace, settings, progress=display.update, on_wait=waiting, focus=scope.focus
        )
    for notice in summary.notices:
        _say(notice)
    for item in summary.report.unreadable[:20]:
        _say(f"unreadable, skipped: {item}")
    _show(summary.line())
    return 0


def _search(args: argparse.Namespace) -> int:
    from wherein.result_options import result_filters, text_match
    from wherein.search import run_search

    if args.limit is not None and args.limit < 1:
        raise UsageError(f"--limit {args.limit} is not allowed: ask for at least 1 result.")
    files, match = result_filters(args), text_match(args)
    workspace = _workspace(args)
    settings = _settings(workspace)
    result = run_search(
        args.query,
        workspace=workspace,
        settings=settings,
        limit=args.limit,
        path=args.path,
        focus=args.focus,
        files=files,
        match=match,
        excerpt_lines=args.lines,
    )
    return _print_result(result, args)


def _related(args: argparse.Namespace) -> int:
    from wherein.result_options import result_filters
    from wherein.search import run_related

    if args.limit is not None and args.limit < 1:
        raise UsageError(f"--limit {args.limit} is not allowed: ask for at least 1 result.")
    files = result_filters(args)
    workspace = _workspace(args)
    result = run_related(
        args.place,
        workspace=workspace,
        settings=_settings(workspace),
        limit=args.limit,
        path=args.path,
        focus=args.focus,
        files=files,
        excerpt_lines=args.lines,
    )
    return _print_result(result, args)


def _print_result(result, args: argparse.Namespace) -> int:
    """A search's results in the form asked for: text, one JSON object, JSON lines or files."""
    if args.json:
        _dump(result.to_json())
        return 0
    for warning in result.warnings:
        _say(warning)
    if args.jsonl or args.files_only:
        from wherein.line_output import print_files, print_jsonl

        (print_jsonl if args.jsonl else print_files)(result, sys.stdout)
        return 0
    from wherein.present import print_results

    if result.origin is not None:
        names = ", ".join(result.origin.symbols[:3])
        _show(f"Like {result.origin.label}" + (f"  {names}" if names else "") + ":")
    print_results(result, sys.stdout)
    return 0


def _completion(args: argparse.Namespace) -> int:
    from wherein.completion import completion_script

    sys.stdout.write(completion_script(_build_parser(), args.shell))
    return 0


def _status(args: argparse.Namespace) -> int:
    from wherein.embedding.probe import describe_embedder
    from wherein.index.status import read_status
    from wherein.roots import plan_roots
    from wherein.scope import marker_names, resolve_scope

    choice = _workspace_choice(args)
    workspace = choice.path
    settings = _settings(workspace)
    plan = plan_roots(workspace, settings["scope.source_roots"])
    status = read_status(workspace, marker_names(settings["scope.focus_markers"]), plan.extra)
    status["workspace_chosen_by"] = choice.to_json()
    try:
        status["scope"] = resolve_scope(workspace, None, settings, roots=plan.extra).to_json()
    except UsageError as err:  # a stale configured focus must not hide the rest of the status
        status["scope"] = {
            "focus": settings["scope.focus"],
            "resolved_by": "explicit",
            "error": str(err),
        }
    status["root_problems"] = list(plan.problems)
    # "embedder" is the configured one and whether it answered; the index's stored identity
    # moves to "index_embedder".
    status["index_embedder"] = status.pop("embedder", None)
    status["embedder"], status["endpoint_error"] = describe_embedder(
        settings, status["index_embedder"]
    )
    if args.json:
        _dump(status)
        return 0
    _show(f"workspace  {status['workspace']} ({choice.describe()})")
    _show(f"index      {status['index_path']}")
    _show(f"endpoint   {_endpoint_line(status['embedder'], status['endpoint_error'])}")
    if not status["exists"]:
        _show("state      no index yet: run 'wherein index'")
        _print_scopes(status, settings["scope.focus_markers"])
        return 0
    if "error" in status:
        _show(f"state      unreadable: {status['error']}")
        return 1
    pending = status["pending"]
    _show(f"files      {status['files']} indexed, {status['skipped_files']} skipped")
    _show(f"chunks     {status['chunks']} ({pending['chunks']} waiting for a vector)")
    _show(f"embedder   {status['index_embedder'] or '(none yet)'}")
    fast = status.get("fast_tier")
    if fast and (fast["model"] or fast["pending"]):
        _show(f"fast tier  {fast['chunks']} chunks, {fast['pending']} waiting ({fast['model']})")
    _print_scopes(status, settings["scope.focus_markers"])
    return 0


def _print_scopes(status: dict, markers: list[str]) -> None:
    """The focus, the marked folders one could focus on, and the extra roots."""
    scope = status["scope"]
    focus = f"{scope['focus'] or '(whole workspace)'}, {scope['resolved_by']}"
    _show(f"focus      {focus}: {scope['error']}" if "error" in scope else f"focus      {focus}")
    if markers and "scopes" in status:
        _show(f"scopes     {len(status['scopes'])} folders marked by {', '.join(markers)}")
        for item in status["scopes"]:
            _show(f"  {item['focus']}  {item['chunks']} chunks in {item['files']} files")
    for root in status.get("roots", []):
        _show(
            f"root       {root['label']}={root['path']}  {root['chunks']} chunks in "
            f"{root['files']} files"
        )
    for problem in status["root_problems"]:
        _show(f"unusable   {problem}")
    if not status.get("roots") and not status["root_problems"]:
        _show("roots      none: 'wherein roots suggest' lists library folders you could add")


def _roots(args: argparse.Namespace) -> int:
    from wherein.root_suggestions import add_command, suggest_roots

    if args.action == "add":
        return _roots_add(args)
    from wherein.packages.suggest import add_packages_command, suggest_packages

    workspace = _workspace(args)
    settings = _settings(workspace)
    configured = settings["scope.source_roots"]
    suggestions = suggest_roots(workspace, configured)
    command = add_command(workspace, configured, suggestions) if suggestions else None
    packages = suggest_packages(workspace, suggestions, settings["scope.packages"])
    add = add_packages_command(workspace, packages) if packages else None
    if args.json:
        payload = {
            "workspace": str(workspace),
            "configured": configured,
            "suggestions": [s.to_json() for s in suggestions],
            "command": command,
            "packages": [p.to_json() for p in packages],
            "packages_command": add,
        }
        _dump(payload)
        return 0
    if packages:
        for p in packages:
            _show(f"{p.entry}\t({p.kind}: {p.reason})")
        print("\nAdd them as shared package roots (indexed once per version) with:")
        _show(f"  {add}")
        if suggestions:
            print("\nOr add their folders to this workspace's own index:")
    if not suggestions:
        print(
            "No library folder to suggest: no package the workspace imports was found in a "
            "virtualenv, the python3 on PATH or a node_modules (or all are configured already)."
        )
        return 0
    for s in suggestions:
        _show(f"{s.entry}\t({s.kind}: {s.reason})")
    print("\nAdd them all with:")
    _show(f"  {command}")
    if "--workspace-file" not in command:
        print(
            "(Some are outside the workspace, which its .wherein.toml may not name: this "
            "writes your own config file, whose roots apply in every workspace.)"
        )
    return 0


def _roots_add(args: argparse.Namespace) -> int:
    from wherein.packages.adding import add_packages
    from wherein.progress import ProgressDisplay

    workspace = _workspace(args)
    with ProgressDisplay(sys.stderr) as display:
        added = add_packages(
            workspace,
            args.names,
            python=args.python,
            user=args.user,
            progress=display.update,
            on_wait=lambda: _say("another process is building the same package; waiting."),
        )
    if args.json:
        _dump(added.to_json())
        return 0
    for build in added.builds:
        how = (
            f"built in {build.seconds:.1f} s ({build.chunks_embedded} chunks embedded)"
            if build.built
            else "reused, built before"
        )
        _show(f"{build.package.label}\t{len(build.package.files)} files, shared index {how}")
    _show(f"scope.packages in {added.config_path}: {', '.join(added.entries)}")
    return 0


def _endpoint_line(embedder: dict, problem: str | None) -> str:
    name = f"{embedder['provider']}, {embedder['model'] or 'default model'}"
    if embedder["url"] is None:
        return f"in process ({name})"
    if embedder["answered"]:
        return f"{embedder['url']} ({name}, {embedder['dim']} dims): answered"
    return f"{embedder['url']} ({name}): configured, no answer: {problem}"


def _config(args: argparse.Namespace) -> int:
    from wherein.config import config_get, config_set, user_config_path, workspace_config_path

    workspace = (
        _workspace(args) if args.workspace or getattr(args, "workspace_file", False) else None
    )
    if args.action == "get":
        value, source = config_get(args.key, workspace or _cwd_workspace())
        _show(f"{value}\t({source})")
        return 0
    path = workspace_config_path(workspace) if args.workspace_file else user_config_path()
    config_set(args.key, args.value, path, workspace_file=args.workspace_file)
    _show(f"Set {args.key} in {path}.")
    return 0


def _serve(args: argparse.Namespace) -> int:
    from wherein.plugin.server import serve

    return serve(_workspace(args))


def _baseline(args: argparse.Namespace) -> int:
    from wherein.meter import build_baseline, format_report

    summary = build_baseline(
        args.ledger or (),
        since=args.since,
        until=args.until,
        project=args.project,
        with_days=bool(args.html),
        cache=not args.no_cache,
        by=args.by,
    )
    if args.html:
        from wherein.meter.html import write_html

        size = write_html(summary, Path(args.html))
        _say(f"wrote the HTML report to {args.html} ({size:,} bytes).")
    if args.json:
        _dump(summary)  # built whole before writing: a failure never leaves half a JSON
    elif args.by:
        from wherein.meter.report import format_breakdown

        sys.stdout.write(visible(format_breakdown(summary)))
    else:
        ascii_only = not _can_encode(sys.stdout, "\u2588\u2589")  # the step chart's blocks
        sys.stdout.write(visible(format_report(summary, ascii_only=ascii_only)))
    return 0


def _can_encode(stream, text: str) -> bool:
    try:
        text.encode(getattr(stream, "encoding", None) or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def _history(args: argparse.Namespace) -> int:
    from wherein.history.command import run_history

    return run_history(args, _settings(None), sys.stdout, sys.stderr)


def _statusline(args: argparse.Namespace | None) -> int:
    from wherein.meter.statusline import run_statusline

    return run_statusline(sys.stdin.buffer, sys.stdout)


def _eval(args: argparse.Namespace) -> int:
    from wherein.evaluation.command import run_eval

    workspace = _workspace(args)
    return run_eval(args, workspace, _settings(workspace), sys.stdout, sys.stderr)


def _housekeeping(args: argparse.Namespace) -> int:
    from wherein.housekeeping import run_housekeeping

    return run_housekeeping(args, sys.stdin, sys.stdout, sys.stderr)


def _install(args: argparse.Namespace) -> int:
    from wherein.install import (
        apply_plan,
        format_outcome,
        plan_install,
        plan_uninstall,
        server_command,
    )

    workspace = _workspace(args)
    if args.command == "install":
        scope = "project" if args.project else "user"
        plan = plan_install(
            args.agents,
            scope,
            workspace,
            server_command(args.command_name),
            args.with_instructions,
            args.statusline,
            args.force,
        )
    else:
        scopes = ("project",) if args.project else ("user",) if args.user else ("user", "project")
        plan = plan_uninstall(args.agents, scopes, workspace, args.statusline)
    sys.stdout.write(visible(format_outcome(plan, apply_plan(plan, args.dry_run), args.dry_run)))
    return 0


def _doctor(args: argparse.Namespace) -> int:
    from wherein.doctor import FAIL, format_checks, run_doctor

    workspace = _workspace(args)
    checks = run_doctor(workspace)
    sys.stdout.write(visible(format_checks(workspace, checks)))
    return 1 if any(check.status == FAIL for check in checks) else 0


def _cwd_workspace() -> Path | None:
    """The workspace `config get` reads the `.wherein.toml` of, when one can be chosen."""
    from wherein.errors import WorkspaceError
    from wherein.workspace_choice import choose_workspace

    try:
        return choose_workspace(None).path
    except WorkspaceError:
        return None


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
