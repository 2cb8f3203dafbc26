"""`wherein doctor`: check the setup end to end and say what to fix.

Settings load, the embedding model embeds a text, the index folder takes a file, and every
agent entry `wherein install` could have written is started exactly as that agent would start
it (its command, args and env, `${workspaceFolder}` expanded), spoken to over stdio
(`initialize`, then `tools/list`), must list `recall`, and must answer `recall
action=status` with the same text in both channels: some agents give the model the text
content, others only the structured one. Nothing is mocked: a stale entry pointing at a
removed virtualenv fails here the way it would fail in the agent.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wherein import __version__
from wherein.errors import ConfigError, EndpointUnreachable, WhereinError
from wherein.install.agents import WORKSPACE_VARIABLE
from wherein.redaction import redact
from wherein.server_probe import probe_server
from wherein.untrusted import one_line

__all__ = ["Check", "format_checks", "run_doctor"]

OK = "ok"
WARN = "warn"
FAIL = "FAIL"
# Each probe is mostly a child process starting up; a few at once keep two cores busy.
PARALLEL_PROBES = 4


@dataclass(frozen=True)
class Check:
    """One line of the report."""

    name: str
    status: str  # OK | WARN | FAIL
    detail: str
    fix: str | None = None


def run_doctor(workspace: Path) -> list[Check]:
    """Run every check for `workspace`."""
    checks = []
    settings_check, settings = _check_settings(workspace)
    checks.append(settings_check)
    if settings is not None:
        checks.append(_check_model(settings))
    checks.append(_check_index_dir(workspace))
    checks.extend(_check_agents(workspace))
    checks.extend(_check_status_line(workspace))
    return checks


def format_checks(workspace: Path, checks: list[Check]) -> str:
    """The report: one line per check, a `fix:` line under each problem, a summary.

    A detail may quote a project's agent config or a server's stderr: it stays on its line.
    """
    lines = [f"wherein {__version__} doctor: {one_line(str(workspace))}"]
    for check in checks:
        lines.append(f"  {check.status:<5} {check.name:<9} {one_line(check.detail)}")
        if check.fix:
            lines.append(f"  {'':<5} {'':<9} fix: {one_line(check.fix)}")
    failures = sum(check.status == FAIL for check in checks)
    warnings = sum(check.status == WARN for check in checks)
    if failures:
        lines.append(f"{failures} problem(s) to fix, {warnings} warning(s): see the fix lines.")
    else:
        lines.append(f"All checks passed ({warnings} warning(s)).")
    return "\n".join(lines) + "\n"


def _check_settings(workspace: Path) -> tuple[Check, Any]:
    from wherein.config import load_settings, user_config_path

    try:
        settings = load_settings(workspace)
    except ConfigError as err:
        return Check("settings", FAIL, str(err), "fix the file it names"), None
    detail = f"loaded ({user_config_path()} and the workspace's .wherein.toml, if present)"
    if settings.warnings:
        return Check("settings", WARN, f"{detail}; {' '.join(settings.warnings)}"), settings
    return Check("settings", OK, detail), settings


def _check_model(settings: Any) -> Check:
    from wherein.embedding.registry import create_embedder
    from wherein.endpoint.rest import forget_rest

    started = time.monotonic()
    embedder = None
    key = settings["embedding.api_key"]
    forget_rest(settings)  # a check asks the endpoint now, whatever a recent miss said
    try:
        embedder = create_embedder(settings)
        vectors = embedder.embed(["where are search results ranked"])
    except EndpointUnreachable as err:
        return Check(
            "model",
            WARN,
            f"{redact(str(err), key)} Search ranks by keywords until it answers.",
            "start the model server, or 'wherein config set embedding.provider minilm'",
        )
    except WhereinError as err:
        fix = "check embedding.* with 'wherein config get'"
        return Check("model", FAIL, redact(str(err), key), fix)
    finally:
        close = getattr(embedder, "close", None)  # HTTP embedders hold a connection pool
        if callable(close):
            close()
    seconds = time.monotonic() - started
    identity = embedder.identity
    return Check(
        "model",
        OK,
        f"{identity.provider} {identity.model}, {vectors.shape[1]} dims: loaded and embedded a "
        f"text in {seconds:.1f} s",
    )


def _check_index_dir(workspace: Path) -> Check:
    from wherein.index.location import index_dir

    target = index_dir(workspace)
    existing = next(p for p in (target, *target.parents) if p.exists())
    try:
        descriptor, probe = tempfile.mkstemp(dir=existing, prefix=".wherein-doctor-")
    except OSError as err:
        return Check(
            "index",
            FAIL,
            f"{target} cannot be created or written: {err}",
            f"make {existing} writable, or point WHEREIN_HOME at a writable folder",
        )
    os.close(descriptor)
    os.unlink(probe)
    state = "exists and is writable" if existing == target else f"can be created under {existing}"
    return Check("index", OK, f"{target} {state}")


def _check_agents(workspace: Path) -> list[Check]:
    from wherein.install import PROJECT, REGISTRY, SCOPES, read_entry, server_command

    checks: list[Check] = []
    found: list[tuple[Any, str, Path, dict[str, Any]]] = []
    for agent in REGISTRY.values():
        registered = False
        for scope in SCOPES:
            path = agent.config_file(scope, workspace)
            if path is None:
                continue
            try:
                entry = read_entry(agent, path, workspace if scope == PROJECT else None)
            except ConfigError as err:
                checks.append(Check(agent.name, FAIL, str(err), "fix the file it names"))
                registered = True
                continue
            if entry is not None:
                found.append((agent, scope, path, entry))
                registered = True
        reason = None if registered else agent.detect(workspace)
        if reason:
            checks.append(
                Check(
                    agent.name,
                    WARN,
                    f"{agent.title} is present ({reason}) but not registered",
                    f"wherein install {agent.name}",
                )
            )
    # A project's file came with the repository: doctor starts only the command `wherein
    # install` writes there (this wherein, its own arguments, no env or cwd), never what a
    # clone chose, which would be running the clone's code.
    refused = [item for item in found if item[1] == PROJECT and not _is_our_server(item[3])]
    for agent, _, path, entry in refused:
        checks.append(
            Check(
                agent.name,
                WARN,
                f"project scope, {path}: not started: it runs {_shown(entry)}, not this wherein's "
                f"'{' '.join(server_command())} serve', and a project's file may come from anyone",
                f"check the file, then run 'wherein install {agent.name} --project' to rewrite it",
            )
        )
    found = [item for item in found if item not in refused]
    # Servers are started side by side, once per distinct command line.
    launches = {_launch_key(entry, workspace) for _, _, _, entry in found}
    with ThreadPoolExecutor(max_workers=PARALLEL_PROBES) as pool:
        futures = {key: pool.submit(probe_server, json.loads(key), workspace) for key in launches}
        results = {key: future.result() for key, future in futures.items()}
    current = server_command()[0]
    for agent, scope, path, entry in found:
        answered, detail = results[_launch_key(entry, workspace)]
        where = f"{scope} scope, {path}"
        rerun = f"wherein install {agent.name}{' --project' if scope != 'user' else ''}"
        if not answered:
            checks.append(Check(agent.name, FAIL, f"{where}: {detail}", rerun))
        elif entry.get("command") != current:
            checks.append(
                Check(
                    agent.name,
                    WARN,
                    f"{where}: {detail}; it runs {entry.get('command')}, "
                    f"not this wherein ({current})",
                    f"{rerun} (points it at this one)",
                )
            )
        else:
            checks.append(Check(agent.name, OK, f"{where}: {detail}"))
    return checks


def _check_status_line(workspace: Path) -> list[Check]:
    """Claude Code's status line, when it is (or should show) wherein's: see
    `install/statusline.py`."""
    from wherein.install.statusline import statusline_checks

    status = {"ok": OK, "warn": WARN, "FAIL": FAIL}
    return [
        Check("statusbar", status[level], detail, fix)
        for level, detail, fix in statusline_checks(workspace)
    ]


def _is_our_server(entry: dict[str, Any]) -> bool:
    """Whether `entry` starts exactly this wherein's server, as `wherein install` writes it."""
    from wherein.install import server_command

    if entry.get("env") or entry.get("cwd"):
        return False
    command = [entry.get("command"), *(entry.get("args") or [])]
    ours = server_command()
    if command[: len(ours)] != ours:
        return False
    rest = command[len(ours) :]
    return rest == ["serve"] or (
        len(rest) == 3 and rest[:2] == ["serve", "--workspace"] and isinstance(rest[2], str)
    )


def _shown(entry: dict[str, Any]) -> str:
    words = [str(entry.get("command")), *(str(a) for a in entry.get("args") or [])]
    text = " ".join(words)
    text = text if len(text) <= 120 else text[:117] + "..."
    return repr(text) + (" with its own env or cwd" if entry.get("env") or entry.get("cwd") else "")


def _launch_key(entry: dict[str, Any], workspace: Path) -> str:
    """What decides how a server starts: command, args, env and cwd, as JSON."""
    fields = {k: entry.get(k) for k in ("command", "args", "env", "cwd")}
    fields["args"] = [
        str(a).replace(WORKSPACE_VARIABLE, str(workspace)) for a in fields["args"] or []
    ]
    return json.dumps(fields, sort_keys=True)
