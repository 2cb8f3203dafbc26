"""`wherein completion bash|zsh|fish`: the scripts complete in the real shells.

bash is always there and is asked for completions the way it asks on Tab (COMP_WORDS and the
function `complete -p` names); fish answers `complete -C`; zsh parses the script and registers
it. A shell that is not installed skips its test.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.index.processes import CHILD_TIMEOUT_S, assert_one_sentence, wherein_command
from wherein.cli import main


def script(shell: str, tmp_path) -> str:
    done = subprocess.run(
        wherein_command("completion", shell),
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT_S,
        check=True,
    )
    path = tmp_path / f"wherein.{shell}"
    path.write_text(done.stdout)
    return str(path)


def shell(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed")
    return found


def bash_complete(tmp_path, *words: str) -> list[str]:
    """What bash offers for the last of `words` after `wherein`."""
    line = " ".join(("wherein", *words))
    program = (
        f"source {script('bash', tmp_path)}\n"
        'function_name=$(complete -p wherein | sed -E "s/.*-F ([^ ]+).*/\\1/")\n'
        f"COMP_WORDS=(wherein {' '.join(repr(w) for w in words)})\n"
        f"COMP_CWORD={len(words)}\n"
        f"COMP_LINE={line!r}\n"
        "COMP_POINT=${#COMP_LINE}\n"
        '"$function_name" wherein "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"\n'
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(
        [shell("bash"), "-c", program], capture_output=True, text=True, timeout=CHILD_TIMEOUT_S
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_bash_completes_commands_options_and_choices(tmp_path):
    assert {"search", "serve"} <= set(bash_complete(tmp_path, "se"))
    assert "related" in bash_complete(tmp_path, "rel")
    assert {"--exact", "--exclude"} <= set(bash_complete(tmp_path, "search", "--ex"))
    assert {"--files-only", "--jsonl", "--lines", "--lang"} <= set(
        bash_complete(tmp_path, "search", "--l")
        + bash_complete(tmp_path, "search", "--f")
        + bash_complete(tmp_path, "search", "--j")
    )
    assert bash_complete(tmp_path, "completion", "") == ["bash", "zsh", "fish"]
    assert "--workspace-file" in bash_complete(tmp_path, "config", "set", "--work")


def test_bash_completes_folders_for_workspace(tmp_path):
    (tmp_path / "somefolder").mkdir()
    (tmp_path / "somefile.txt").write_text("x")
    program = script("bash", tmp_path)
    done = subprocess.run(
        [
            shell("bash"),
            "-c",
            f"cd {tmp_path} && source {program} && "
            "COMP_WORDS=(wherein search --workspace some) COMP_CWORD=3 "
            'COMP_LINE="wherein search --workspace some" COMP_POINT=32 && '
            '"$(complete -p wherein | sed -E "s/.*-F ([^ ]+).*/\\1/")" wherein some --workspace '
            '&& printf "%s\\n" "${COMPREPLY[@]}"',
        ],
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT_S,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["somefolder"]


def test_fish_completes_commands_and_options(tmp_path):
    fish = shell("fish")
    program = script("fish", tmp_path)

    def complete(line: str) -> list[str]:
        done = subprocess.run(
            [fish, "--no-config", "-c", f"source {program}; complete -C {line!r}"],
            capture_output=True,
            text=True,
            timeout=CHILD_TIMEOUT_S,
        )
        assert done.returncode == 0, done.stderr
        return [row.split("\t")[0] for row in done.stdout.splitlines()]

    assert {"search", "serve"} <= set(complete("wherein se"))
    assert {"--exact", "--exclude"} <= set(complete("wherein search --ex"))
    assert complete("wherein completion ") == ["bash", "zsh", "fish"]


def test_zsh_reads_the_script_and_registers_it(tmp_path):
    zsh = shell("zsh")
    program = script("zsh", tmp_path)
    assert subprocess.run([zsh, "-n", program], timeout=CHILD_TIMEOUT_S).returncode == 0
    done = subprocess.run(
        [
            zsh,
            "-f",
            "-c",
            f'autoload -U compinit && compinit -u && eval "$(cat {program})" '
            "&& print -r -- ${_comps[wherein]}",
        ],
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT_S,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()  # the completion function zsh will call for `wherein`


def test_an_unknown_shell_exits_2(capsys):
    try:
        code = main(["completion", "tcsh"])
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2
    assert "'tcsh'" in assert_one_sentence(capsys.readouterr().err)
