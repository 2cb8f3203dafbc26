"""The `wherein` command line's grammar: every subcommand, its flags and their help.

One function per command adds its parser, listed in `_COMMANDS` in the order `wherein --help`
lists them; the handler for each is chosen in `wherein.cli.app.HANDLERS`.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Sequence

from wherein import __version__
from wherein.completion import SHELLS
from wherein.result_options import add_result_options
from wherein.untrusted import one_line

__all__ = ["COMMAND_NAMES", "Parser", "build_parser", "command_word"]

# What `wherein --help` tells a person; the module docstrings are for whoever edits this.
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


class Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one sentence and exit code 2 like ours."""

    def error(self, message: str) -> None:  # type: ignore[override]
        # `prog` is the full command ("wherein", "wherein config set"), so the hint runs as typed.
        self.exit(2, f"wherein: {one_line(message)}. See '{self.prog} --help'.\n")

    def parse_args(self, args=None, namespace=None):  # type: ignore[override]
        """argparse's, but arguments left over are refused by the command they were given to,
        whose help names what it takes (the top parser's pointed at `wherein --help`)."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = self._command_parser(parsed) or self
            hint = ""
            if any(os.path.isdir(extra) for extra in extras if not extra.startswith("-")):
                hint = " (a folder to work in goes after --workspace)"
            command.error(f"unrecognized arguments: {' '.join(extras)}{hint}")
        return parsed

    def _command_parser(self, parsed: argparse.Namespace) -> argparse.ArgumentParser | None:
        """The deepest command chosen (`config set`, not `config`), None for none."""
        found = None
        parser: argparse.ArgumentParser = self
        while True:
            sub = next(
                (a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None
            )
            chosen = sub.choices.get(getattr(parsed, sub.dest, None) or "") if sub else None
            if chosen is None:
                return found
            found = parser = chosen


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole grammar; with `command` (a name in `COMMAND_NAMES`) the top level and that
    command's parser alone. argparse looks each help string it adds up in gettext's
    catalogues (77 lookups, 6 ms of every run), and a run parses one command."""
    parser = Parser(
        prog="wherein",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"wherein {__version__}")
    commands = parser.add_subparsers(
        dest="command", required=True, parser_class=Parser, metavar="command", title="commands"
    )
    for names, add in _COMMANDS:
        if command is None or command in names:
            add(commands)
    return parser


def command_word(argv: Sequence[str]) -> str | None:
    """The command `argv` names first, if it names one: the only parser a run needs built.
    None for anything else (`--help`, `--version`, a mistyped command), which gets them all."""
    return argv[0] if argv and argv[0] in COMMAND_NAMES else None


def _index(commands: argparse._SubParsersAction) -> None:
    index = commands.add_parser("index", help="build or refresh the index of a workspace")
    index.add_argument(
        "--workspace", help="the folder to index (default: the project around the current folder)"
    )
    index.add_argument("--focus", help="a folder inside the workspace to embed first")


def _search(commands: argparse._SubParsersAction) -> None:
    search = commands.add_parser("search", help="find where something is handled")
    search.add_argument(
        "query",
        nargs="?",
        default="",
        help="words or a name: 'how are retries handled', 'Session' (optional with -F or --regex)",
    )
    _add_search_options(search)
    literal = search.add_mutually_exclusive_group()
    literal.add_argument(
        "-F", "--exact", metavar="TEXT", help="only chunks holding TEXT exactly (case-sensitive)"
    )
    literal.add_argument(
        "--regex", metavar="PATTERN", help="only chunks a Python regular expression matches"
    )


def _related(commands: argparse._SubParsersAction) -> None:
    related = commands.add_parser("related", help="the chunks most like the one at FILE[:LINE]")
    related.add_argument(
        "place", metavar="FILE[:LINE]", help="a file as results show it, and a line in it"
    )
    _add_search_options(related)


def _status(commands: argparse._SubParsersAction) -> None:
    status = commands.add_parser("status", help="what the index holds, touching nothing")
    status.add_argument(
        "--workspace", help="the workspace (default: the project around the current folder)"
    )
    status.add_argument("--json", action="store_true", help="print one JSON object")


def _roots(commands: argparse._SubParsersAction) -> None:
    roots = commands.add_parser("roots", help="extra source roots: library code to search too")
    roots_actions = roots.add_subparsers(dest="action", required=True, parser_class=Parser)
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


