"""`wherein install` / `uninstall` on real fixture files, one agent format at a time."""

from __future__ import annotations

import difflib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomlkit

from tests.install.conftest import FIXTURES
from wherein.cli import main
from wherein.errors import ConfigError
from wherein.install import REGISTRY, read_entry, server_command
from wherein.install.agents import WORKSPACE_VARIABLE

# (agent, fixture file) pairs whose content the agent accepts.
EXISTING = [
    ("claude", "claude/existing.json"),
    ("codex", "codex/existing.toml"),
    ("codex", "codex/comments.toml"),
    ("cursor", "cursor/existing.json"),
    ("vscode", "vscode/existing.jsonc"),
    ("gemini", "gemini/existing.json"),
    ("windsurf", "windsurf/existing.json"),
    ("zed", "zed/existing.jsonc"),
]
# Files the agent itself could not read: wherein must not touch them either.
MALFORMED = [
    ("claude", "claude/malformed.json"),
    ("claude", "claude/comments.json"),
    ("codex", "codex/malformed.toml"),
    ("cursor", "cursor/malformed.json"),
    ("cursor", "cursor/comments.json"),
    ("vscode", "vscode/malformed.jsonc"),
    ("gemini", "gemini/malformed.json"),
    ("windsurf", "windsurf/malformed.json"),
    ("zed", "zed/malformed.jsonc"),
    ("continue", "continue/malformed.json"),
]


def user_file(agent: str, project: Path) -> Path:
    return REGISTRY[agent].config_file("user", project)


def place(agent: str, fixture: str, project: Path) -> Path:
    path = user_file(agent, project)
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(FIXTURES / fixture, path)
    return path


def parsed(agent: str, text: str):
    if REGISTRY[agent].file_format == "toml":
        return tomlkit.parse(text).unwrap()
    from wherein.install.jsonc import parse_json_document

    return parse_json_document(text, "test", allow_comments=True).data


def without_entry(agent: str, data: dict, before: dict) -> dict:
    """`data` less the wherein entry, and less the servers object if `before` had none."""
    data = json.loads(json.dumps(data))
    key = REGISTRY[agent].servers_key[0]
    data[key].pop("wherein")
    if key not in before and not data[key]:
        del data[key]
    return data


def assert_only_entry_added(before: str, after: str) -> None:
    """Every line of `before` survives; at most one gains a comma; the added lines are ours."""
    old, new = before.splitlines(), after.splitlines()
    added: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new).get_opcodes():
        if tag == "equal":
            continue
        assert tag in ("insert", "replace"), (tag, old[i1:i2])
        for k, line in enumerate(old[i1:i2]):  # a replaced line may only gain one comma
            changed = new[j1 + k]
            commas = [i for i, char in enumerate(changed) if char == ","]
            assert any(changed[:i] + changed[i + 1 :] == line for i in commas), (line, changed)
        added.extend(new[j1 + (i2 - i1) : j2])
    text = "\n".join(added)
    assert "wherein" in text and server_command()[0] in text


def install(*args: str) -> int:
    return main(["install", *args])


@pytest.mark.parametrize(("agent", "fixture"), EXISTING)
def test_install_changes_only_the_wherein_entry_and_uninstall_restores_the_bytes(
    agent, fixture, project, capsys
):
    path = place(agent, fixture, project)
    original = path.read_bytes()

    assert install(agent, "--workspace", str(project)) == 0
    after = path.read_text()
    entry = read_entry(REGISTRY[agent], path)
    assert entry["command"] == server_command()[0]
    assert "serve" in entry["args"]
    assert without_entry(agent, parsed(agent, after), parsed(agent, original.decode())) == parsed(
        agent, original.decode()
    )
    assert_only_entry_added(original.decode(), after)
    assert Path(f"{path}.bak").read_bytes() == original
    assert "registered in" in capsys.readouterr().out

    assert main(["uninstall", agent, "--workspace", str(project)]) == 0
    assert path.read_bytes() == original
    # A project's file lies in a repository, where a backup gets committed: none is left.
    assert Path(f"{path}.bak").exists() is not path.is_relative_to(project)


