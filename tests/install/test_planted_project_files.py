"""A project's agent files came with a clone: `wherein install --project`, `uninstall` and
`doctor` never read or write them through a link, and never wait on a FIFO or read a device.
"""

from __future__ import annotations

import os
import resource
import subprocess

import pytest

from tests.index.processes import assert_one_sentence, wherein_command
from wherein.cli import main

# Bounds a child that waits on a FIFO today; never a speed assertion.
CHILD_TIMEOUT_S = 60
# Reading /dev/zero into memory hits this at once instead of the machine's memory.
CHILD_ADDRESS_SPACE = 2 << 30


def run_bounded(*args: str) -> subprocess.CompletedProcess[str]:
    """`wherein ARGS` in a child with an address-space limit and a timeout."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (CHILD_ADDRESS_SPACE, CHILD_ADDRESS_SPACE))

    return subprocess.run(
        wherein_command(*args),
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT_S,
        preexec_fn=limit,
    )


def test_a_linked_agents_md_is_refused_and_its_target_left_alone(project, tmp_path, capsys):
    bashrc = tmp_path / "home" / ".bashrc"
    bashrc.write_text("export PATH=$HOME/bin:$PATH\n")
    (project / "AGENTS.md").symlink_to(bashrc)
    args = ["codex", "--project", "--with-instructions", "--workspace", str(project)]
    code = main(["install", *args])
    assert code != 0
    err = capsys.readouterr().err
    assert f"{project / 'AGENTS.md'} is a symbolic link" in err, err
    assert bashrc.read_text() == "export PATH=$HOME/bin:$PATH\n"
    assert not (tmp_path / "home" / ".bashrc.bak").exists()
    assert not (project / ".codex").exists()  # refused as a whole: nothing half-installed


def test_a_linked_project_folder_is_refused_and_nothing_is_written_outside(
    project, tmp_path, capsys
):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / ".vscode").symlink_to(elsewhere, target_is_directory=True)
    assert main(["install", "vscode", "--project", "--workspace", str(project)]) != 0
    assert f"{project / '.vscode'} is a symbolic link" in capsys.readouterr().err
    assert list(elsewhere.iterdir()) == []


def test_a_linked_project_file_is_refused_by_uninstall_too(project, tmp_path, capsys):
    theirs = tmp_path / "home" / "settings.json"
    theirs.write_text('{"mcpServers": {"wherein": {"command": "wherein"}}}\n')
    (project / ".mcp.json").symlink_to(theirs)
    assert main(["uninstall", "claude", "--project", "--workspace", str(project)]) != 0
    assert "is a symbolic link" in capsys.readouterr().err
    assert theirs.read_text() == '{"mcpServers": {"wherein": {"command": "wherein"}}}\n'


@pytest.mark.parametrize("planted", ["fifo", "/dev/zero"])
def test_a_fifo_or_device_as_the_project_file_is_one_sentence_not_a_hang(project, planted):
    target = project / ".mcp.json"
    if planted == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to(planted)
    done = run_bounded("install", "claude", "--project", "--workspace", str(project))
    assert done.returncode != 0
    line = assert_one_sentence(done.stderr)
    assert str(target) in line


def test_doctor_reports_a_fifo_project_file_instead_of_waiting_on_it(project):
    os.mkfifo(project / ".mcp.json")
    done = run_bounded("doctor", "--workspace", str(project))
    assert "Traceback" not in done.stderr, done.stderr
    assert f"Left {project / '.mcp.json'} untouched: it is not a regular file (a FIFO)" in (
        done.stdout
    ), done.stdout


def test_a_project_file_nested_past_any_config_is_one_sentence_not_a_recursion_error(project):
    deep = '{"mcpServers": ' + "[" * 50_000 + "]" * 50_000 + "}\n"
    (project / ".mcp.json").write_text(deep)
    done = run_bounded("install", "claude", "--project", "--workspace", str(project))
    assert done.returncode != 0
    line = assert_one_sentence(done.stderr)
    assert "nested more than 100 levels deep at line 1" in line and ".mcp.json" in line
