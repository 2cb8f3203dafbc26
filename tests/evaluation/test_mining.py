"""Mining real git histories: what is read, what is kept and why the rest is dropped."""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.evaluation.gitrepo import GitRepo
from tests.evaluation.histories import (
    EXPECTED_CONSIDERED,
    EXPECTED_DROPPED,
    EXPECTED_QUESTIONS,
    scripted_history,
)
from wherein.errors import UsageError, WorkspaceError
from wherein.evaluation import mining
from wherein.evaluation.mining import FileChange, parse_log, parse_since, read_history
from wherein.evaluation.questions import select_questions


@pytest.fixture(scope="module")
def history_repo(tmp_path_factory) -> GitRepo:
    return scripted_history(tmp_path_factory.mktemp("history") / "repo")


def snapshot(root: Path) -> dict[str, str]:
    """Every file under `root` (.git included) with a digest of its bytes and its mode."""
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder) / name
            info = path.lstat()
            digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""
            found[str(path.relative_to(root))] = f"{digest}:{info.st_mode}:{info.st_mtime_ns}"
    return found


def test_the_scripted_history_yields_exactly_the_expected_questions(history_repo):
    before = snapshot(history_repo.root)
    history = read_history(history_repo.root, commits=1000)
    selection = select_questions(history)

    assert selection.considered == EXPECTED_CONSIDERED
    assert [(q.text, set(q.gold)) for q in selection.questions] == EXPECTED_QUESTIONS
    assert selection.dropped == EXPECTED_DROPPED
    assert sum(selection.dropped.values()) + len(selection.questions) == selection.considered
    assert history.branch == "main" and not history.shallow
    assert snapshot(history_repo.root) == before  # nothing written, not even in .git


def test_a_rename_is_followed_to_the_path_at_head(history_repo):
    history = read_history(history_repo.root, commits=1000)
    renamed = [c for c in history.commits if c.subject == "Keep the cookie jar in its own package"]
    assert [(ch.status, ch.old_path, ch.path) for ch in renamed[0].changes] == [
        ("R", "app/session.py", "app/http/session.py")
    ]
    questions = {q.text: q for q in select_questions(history).questions}
    older = questions["Send the session cookie with every routed request"]
    assert older.gold == {"app/routing.py", "app/http/session.py"}  # session.py at the time


def test_an_invalid_utf8_subject_is_counted_not_guessed(history_repo):
    history = read_history(history_repo.root, commits=1000)
    undecodable = [c for c in history.commits if c.subject is None]
    assert len(undecodable) == 1
    assert [ch.path for ch in undecodable[0].changes] == ["app/routing.py"]


def test_commits_bounds_what_is_read(history_repo):
    history = read_history(history_repo.root, commits=3)
    assert [c.subject for c in history.commits] == [
        "Bump version to 1.0.1",
        "Label each backoff step with its delay",
        "Fix typo in the router docstring",
    ]
    selection = select_questions(history)
    assert (selection.considered, len(selection.questions)) == (3, 1)


def test_since_keeps_only_newer_commits(history_repo):
    # The clock starts at 2023-11-14 22:13 UTC and moves an hour per commit.
    history = read_history(history_repo.root, commits=1000, since="2023-11-15T18:00:00+00:00")
    assert len(history.commits) == 3


@pytest.mark.parametrize("text", ["yesterday", "2023-13-01", "-n1"])
def test_since_must_be_a_date(text):
    with pytest.raises(UsageError, match="--since .* is not a date"):
        parse_since(text)


def test_commits_must_be_positive(history_repo):
    with pytest.raises(UsageError, match="--commits 0 is not allowed"):
        read_history(history_repo.root, commits=0)


def test_a_folder_outside_git_is_refused_with_what_to_do(tmp_path):
    (tmp_path / "plain").mkdir()
    with pytest.raises(WorkspaceError, match="is not inside a git repository") as caught:
        read_history(tmp_path / "plain", commits=10)
    assert "--workspace" in str(caught.value)


def test_a_repository_without_commits_is_refused(tmp_path):
    GitRepo(tmp_path / "empty")
    with pytest.raises(WorkspaceError, match="has no commit yet"):
        read_history(tmp_path / "empty", commits=10)