@pytest.mark.parametrize("agent", sorted(REGISTRY))
def test_install_into_a_missing_file_then_uninstall_leaves_no_trace(agent, project, home, capsys):
    scope = "--user" if REGISTRY[agent].project_file is None else "--project"
    before = sorted(p for p in home.parent.rglob("*") if "wherein-home" not in p.parts)

    assert install(agent, scope, "--workspace", str(project)) == 0
    path = REGISTRY[agent].config_file(scope.strip("-"), project)
    assert read_entry(REGISTRY[agent], path) is not None
    assert not Path(f"{path}.bak").exists()  # there was nothing to back up

    assert main(["uninstall", agent, "--workspace", str(project)]) == 0
    after = sorted(p for p in home.parent.rglob("*") if "wherein-home" not in p.parts)
    assert after == before  # the file and the folders made for it are gone
    assert "held only wherein's entry" in capsys.readouterr().out


@pytest.mark.parametrize("agent", ["claude", "cursor", "gemini", "windsurf", "zed", "vscode"])
def test_an_empty_object_file_comes_back_as_it_was(agent, project):
    path = user_file(agent, project)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{}\n")
    assert install(agent, "--workspace", str(project)) == 0
    assert main(["uninstall", agent, "--workspace", str(project)]) == 0
    assert path.read_text() == "{}\n"


@pytest.mark.parametrize(("agent", "fixture"), EXISTING)
def test_install_twice_is_idempotent(agent, fixture, project, capsys):
    path = place(agent, fixture, project)
    assert install(agent, "--workspace", str(project)) == 0
    first = path.read_bytes()
    backup = Path(f"{path}.bak")
    backup_stat = backup.stat()

    assert install(agent, "--workspace", str(project)) == 0
    assert path.read_bytes() == first
    assert backup.stat().st_mtime_ns == backup_stat.st_mtime_ns  # nothing was rewritten
    assert "already registered" in capsys.readouterr().out


@pytest.mark.parametrize(("agent", "fixture"), MALFORMED)
def test_a_file_that_does_not_parse_is_left_untouched_and_nothing_is_written(
    agent, fixture, project, home, capsys
):
    path = place(agent, fixture, project)
    original = path.read_bytes()
    (home / ".cursor").mkdir(exist_ok=True)  # a second agent, which must not be written either

    code = install(agent, "cursor", "--workspace", str(project))

    assert code == 2
    assert path.read_bytes() == original
    assert not Path(f"{path}.bak").exists()
    if agent != "cursor":
        assert not (home / ".cursor" / "mcp.json").exists()
    err = capsys.readouterr().err
    assert str(path) in err and "left untouched" in err
    assert err.count("\n") == 1  # one sentence


def test_dry_run_prints_the_diff_for_two_agents_and_writes_nothing(project, home, tmp_path, capsys):
    place("zed", "zed/existing.jsonc", project)
    place("codex", "codex/existing.toml", project)
    snapshot = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}

    assert install("zed", "codex", "--workspace", str(project), "--dry-run") == 0

    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == snapshot
    out = capsys.readouterr().out
    assert f"--- {user_file('zed', project)}" in out
    assert '+  "context_servers": {' in out
    assert "+[mcp_servers.wherein]" in out
    assert "Dry run: nothing was written." in out


def test_uninstall_dry_run_writes_nothing(project, tmp_path, capsys):
    place("cursor", "cursor/existing.json", project)
    assert install("cursor", "--workspace", str(project)) == 0
    snapshot = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert main(["uninstall", "--dry-run", "--workspace", str(project)]) == 0
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == snapshot
    assert '-    "wherein": {' in capsys.readouterr().out


def test_detection_finds_agents_by_config_folder_or_cli_on_path(
    project, home, agent_environ, capsys
):
    assert install("--workspace", str(project)) == 2
    assert "No coding agent found" in capsys.readouterr().err

    (home / ".gemini").mkdir()
    claude = agent_environ / "claude"
    claude.write_text("#!/bin/sh\nexit 1\n")  # only looked up on PATH, never run
    claude.chmod(0o755)
    assert install("--workspace", str(project)) == 0
    out = capsys.readouterr().out
    assert "Found Gemini CLI" in out and "Found Claude Code: 'claude' is on PATH" in out
    assert read_entry(REGISTRY["gemini"], user_file("gemini", project)) is not None
    assert read_entry(REGISTRY["claude"], user_file("claude", project)) is not None
    assert not user_file("cursor", project).exists()


