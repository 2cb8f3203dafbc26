"""The commands that set wherein up and keep it: `config`, `install`, `uninstall`, `doctor`,
`serve`, `completion`, and `indexes`, `forget` and `gc`.
"""

from __future__ import annotations

import argparse
import shutil
import sys

from wherein.cli.arguments import cwd_workspace, workspace_of
from wherein.cli.output import say, show
from wherein.untrusted import echo, visible

__all__ = [
    "handle_completion",
    "handle_config",
    "handle_doctor",
    "handle_housekeeping",
    "handle_install",
    "handle_serve",
]


def handle_config(args: argparse.Namespace) -> int:
    from wherein.config import config_get, config_set, user_config_path, workspace_config_path

    workspace = (
        workspace_of(args) if args.workspace or getattr(args, "workspace_file", False) else None
    )
    if args.action == "get":
        value, source = config_get(args.key, workspace or cwd_workspace())
        show(f"{value}\t({source})")
        return 0
    path = workspace_config_path(workspace) if args.workspace_file else user_config_path()
    config_set(args.key, args.value, path, workspace_file=args.workspace_file)
    show(f"Set {args.key} in {path}.")
    return 0


def handle_install(args: argparse.Namespace) -> int:
    from wherein.install import (
        apply_plan,
        format_outcome,
        plan_install,
        plan_uninstall,
        server_command,
    )

    workspace = workspace_of(args)
    if args.command == "install":
        scope = "project" if args.project else "user"
        command = server_command(args.command_name)
        if args.command_name and shutil.which(command[0]) is None:
            # Written all the same: a project file may name a program teammates have.
            say(
                f"{echo(command[0])} is not a program this machine can run (not on PATH, no "
                "executable file there): an agent here would fail to start wherein with it. "
                "'wherein doctor' starts the registered command to check."
            )
        plan = plan_install(
            args.agents,
            scope,
            workspace,
            command,
            args.with_instructions,
            args.statusline,
            args.force,
        )
    else:
        scopes = ("project",) if args.project else ("user",) if args.user else ("user", "project")
        plan = plan_uninstall(args.agents, scopes, workspace, args.statusline)
    sys.stdout.write(visible(format_outcome(plan, apply_plan(plan, args.dry_run), args.dry_run)))
    return 0


def handle_doctor(args: argparse.Namespace) -> int:
    from wherein.doctor import FAIL, format_checks, run_doctor

    workspace = workspace_of(args)
    checks = run_doctor(workspace)
    sys.stdout.write(visible(format_checks(workspace, checks)))
    return 1 if any(check.status == FAIL for check in checks) else 0


def handle_serve(args: argparse.Namespace) -> int:
    from wherein.plugin.server import serve

    return serve(workspace_of(args))


def handle_completion(args: argparse.Namespace) -> int:
    from wherein.cli.parser import build_parser
    from wherein.completion import completion_script

    sys.stdout.write(completion_script(build_parser(), args.shell))
    return 0


def handle_housekeeping(args: argparse.Namespace) -> int:
    from wherein.housekeeping import run_housekeeping

    return run_housekeeping(args, sys.stdin, sys.stdout, sys.stderr)