def test_a_detached_head_is_mined_from_where_it_points(history_repo, tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(history_repo.root), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", "--detach", "HEAD~2"], check=True)
    history = read_history(clone, commits=1000)
    assert history.branch is None
    assert history.commits[0].subject == "Fix typo in the router docstring"
    assert len(history.commits) == EXPECTED_CONSIDERED - 2


def test_a_shallow_clone_says_so_and_mines_what_it_has(history_repo, tmp_path):
    clone = tmp_path / "shallow"
    source = history_repo.root.as_uri()
    subprocess.run(["git", "clone", "-q", "--depth", "4", source, str(clone)], check=True)
    history = read_history(clone, commits=1000)
    assert history.shallow
    assert len(history.commits) == 4
    # The boundary commit looks like a root that adds every file: never a question.
    assert select_questions(history).dropped.get("adds_or_deletes") == 1


def test_a_workspace_below_the_top_keeps_its_own_files(tmp_path):
    repo = GitRepo(tmp_path / "mono")
    repo.commit("Start both services", {"api/server.py": "A = 1\n", "web/app.py": "B = 1\n"})
    repo.commit("Serve health checks from the api", {"api/server.py": "A = 2\n"})
    repo.commit("Render the dashboard in the web app", {"web/app.py": "B = 2\n"})
    history = read_history(tmp_path / "mono" / "api", commits=100)
    selection = select_questions(history)
    assert history.prefix == "api/"
    assert [(q.text, set(q.gold)) for q in selection.questions] == [
        ("Serve health checks from the api", {"server.py"})
    ]
    assert selection.dropped == {"adds_or_deletes": 1, "outside": 1}


def test_a_planted_git_config_runs_no_command(tmp_path):
    """A repository's own .git/config may name programs git runs (a signature checker here);
    eval's git calls must not run them. Checked first with a plain `git log`, so the test
    shows the planted program really would run."""
    repo = GitRepo(tmp_path / "planted")
    repo.commit("Start the service", {"app.py": "A = 1\n"})
    tree, parent = repo.git("write-tree"), repo.git("rev-parse", "HEAD")
    who = "Mallory <m@example.invalid> 1700000000 +0000"
    signed = (
        f"tree {tree}\nparent {parent}\nauthor {who}\ncommitter {who}\n"
        "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEz\n -----END PGP SIGNATURE-----\n\n"
        "Serve health checks from the app\n"
    )
    sha = repo.git("hash-object", "-t", "commit", "-w", "--stdin", stdin=signed.encode())
    repo.git("update-ref", "refs/heads/main", sha)
    marker = tmp_path / "ran"
    program = tmp_path / "gpg.sh"
    program.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    program.chmod(0o755)
    for key, value in (
        ("log.showSignature", "true"),
        ("gpg.program", str(program)),
        ("core.pager", f"{program} #"),
        ("color.ui", "always"),
        ("diff.external", str(program)),
    ):
        repo.git("config", key, value)
    subprocess.run(["git", "-C", str(repo.root), "log", "-1"], capture_output=True)
    assert marker.exists(), "the planted program should run under a plain git log"
    marker.unlink()

    history = read_history(repo.root, commits=10)

    assert not marker.exists()
    assert history.commits[0].subject == "Serve health checks from the app"
    assert "\x1b" not in (history.commits[0].subject or "")  # no colour codes either


@pytest.mark.parametrize("transport", ["ssh", "file"])
def test_a_planted_partial_clone_fetches_nothing_and_runs_no_command(tmp_path, transport):
    """A repository shaped as a partial clone (a copy, not a clone: a clone never carries
    .git/config) has git fetch the objects it lacks through programs its config names:
    `core.sshCommand` for ssh, `remote.<name>.uploadpack` for a local path. Checked first
    with a plain `git log`, so the test shows the planted program really would run."""
    repo = GitRepo(tmp_path / "planted")
    for number in range(3):
        repo.commit(f"Add the parser step {number}", {f"step{number}.py": f"N = {number}\n"})
    marker = tmp_path / "ran"
    program = f"sh -c 'touch {marker}' #"
    settings = {
        "core.repositoryformatversion": "1",
        "extensions.partialClone": "origin",
        "remote.origin.promisor": "true",
    }
    if transport == "ssh":
        settings |= {"remote.origin.url": "ssh://fetch.invalid/x", "core.sshCommand": program}
    else:
        settings |= {"remote.origin.url": str(repo.root), "remote.origin.uploadpack": program}
    for key, value in settings.items():
        repo.git("config", key, value)
    tree = repo.git("rev-parse", "HEAD~1^{tree}")
    (repo.root / ".git" / "objects" / tree[:2] / tree[2:]).unlink()
    subprocess.run(["git", "-C", str(repo.root), "log", "--name-status"], capture_output=True)
    assert marker.exists(), "the planted program should run under a plain git log"
    marker.unlink()

    with contextlib.suppress(WorkspaceError):  # the missing tree: an error is fine, a fetch not
        read_history(repo.root, commits=10)

    assert not marker.exists()


@pytest.mark.parametrize("planted", ["diff.orderFile", "mailmap.file", ".mailmap"])
def test_a_planted_file_that_never_ends_is_not_read(tmp_path, monkeypatch, planted):
    """`diff.orderFile` and a mailmap (the worktree's `.mailmap` or `mailmap.file`) name
    files git log reads whole; a FIFO there hung eval for good (a /dev/zero would fill the
    memory)."""
    repo = GitRepo(tmp_path / "planted")
    repo.commit("Start the service", {"app.py": "A = 1\n"})
    repo.commit("Serve health checks from the app", {"app.py": "A = 2\n"})
    fifo = repo.root / ".mailmap" if planted == ".mailmap" else tmp_path / "planted-fifo"
    os.mkfifo(fifo)
    if planted != ".mailmap":
        repo.git("config", planted, str(fifo))
    monkeypatch.setattr(mining, "GIT_TIMEOUT_S", 30.0)  # bounds the hang the test guards

    history = read_history(repo.root, commits=10)

    assert history.commits[0].subject == "Serve health checks from the app"
    assert history.commits[0].changes == (FileChange("M", "app.py"),)


def test_a_planted_config_include_that_never_ends_is_a_clear_error(tmp_path):
    """An `include.path` git cannot be told to skip: a FIFO there hung every git call, so
    each call is bounded and the error names what to check. Run in a child process, so a
    regression fails the test instead of hanging it."""
    repo = GitRepo(tmp_path / "planted")
    repo.commit("Start the service", {"app.py": "A = 1\n"})
    fifo = tmp_path / "included"
    os.mkfifo(fifo)
    with (repo.root / ".git" / "config").open("a") as config:
        config.write(f"[include]\n\tpath = {fifo}\n")
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from wherein.errors import WorkspaceError\n"
        "from wherein.evaluation import mining\n"
        "mining.GIT_TIMEOUT_S = 2.0\n"
        "try:\n"
        "    mining.read_history(Path(sys.argv[1]), commits=10)\n"
        "except WorkspaceError as err:\n"
        "    print(err)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(repo.root)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).parents[2],
    )
    assert "gave no answer within 2 s" in done.stdout, done.stderr
    assert "include paths" in done.stdout