def test_named_agents_override_detection(project, home):
    (home / ".gemini").mkdir()
    assert install("cursor", "--workspace", str(project)) == 0
    assert user_file("cursor", project).exists()
    assert not user_file("gemini", project).exists()


def test_unknown_agent_lists_the_choices(project, capsys):
    assert install("vim", "--workspace", str(project)) == 2
    assert f"Choose from: {', '.join(sorted(REGISTRY))}." in capsys.readouterr().err


def test_windsurf_has_no_project_file(project, home, capsys):
    assert install("windsurf", "--project", "--workspace", str(project)) == 2
    assert "--user" in capsys.readouterr().err
    (home / ".codeium" / "windsurf").mkdir(parents=True)
    (home / ".cursor").mkdir()
    assert install("--project", "--workspace", str(project)) == 0
    assert "Skipped Windsurf: it has no project-level MCP config file" in capsys.readouterr().out
    assert (project / ".cursor" / "mcp.json").exists()


def test_workspace_argument_follows_where_each_agent_starts_servers(project):
    assert install("claude", "cursor", "zed", "--workspace", str(project)) == 0
    claude = read_entry(REGISTRY["claude"], user_file("claude", project))
    cursor = read_entry(REGISTRY["cursor"], user_file("cursor", project))
    zed = read_entry(REGISTRY["zed"], user_file("zed", project))
    assert claude["args"] == ["serve"] and claude["type"] == "stdio"
    assert cursor["args"] == ["serve", "--workspace", WORKSPACE_VARIABLE]
    assert zed["args"] == ["serve", "--workspace", str(project)]


def test_project_scope_writes_the_project_files(project):
    assert install("claude", "vscode", "codex", "--project", "--workspace", str(project)) == 0
    assert json.loads((project / ".mcp.json").read_text())["mcpServers"]["wherein"]
    assert json.loads((project / ".vscode" / "mcp.json").read_text())["servers"]["wherein"]
    toml = tomlkit.parse((project / ".codex" / "config.toml").read_text()).unwrap()
    assert toml["mcp_servers"]["wherein"]["args"] == ["serve"]


def test_command_override_for_a_shared_project_file(project):
    assert install("claude", "--project", "--command", "wherein", "--workspace", str(project)) == 0
    entry = json.loads((project / ".mcp.json").read_text())["mcpServers"]["wherein"]
    assert entry == {"type": "stdio", "command": "wherein", "args": ["serve"]}


def test_a_command_this_machine_cannot_run_is_written_with_a_warning(project, capsys):
    """A teammate may have it; an agent here would fail to start wherein: say so."""
    missing = str(project / "no" / "such" / "wherein")
    assert install("claude", "--project", "--command", missing, "--workspace", str(project)) == 0
    assert "is not a program this machine can run" in capsys.readouterr().err
    entry = json.loads((project / ".mcp.json").read_text())["mcpServers"]["wherein"]
    assert entry["command"] == missing


def test_reinstall_updates_the_command_and_keeps_keys_the_user_added(project):
    path = user_file("cursor", project)
    path.parent.mkdir(parents=True)
    stale = {"command": "/old/venv/bin/wherein", "args": ["serve"], "env": {"A": "1"}}
    path.write_text(json.dumps({"mcpServers": {"wherein": stale}}, indent=2) + "\n")
    assert install("cursor", "--workspace", str(project)) == 0
    entry = read_entry(REGISTRY["cursor"], path)
    assert entry["command"] == server_command()[0]
    assert entry["env"] == {"A": "1"}