def _indexes(commands: argparse._SubParsersAction) -> None:
    indexes = commands.add_parser(
        "indexes", aliases=["list"], help="every index kept: workspace, size, chunks, last used"
    )
    indexes.add_argument("--json", action="store_true", help="print one JSON object")


def _forget(commands: argparse._SubParsersAction) -> None:
    forget = commands.add_parser("forget", help="remove the index of one workspace")
    forget.add_argument(
        "workspace",
        nargs="?",
        metavar="WORKSPACE",
        help="its folder (it may be gone) or the index's name in 'wherein indexes' "
        "(default: the current workspace)",
    )
    forget.add_argument("--json", action="store_true", help="print one JSON object")


def _gc(commands: argparse._SubParsersAction) -> None:
    gc = commands.add_parser("gc", help="remove the indexes whose workspace folder is gone")
    gc.add_argument("--yes", action="store_true", help="remove them without asking")
    gc.add_argument("--json", action="store_true", help="print one JSON object")


def _config(commands: argparse._SubParsersAction) -> None:
    config = commands.add_parser("config", help="read or write a setting")
    config_actions = config.add_subparsers(dest="action", required=True, parser_class=Parser)
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


def _serve(commands: argparse._SubParsersAction) -> None:
    serve = commands.add_parser("serve", help="serve the recall tool to an agent (MCP, stdio)")
    serve.add_argument(
        "--workspace", help="the folder to serve (default: the project around the current folder)"
    )


def _history(commands: argparse._SubParsersAction) -> None:
    history = commands.add_parser("history", help="recall your own agent conversations")
    history_actions = history.add_subparsers(dest="action", required=True, parser_class=Parser)
    history_actions.add_parser("index", help="index Claude Code and Codex transcripts")
    recall = history_actions.add_parser("search", help="quote the conversations that match")
    recall.add_argument("query", help="what the conversation was about")
    recall.add_argument("--limit", type=int, help="how many conversations (default 5)")
    recall.add_argument("--json", action="store_true", help="print one JSON object")


def _install(commands: argparse._SubParsersAction) -> None:
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


def _doctor(commands: argparse._SubParsersAction) -> None:
    doctor = commands.add_parser("doctor", help="check the setup end to end and say what to fix")
    doctor.add_argument(
        "--workspace", help="the workspace (default: the project around the current folder)"
    )


def _baseline(commands: argparse._SubParsersAction) -> None:
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


def _statusline(commands: argparse._SubParsersAction) -> None:
    commands.add_parser(
        "statusline",
        help="one line for Claude Code's status bar: this session's recall calls and cost",
    )


def _evaluation(commands: argparse._SubParsersAction) -> None:
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


def _completion(commands: argparse._SubParsersAction) -> None:
    completion = commands.add_parser("completion", help="print a shell's tab-completion script")
    completion.add_argument("shell", choices=SHELLS, help="the shell to complete wherein in")


def _add_search_options(command: argparse.ArgumentParser) -> None:
    """Where `search` and `related` look, how many results, and how they are shown."""
    command.add_argument(
        "--workspace", help="the folder to search (default: the project around the current folder)"
    )
    command.add_argument(
        "--limit", type=int, help="how many results (default: search.limit, 8 unless set)"
    )
    command.add_argument("--path", help="only results under this folder of the workspace")
    command.add_argument("--focus", help="rank only inside this folder of the workspace")
    add_result_options(command)


# Each command's names (aliases after the first) and what adds its parser, in the order
# `wherein --help` lists them.
_COMMANDS: tuple[tuple[tuple[str, ...], Callable[[argparse._SubParsersAction], None]], ...] = (
    (("index",), _index),
    (("search",), _search),
    (("related",), _related),
    (("status",), _status),
    (("roots",), _roots),
    (("indexes", "list"), _indexes),
    (("forget",), _forget),
    (("gc",), _gc),
    (("config",), _config),
    (("serve",), _serve),
    (("history",), _history),
    (("install", "uninstall"), _install),
    (("doctor",), _doctor),
    (("baseline",), _baseline),
    (("statusline",), _statusline),
    (("eval",), _evaluation),
    (("completion",), _completion),
)
COMMAND_NAMES = frozenset(name for names, _ in _COMMANDS for name in names)