def test_parse_log_survives_odd_bytes_and_names():
    raw = (
        b"\x1e" + b"a" * 40 + b"\x001700000000\x00Subject one\x00\nM\x00we\nird.py\x00"
        b"R090\x00old.py\x00new.py\x00"
        b"\x1e" + b"b" * 40 + b"\x001700000001\x00No changes\x00"
        b"\x1e" + b"c" * 40 + b"\x00oops\x00Bad \xff bytes\x00\nA\x00\xff.py\x00"
    )
    commits = parse_log(raw)
    assert [(c.sha[0], c.time, c.subject) for c in commits] == [
        ("a", 1700000000, "Subject one"),
        ("b", 1700000001, "No changes"),
        ("c", 0, None),
    ]
    assert [(ch.status, ch.old_path, ch.path) for ch in commits[0].changes] == [
        ("M", None, "we\nird.py"),
        ("R", "old.py", "new.py"),
    ]
    assert commits[1].changes == ()
    assert commits[2].changes[0].path == "\\xff.py"  # as the index names it


def test_a_huge_subject_is_dropped_before_any_pattern_reads_it(tmp_path):
    """Some subject patterns backtrack on one long word (20,000 letters took seconds)."""
    repo = GitRepo(tmp_path / "huge")
    repo.commit("Start the service", {"app.py": "A = 1\n"})
    repo.commit("x" * 20_000, {"app.py": "A = 2\n"})
    repo.commit("Serve health checks from the app", {"app.py": "A = 3\n"})
    selection = select_questions(read_history(repo.root, commits=10))
    assert [q.text for q in selection.questions] == ["Serve health checks from the app"]
    assert selection.dropped == {"long": 1, "adds_or_deletes": 1}