def test_a_project_entry_is_written_whole_dropping_what_a_clone_added(project):
    # Kept, a clone's `env` and `cwd` ran our command its way; doctor then refused the entry
    # and named `install --project` as the fix, which kept them again.
    planted = {"command": "wherein", "args": ["serve"], "env": {"LD_PRELOAD": "./evil.so"}}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"wherein": planted}}))
    (project / ".codex").mkdir()
    (project / ".codex" / "config.toml").write_text(
        '[mcp_servers.wherein]\ncommand = "wherein"\ncwd = "/"\n'
        '[mcp_servers.wherein.env]\nPYTHONPATH = "./evil"\n[tui]\nb = 2\n'
    )
    assert install("claude", "codex", "--project", "--workspace", str(project)) == 0
    entry = json.loads((project / ".mcp.json").read_text())["mcpServers"]["wherein"]
    assert entry == {"type": "stdio", "command": server_command()[0], "args": ["serve"]}
    toml = tomlkit.parse((project / ".codex" / "config.toml").read_text()).unwrap()
    assert toml["mcp_servers"]["wherein"] == {"command": server_command()[0], "args": ["serve"]}
    assert toml["tui"] == {"b": 2}


def test_codex_reinstall_updates_the_table_in_place(project):
    path = user_file("codex", project)
    path.parent.mkdir(parents=True)
    path.write_text('[mcp_servers.wherein]\ncommand = "/old/wherein" # moved\nargs = ["serve"]\n')
    assert install("codex", "--workspace", str(project)) == 0
    text = path.read_text()
    assert tomlkit.parse(text).unwrap()["mcp_servers"]["wherein"]["command"] == server_command()[0]
    assert text.count("[mcp_servers.wherein]") == 1


def test_a_symlinked_config_is_written_through_the_link(project, tmp_path, home):
    real = tmp_path / "dotfiles" / "mcp.json"
    real.parent.mkdir()
    shutil.copyfile(FIXTURES / "cursor/existing.json", real)
    link = user_file("cursor", project)
    link.parent.mkdir()
    link.symlink_to(real)
    assert install("cursor", "--workspace", str(project)) == 0
    assert link.is_symlink()
    assert read_entry(REGISTRY["cursor"], real) is not None


def test_a_dangling_dotfiles_link_is_left_as_it_was_found(project, tmp_path, home):
    # Install wrote the file the link leads to; uninstall removed the link instead, leaving
    # that file holding wherein's entry.
    real = tmp_path / "dotfiles" / "mcp.json"
    real.parent.mkdir()
    link = user_file("cursor", project)
    link.parent.mkdir()
    link.symlink_to(real)
    assert install("cursor", "--workspace", str(project)) == 0
    assert read_entry(REGISTRY["cursor"], real) is not None
    assert main(["uninstall", "cursor", "--workspace", str(project)]) == 0
    assert link.is_symlink() and not real.exists()


def test_file_mode_is_kept(project):
    path = place("claude", "claude/existing.json", project)
    path.chmod(0o600)
    assert install("claude", "--workspace", str(project)) == 0
    assert path.stat().st_mode & 0o777 == 0o600


def test_uninstall_without_a_record_removes_the_entry_only(project):
    path = user_file("cursor", project)
    path.parent.mkdir(parents=True)
    path.write_text("{}\n")
    assert install("cursor", "--workspace", str(project)) == 0
    record = Path(os.environ["WHEREIN_HOME"]) / "agent-installs.json"
    record.unlink()
    assert main(["uninstall", "cursor", "--workspace", str(project)]) == 0
    assert json.loads(path.read_text()) == {"mcpServers": {}}


@pytest.mark.parametrize("planted", ["link", "fifo"])
def test_a_link_or_fifo_at_the_record_is_moved_aside_never_written_through(
    project, tmp_path, planted
):
    victim = tmp_path / "bashrc"
    victim.write_text("alias ll='ls -l'\n")
    record = Path(os.environ["WHEREIN_HOME"]) / "agent-installs.json"
    record.parent.mkdir(parents=True, exist_ok=True)
    if planted == "link":
        record.symlink_to(victim)
    else:
        os.mkfifo(record)
    path = user_file("cursor", project)
    path.parent.mkdir(parents=True)
    path.write_text("{}\n")
    assert install("cursor", "--workspace", str(project)) == 0
    assert victim.read_text() == "alias ll='ls -l'\n"
    assert record.is_file() and not record.is_symlink()
    assert str(path) in json.loads(record.read_text())
    (aside,) = record.parent.glob("agent-installs.json.broken-*")
    assert aside.is_symlink() if planted == "link" else not aside.is_file()
    assert main(["uninstall", "cursor", "--workspace", str(project)]) == 0
    assert path.read_text() == "{}\n"  # the record, not the link, said what to undo


