"""`wherein`'s entry point: parse, hand the arguments to the command's handler, map errors.

Results go to stdout, the rest to stderr; a project error is one line and its exit code,
anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from wherein.cli.arguments import clean_arguments
from wherein.cli.output import drop_stdout, say
from wherein.cli.parser import build_parser, command_word
from wherein.cli.roots import handle_roots
from wherein.cli.search import (
    handle_eval,
    handle_history,
    handle_index,
    handle_related,
    handle_search,
)
from wherein.cli.setup import (
    handle_completion,
    handle_config,
    handle_doctor,
    handle_housekeeping,
    handle_install,
    handle_serve,
)
from wherein.cli.status import handle_status
from wherein.cli.usage import handle_baseline, handle_statusline
from wherein.errors import WhereinError
from wherein.storage.paths import permission_refused

__all__ = ["HANDLERS", "main"]

# Each command's handler, by the name `build_parser` gives it.
HANDLERS: dict[str, Callable[[argparse.Namespace], int]] = {
    "index": handle_index,
    "search": handle_search,
    "related": handle_related,
    "completion": handle_completion,
    "status": handle_status,
    "roots": handle_roots,
    "config": handle_config,
    "serve": handle_serve,
    "baseline": handle_baseline,
    "install": handle_install,
    "uninstall": handle_install,
    "doctor": handle_doctor,
    "history": handle_history,
    "eval": handle_eval,
    "indexes": handle_housekeeping,
    "list": handle_housekeeping,
    "forget": handle_housekeeping,
    "gc": handle_housekeeping,
    "statusline": handle_statusline,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 2 usage error, 1 other failure)."""
    words = sys.argv[1:] if argv is None else list(argv)
    if words == ["statusline"]:
        return handle_statusline(None)  # runs on every refresh of the agent's status bar
    args = build_parser(command_word(words)).parse_args(words)
    try:
        clean_arguments(args)
        code = HANDLERS[args.command](args)
        sys.stdout.flush()  # here, so a reader that went away is met below, not at exit
        return code
    except BrokenPipeError:
        # `wherein search ... | head -1`: the reader has what it wanted. Nothing may be
        # written to the closed pipe again, or the interpreter reports it as it exits.
        drop_stdout()
        return 0
    except WhereinError as err:
        say(str(err))
        return err.exit_code
    except PermissionError as err:  # one sentence naming the path, not a traceback
        say(permission_refused(err))
        return 1
    except KeyboardInterrupt:
        say("interrupted; the index keeps what was committed.")
        return 130
