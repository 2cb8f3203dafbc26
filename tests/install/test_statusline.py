"""`wherein install claude --statusline`: Claude Code's `statusLine` set surgically, never over
the user's own without --force, taken out (or put back) by uninstall, and checked by doctor."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.install.test_install import assert_only_entry_added
from tests.meter.hostile import REPO
from wherein.cli import main
from wherein.install import server_command
from wherein.install.statusline import statusline_checks, statusline_command

SETTINGS = """{
  "model": "opus",
  "permissions": {
    "allow": ["Bash(npm test)"]
  },
  "hooks": {}
}
"""
THEIRS = """{
  "model": "opus",
  "statusLine": {
    "type": "command",
    "command": "~/.claude/statusline.sh",
    "padding": 0
  }
}
"""


def settings(home: Path) -> Path:
    return home / ".claude" / "settings.json"


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _install(project: Path, *extra: str) -> int:
    return main(["install", "claude", "--statusline", "--workspace", str(project), *extra])


def test_install_adds_only_the_status_line_and_uninstall_restores_the_bytes(project, home, capsys):
    path = _write(settings(home), SETTINGS)
    assert _install(project) == 0
    after = path.read_text()
    assert json.loads(after)["statusLine"] == {
        "type": "command",
        "command": f"{server_command()[0]} statusline",
    }
    assert_only_entry_added(SETTINGS, after)
    out = capsys.readouterr().out
    assert f"Claude Code status line (user scope): set in {path}" in out
    assert "Claude Code (user scope): registered in" in out  # the recall server too

    assert _install(project) == 0  # a second install changes nothing
    assert f"Claude Code status line (user scope): already set in {path}" in (
        capsys.readouterr().out
    )
    assert main(["uninstall", "claude", "--workspace", str(project)]) == 0
    assert path.read_text() == SETTINGS


def test_a_missing_settings_file_is_created_and_uninstall_leaves_no_trace(project, home):
    before = sorted(p for p in home.rglob("*"))
    assert _install(project) == 0
    assert json.loads(settings(home).read_text())["statusLine"]["type"] == "command"
    assert main(["uninstall", "claude", "--workspace", str(project)]) == 0
    assert sorted(p for p in home.rglob("*")) == before


def test_a_status_line_the_user_has_is_never_replaced_without_force(project, home, capsys):
    path = _write(settings(home), THEIRS)
    assert _install(project) == 2
    err = capsys.readouterr().err
    assert err == (
        f"wherein: Claude Code already shows a status line from {path} "
        "('~/.claude/statusline.sh'), so wherein left it alone: pass --force to replace it "
        "('wherein uninstall claude --statusline' puts it back).\n"
    )
    assert path.read_text() == THEIRS
    assert not (home / ".claude.json").exists()  # nothing else was half-installed either


def test_force_replaces_it_and_uninstall_puts_it_back_byte_for_byte(project, home, capsys):
    path = _write(settings(home), THEIRS)
    assert _install(project, "--force") == 0
    assert json.loads(path.read_text())["statusLine"]["command"].endswith(" statusline")
    assert Path(f"{path}.bak").read_text() == THEIRS
    capsys.readouterr()
    assert main(["uninstall", "claude", "--statusline", "--workspace", str(project)]) == 0
    assert path.read_text() == THEIRS
    assert "taken out of" in capsys.readouterr().out
    assert (home / ".claude.json").exists()  # --statusline: the recall server stays


def test_an_older_wherein_line_is_updated_without_force_and_keeps_its_options(project, home):
    old = {
        "statusLine": {
            "type": "command",
            "command": "/old/venv/bin/wherein statusline",
            "padding": 2,
        }
    }
    path = _write(settings(home), json.dumps(old, indent=2) + "\n")
    assert _install(project) == 0
    assert json.loads(path.read_text())["statusLine"] == {
        "type": "command",
        "command": f"{server_command()[0]} statusline",
        "padding": 2,
    }


def test_dry_run_shows_the_diff_and_writes_nothing(project, home, capsys):
    path = _write(settings(home), SETTINGS)
    assert _install(project, "--dry-run") == 0
    out = capsys.readouterr().out
    assert '+  "statusLine": {' in out and "Dry run: nothing was written." in out
    assert path.read_text() == SETTINGS


def test_claude_config_dir_moves_the_settings_file(project, tmp_path, monkeypatch):
    folder = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(folder))
    assert _install(project) == 0
    assert json.loads((folder / "settings.json").read_text())["statusLine"]["type"] == "command"


def test_project_scope_writes_the_projects_settings_and_refuses_a_link(project, home, capsys):
    assert _install(project, "--project") == 0
    path = project / ".claude" / "settings.json"
    assert "statusLine" in json.loads(path.read_text())
    assert main(["uninstall", "claude", "--project", "--workspace", str(project)]) == 0
    capsys.readouterr()
    elsewhere = _write(home / "dotfiles" / "settings.json", SETTINGS)
    assert not path.parent.exists()  # uninstall removed the file and the folder it made
    path.parent.mkdir()
    path.symlink_to(elsewhere)
    assert _install(project, "--project") == 2
    assert "is a symbolic link" in capsys.readouterr().err
    assert elsewhere.read_text() == SETTINGS


def test_statusline_needs_claude_among_the_agents(project, capsys):
    assert main(["install", "cursor", "--statusline", "--workspace", str(project)]) == 2
    assert "'wherein install claude --statusline'" in capsys.readouterr().err


def test_a_settings_file_that_does_not_parse_is_left_untouched(project, home, capsys):
    path = _write(settings(home), '{"model": "opus",, }\n')
    assert _install(project) == 2
    assert path.read_text() == '{"model": "opus",, }\n'
    assert str(path) in capsys.readouterr().err


# --- doctor ------------------------------------------------------------------------------


@pytest.fixture
def this_wherein(monkeypatch) -> str:
    """A wherein command that runs this checkout, as `--command` names one."""
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    return f"{sys.executable} -m wherein.cli"


def test_doctor_runs_the_status_line_as_claude_code_would(project, this_wherein):
    assert _install(project, "--command", this_wherein) == 0
    (check,) = statusline_checks(project)
    status, detail, fix = check
    assert (status, fix) == ("ok", None), detail
    assert f"'{this_wherein} statusline' printed 'Recall: no calls yet'" in detail


def test_doctor_fails_a_status_line_whose_program_is_gone(project, home):
    _write(
        settings(home),
        json.dumps(
            {"statusLine": {"type": "command", "command": f"{home}/gone/bin/wherein statusline"}}
        ),
    )
    (check,) = statusline_checks(project)
    assert check[0] == "FAIL"
    assert check[2] == "wherein install claude --statusline"


def test_doctor_warns_when_a_project_file_shows_another_line(project, home, this_wherein):
    assert _install(project, "--command", this_wherein) == 0
    local = _write(project / ".claude" / "settings.local.json", THEIRS)
    (check,) = statusline_checks(project)
    assert check[0] == "warn"
    assert f"but {local} sets another, which Claude Code shows instead" in check[1]


def test_doctor_never_runs_a_status_line_a_project_file_chose(project, tmp_path):
    marker = tmp_path / "ran"
    impostor = _write(
        tmp_path / "clone-bin" / "wherein", f"#!/bin/sh\ntouch {marker}\necho Recall\n"
    )
    impostor.chmod(0o755)
    for command in (f"{impostor} statusline", f"touch {marker}; {impostor} statusline"):
        planted = {"statusLine": {"type": "command", "command": command}}
        _write(project / ".claude" / "settings.json", json.dumps(planted))
        checks = statusline_checks(project)
        assert all(status == "warn" and "not run" in detail for status, detail, _ in checks)
        assert not marker.exists()


def test_doctor_says_nothing_when_no_status_line_is_wherein_s(project, home):
    _write(settings(home), THEIRS)
    assert statusline_checks(project) == []


def test_doctor_reports_the_status_line_among_its_checks(project, this_wherein, capsys):
    assert _install(project, "--command", this_wherein) == 0
    capsys.readouterr()
    main(["doctor", "--workspace", str(project)])
    lines = capsys.readouterr().out.splitlines()
    (line,) = [line for line in lines if line.startswith("  ok    statusbar")]
    assert statusline_command(this_wherein.split()) in line