def test_uninstall_with_nothing_registered_says_so(project, capsys):
    assert main(["uninstall", "--workspace", str(project)]) == 0
    assert "Nothing to do" in capsys.readouterr().out


def test_an_agent_that_needs_a_pinned_workspace_refuses_the_home_folder(home, capsys):
    assert install("zed", "--workspace", str(home)) == 2
    assert "is not a project" in capsys.readouterr().err
    REGISTRY["zed"].user_markers()[0].mkdir(parents=True)  # under XDG_CONFIG_HOME
    (home / ".cursor").mkdir()
    assert install("--workspace", str(home)) == 0
    assert "Skipped Zed" in capsys.readouterr().out
    assert user_file("cursor", home).exists() and not user_file("zed", home).exists()


def test_instructions_go_to_claude_md_and_a_shared_agents_md_once(project, capsys):
    claude_md = project / "CLAUDE.md"
    claude_md.write_text("# Repo\n\nRun `make test`.\n")
    args = ["claude", "codex", "cursor", "--project", "--with-instructions"]
    assert install(*args, "--workspace", str(project)) == 0
    assert "wherein:begin" in claude_md.read_text()
    agents_md = (project / "AGENTS.md").read_text()
    assert agents_md.count("wherein:begin") == 1
    assert "instructions for OpenAI Codex CLI, Cursor" in capsys.readouterr().out

    assert install(*args, "--workspace", str(project)) == 0
    assert (project / "AGENTS.md").read_text() == agents_md

    assert main(["uninstall", "--workspace", str(project)]) == 0
    assert claude_md.read_text() == "# Repo\n\nRun `make test`.\n"
    assert not (project / "AGENTS.md").exists()
    assert "which held only wherein's note" in capsys.readouterr().out


def test_instructions_in_a_file_without_a_final_newline_come_back_to_its_bytes(project):
    # Removing the snippet cannot tell that the file had no final newline: it gained one,
    # and install's backup, no longer the file's text, was left in the repository.
    claude_md = project / "CLAUDE.md"
    claude_md.write_text("# Repo\n\nRun `make test`.")
    args = ["claude", "--project", "--with-instructions", "--workspace", str(project)]
    assert install(*args) == 0
    assert "wherein:begin" in claude_md.read_text()
    assert main(["uninstall", "claude", "--project", "--workspace", str(project)]) == 0
    assert claude_md.read_text() == "# Repo\n\nRun `make test`."
    assert not (project / "CLAUDE.md.bak").exists()


@pytest.mark.parametrize("scope", ["--user", "--project"])
def test_a_codex_config_without_a_final_newline_comes_back_to_its_bytes(project, scope):
    # Cutting the table cannot tell that the file had no final newline: it gained one, and in
    # a project install's backup, no longer the file's text, was left in the repository.
    path = REGISTRY["codex"].config_file(scope.strip("-"), project)
    path.parent.mkdir(parents=True, exist_ok=True)
    original = b'# mine\r\nmodel = "o3"  # why\r\n\r\n[profiles.fast]\r\nmodel = "o4-mini"'
    path.write_bytes(original)
    assert install("codex", scope, "--workspace", str(project)) == 0
    assert read_entry(REGISTRY["codex"], path) is not None
    assert main(["uninstall", "codex", scope, "--workspace", str(project)]) == 0
    assert path.read_bytes() == original
    assert Path(f"{path}.bak").exists() is (scope == "--user")


def test_server_command_falls_back_to_the_interpreter_when_no_script_sits_beside_it(
    tmp_path, monkeypatch
):
    python = tmp_path / "venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("")
    monkeypatch.setattr("sys.executable", str(python))
    monkeypatch.setattr("sys.version_info", (3, 11))
    assert server_command() == [str(python), "-P", "-m", "wherein.cli"]
    script = python.parent / "wherein"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    assert server_command() == [str(script)]
    assert server_command("wherein") == ["wherein"]
    assert server_command("uvx wherein") == ["uvx", "wherein"]


