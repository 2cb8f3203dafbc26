"""The `roots` commands: extra source roots, library code to search too."""

from __future__ import annotations

import argparse

from wherein.cli.arguments import settings_for, workspace_of
from wherein.cli.output import dump, show

__all__ = ["handle_roots"]


def handle_roots(args: argparse.Namespace) -> int:
    from wherein.root_suggestions import add_command, suggest_roots

    workspace = workspace_of(args)
    configured = settings_for(workspace)["scope.source_roots"]
    suggestions = suggest_roots(workspace, configured)
    command = add_command(workspace, configured, suggestions) if suggestions else None
    if args.json:
        payload = {
            "workspace": str(workspace),
            "configured": configured,
            "suggestions": [s.to_json() for s in suggestions],
            "command": command,
        }
        dump(payload)
        return 0
    if not suggestions:
        print(
            "No library folder to suggest: no package the workspace imports was found in a "
            "virtualenv, the python3 on PATH or a node_modules (or all are configured already)."
        )
        return 0
    for s in suggestions:
        show(f"{s.entry}\t({s.kind}: {s.reason})")
    print("\nAdd them all with:")
    show(f"  {command}")
    if "--workspace-file" not in command:
        print(
            "(Some are outside the workspace, which its .wherein.toml may not name: this "
            "writes your own config file, whose roots apply in every workspace.)"
        )
    return 0
