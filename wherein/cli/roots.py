"""The `roots` commands: extra source roots and package roots, library code to search too."""

from __future__ import annotations

import argparse
import sys

from wherein.cli.arguments import settings_for, workspace_of
from wherein.cli.output import dump, say, show

__all__ = ["handle_roots"]


def handle_roots(args: argparse.Namespace) -> int:
    if args.action == "add":
        return _roots_add(args)
    from wherein.packages.suggest import add_packages_command, suggest_packages
    from wherein.root_suggestions import add_command, suggest_roots

    workspace = workspace_of(args)
    settings = settings_for(workspace)
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
        dump(payload)
        return 0
    if packages:
        for p in packages:
            show(f"{p.entry}\t({p.kind}: {p.reason})")
        print("\nAdd them as shared package roots (indexed once per version) with:")
        show(f"  {add}")
        if suggestions:
            print("\nOr add their folders to this workspace's own index:")
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


def _roots_add(args: argparse.Namespace) -> int:
    from wherein.config import user_config_path
    from wherein.packages.adding import add_packages
    from wherein.progress import ProgressDisplay

    workspace = workspace_of(args)
    with ProgressDisplay(sys.stderr) as display:
        added = add_packages(
            workspace,
            args.names,
            python=args.python,
            user=args.user,
            progress=display.update,
            on_wait=lambda: say("another process is building the same package; waiting."),
        )
    if args.json:
        dump(added.to_json())
        return 0
    for build in added.builds:
        how = (
            f"built in {build.seconds:.1f} s ({build.chunks_embedded} chunks embedded)"
            if build.built
            else "reused, built before"
        )
        show(f"{build.package.label}\t{len(build.package.files)} files, shared index {how}")
    show(f"scope.packages in {added.config_path}: {', '.join(added.entries)}")
    if added.config_path == user_config_path():
        say(
            f"{added.config_path} is your own config file: every workspace now searches these "
            "packages beside its own code. 'wherein config set scope.packages ...' there "
            "changes the list."
        )
    return 0