def test_claude_config_dir_replaces_dot_claude_for_install_meter_and_status_line(
    project, tmp_path, monkeypatch, capsys
):
    # Claude Code under CLAUDE_CONFIG_DIR=DIR keeps DIR/.claude.json, DIR/CLAUDE.md and
    # DIR/settings.json: the folder stands for ~/.claude, not for the home folder.
    from wherein.meter.claude import claude_candidates

    folder = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(folder))
    args = ["install", "claude", "--with-instructions", "--statusline", "--workspace", str(project)]
    assert main(args) == 0
    capsys.readouterr()
    assert "wherein" in json.loads((folder / ".claude.json").read_text())["mcpServers"]
    assert (folder / "CLAUDE.md").is_file()
    assert not (folder / ".claude").exists()
    assert "statusLine" in json.loads((folder / "settings.json").read_text())
    assert claude_candidates() == [folder]


@pytest.mark.parametrize(
    "version",
    [
        (3, 10),
        pytest.param(
            (3, 11),
            marks=pytest.mark.skipif(sys.version_info < (3, 11), reason="-P came in 3.11"),
        ),
    ],
)
def test_the_module_form_never_imports_a_wherein_from_the_folder_it_starts_in(
    tmp_path, monkeypatch, version
):
    # An agent starts the server in the project's folder; a clone's own `wherein/` package
    # must not be what runs. The check that it can: the plain `-m` form does run it.
    clone = tmp_path / "clone"
    (clone / "wherein").mkdir(parents=True)
    marker = tmp_path / "ran"
    (clone / "wherein" / "__init__.py").write_text(
        f"open({str(marker)!r}, 'w').write('the clone ran')\n"
    )
    python = Path(sys.executable).absolute()
    monkeypatch.setattr("sys.executable", str(tmp_path / "no-script-here" / "python"))
    monkeypatch.setattr("sys.version_info", version)
    program, *args = server_command()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}

    def run(*command: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(python), *command], cwd=clone, env=env, capture_output=True, text=True
        )

    assert program == str(tmp_path / "no-script-here" / "python")
    done = run(*args, "--help")
    assert done.returncode == 0 and "usage: wherein" in done.stdout
    assert not marker.exists()
    run("-m", "wherein.cli", "--help")
    assert marker.read_text() == "the clone ran"


def test_a_workspace_name_cannot_add_a_line_to_what_install_prints(tmp_path, home, capsys):
    # Zed's and Windsurf's notes name the workspace; a newline in its folder's name printed a
    # line of its own ("All agents registered").
    project = tmp_path / "repo\nAll agents registered: nothing to do"
    project.mkdir()
    assert install("zed", "windsurf", "--workspace", str(project)) == 0
    out = capsys.readouterr().out
    assert not any(line.startswith("All agents registered") for line in out.splitlines()), out
    assert "repo\\x0aAll agents registered" in out


def test_a_backup_someone_keeps_beside_the_file_is_never_replaced_or_removed(project):
    # A repository's committed `.mcp.json.bak` was overwritten by install's backup, then
    # deleted by uninstall as if it were install's.
    original = '{"mcpServers": {}}\n'
    (project / ".mcp.json").write_text(original)
    theirs = project / ".mcp.json.bak"
    theirs.write_text("IMPORTANT USER DATA\n")
    assert install("claude", "--project", "--workspace", str(project)) == 0
    assert theirs.read_text() == "IMPORTANT USER DATA\n"
    assert (project / ".mcp.json.wherein.bak").read_text() == original
    assert main(["uninstall", "claude", "--project", "--workspace", str(project)]) == 0
    assert (project / ".mcp.json").read_text() == original
    assert theirs.read_text() == "IMPORTANT USER DATA\n"
    assert not (project / ".mcp.json.wherein.bak").exists()


def test_a_file_its_agent_rewrote_meanwhile_is_left_with_the_agent_s_text(project):
    # Claude Code rewrites its own file while it runs; install wrote what it had read before.
    from wherein.install.apply import apply_plan
    from wherein.install.plan import plan_install

    path = place("claude", "claude/existing.json", project)
    plan = plan_install(["claude"], "user", project, server_command())
    agents = '{"numStartups": 12}\n'
    path.write_text(agents)
    with pytest.raises(ConfigError, match="changed while wherein was working on it"):
        apply_plan(plan)
    assert path.read_text() == agents
