"""A cloned repository is hostile input: planted control files, ignore lines git accepts,
files and folders swapped during a run, trees deeper than Python's recursion limit.

A walk that could hang or exhaust memory on today's code runs in a child process with an
address-space limit and a timeout, so the test fails instead of taking the suite down.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import HashingEmbedder, write_tree
from tests.index.processes import run_wherein, wherein_command
from tests.plugin.conftest import run_session
from wherein import ignore_rules
from wherein.config import load_settings
from wherein.gitignore import MAX_WILDCARD_LINES
from wherein.index.refresh import refresh_index
from wherein.index.store import open_store
from wherein.search import run_search
from wherein.walk_records import MAX_WALK_WARNINGS
from wherein.workspace import Root, SourceText, WalkReport, read_source, walk_root

LIMIT = 1 << 20
# Bounds a child that hangs on a FIFO today; never a speed assertion.
CHILD_TIMEOUT_S = 60
# Enough for Python and pathspec; reading /dev/zero into memory hits it in a moment.
CHILD_ADDRESS_SPACE = 2 << 30

WALK_IN_A_CHILD = """
import json, resource, sys
from pathlib import Path
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
from wherein.workspace import Root, WalkReport, read_source, walk_root
report = WalkReport()
entries = list(walk_root(Root(Path(sys.argv[1])), 1 << 20, report))
{then}
print(json.dumps({{"files": [e.rel for e in entries], "warnings": report.warnings, "out": out}}))
"""


def walk_in_a_child(root: Path, then: str = "out = None") -> dict:
    """Walk `root` in a child process (then run `then`, which sets `out`); its JSON answer."""
    script = WALK_IN_A_CHILD.format(limit=CHILD_ADDRESS_SPACE, then=then)
    done = subprocess.run(
        [sys.executable, "-c", script, str(root)],
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT_S,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def walked(root: Path) -> tuple[list[str], WalkReport]:
    report = WalkReport()
    return [e.rel for e in walk_root(Root(root), LIMIT, report)], report


# -- control files that are links, devices, FIFOs or too large --------------------


def test_ignore_files_that_are_links_devices_fifos_or_too_large_are_skipped_by_name(tmp_path):
    rules = write_tree(tmp_path / "outside", {"rules": "*.py\n"}) / "rules"
    root = write_tree(
        tmp_path / "repo",
        {
            "a.py": "x",
            "sub/b.py": "x",
            "fifo/c.py": "x",
            "far/d.py": "x",
            "big/e.py": "x",
            "big/.gitignore": "*.py\n" + "# padding\n" * (LIMIT // 10 + 1),
            "fine/.gitignore": "*.log\n",
            "fine/f.py": "x",
            "fine/f.log": "x",
            ".git/info/.keep": "",
        },
    )
    (root / ".gitignore").symlink_to("/dev/zero")
    (root / ".git" / "info" / "exclude").symlink_to("/dev/zero")
    (root / "sub" / ".whereinignore").symlink_to("/dev/urandom")
    os.mkfifo(root / "fifo" / ".gitignore")
    (root / "far" / ".gitignore").symlink_to(rules)  # a regular file outside: not followed

    answer = walk_in_a_child(root)

    assert sorted(answer["files"]) == [
        "a.py",
        "big/e.py",
        "far/d.py",
        "fifo/c.py",
        "fine/f.py",
        "sub/b.py",
    ]
    warnings = answer["warnings"]
    assert len(warnings) == 6, warnings
    for name, why in (
        (".git/info/exclude", "it is a symbolic link"),
        (".gitignore", "it is a symbolic link"),
        ("big/.gitignore", "it is larger than 1,048,576 bytes"),
        ("far/.gitignore", "it is a symbolic link"),
        ("fifo/.gitignore", "it is not a regular file (a FIFO)"),
        ("sub/.whereinignore", "it is a symbolic link"),
    ):
        assert any(w.startswith(f"Ignored {name}: {why};") for w in warnings), (name, warnings)
    assert all(w.endswith(".") and "\n" not in w for w in warnings)


def test_a_skipped_ignore_file_reaches_the_user_through_index_search_and_recall(tmp_path):
    rules = write_tree(tmp_path / "outside", {"rules": "*.py\n"}) / "rules"
    root = write_tree(tmp_path / "repo", {"app/retry.py": "def retry_with_backoff(): pass\n"})
    (root / ".gitignore").symlink_to(rules)  # followed today, it would ignore every file
    warning = "Ignored .gitignore: it is a symbolic link;"
    indexed = run_wherein(
        "index", "--workspace", str(root), env={"WHEREIN_EMBEDDING_PROVIDER": "static"}
    )
    err = indexed.stderr.decode()
    assert indexed.returncode == 0 and "Traceback" not in err, err
    assert f"wherein: {warning}" in err

    (root / "app" / "router.py").write_text("def add_route(): pass\n")  # the next search walks
    result = run_search(
        "retry", workspace=root, settings=load_settings(root), fast_embedder=HashingEmbedder()
    )
    assert any(w.startswith(warning) for w in result.warnings), result.warnings

    (root / "app" / "cookies.py").write_text("def parse_cookie(): pass\n")

    async def steps(rc):
        return await rc.recall(query="retry with backoff")

    answer = run_session(root, steps)
    assert answer["ok"], answer
    assert any(w.startswith(warning) for w in answer["warnings"]), answer


# -- ignore lines git accepts ------------------------------------------------------


def test_ignore_lines_git_keeps_but_that_match_nothing_are_skipped_one_by_one(tmp_path):
    # `[z-a]` is not one of them: git matches it against `z` (the `z` counts before the empty
    # range), and so does wherein.
    root = write_tree(
        tmp_path / "repo",
        {
            ".gitignore": "*.log\n!\n\\\n[z-a]\nbuild-*/\n[[:alpha:]]x\nfoo\\\n[[:nope:]]\n",
            "sub/.whereinignore": "# comment\n[b-a]y\nsecret.py\nopen[bracket\n",
            "a.py": "x",
            "a.log": "x",
            "z": "x",
            "ax": "x",
            "build-1/x.py": "x",
            "sub/secret.py": "x",
            "sub/by": "x",
            "sub/ok.py": "x",
        },
    )
    files, report = walked(root)
    assert sorted(files) == ["a.py", "sub/ok.py"]
    assert report.warnings == [
        f"Skipped line {number} of {name} ({line!r}): wherein cannot match it; fix or remove "
        "the line."
        for number, name, line in (
            (2, ".gitignore", "!"),
            (3, ".gitignore", "\\"),
            (7, ".gitignore", "foo\\"),
            (8, ".gitignore", "[[:nope:]]"),
            (4, "sub/.whereinignore", "open[bracket"),
        )
    ]


def test_a_tree_full_of_bad_ignore_lines_gives_a_bounded_list_of_warnings(tmp_path):
    root = write_tree(tmp_path / "repo", {f"d{n:02}/.gitignore": "!\n" for n in range(30)})
    (root / "keep.py").write_text("x")
    files, report = walked(root)
    assert files == ["keep.py"]
    assert len(report.warnings) == MAX_WALK_WARNINGS + 1
    assert report.warnings[0].startswith("Skipped line 1 of d00/.gitignore ('!')")
    assert report.warnings[-1].startswith("More ignore files or lines were skipped")


def test_a_bad_ignore_line_is_a_warning_over_recall_not_an_error(tmp_path):
    root = write_tree(
        tmp_path / "repo",
        {
            ".gitignore": "!\n*.log\n",
            "app/retry.py": "def retry_with_backoff(): pass\n",
            "app/noise.log": "retry retry retry\n",
        },
    )

    async def steps(rc):
        return await rc.recall(query="retry with backoff")

    answer = run_session(root, steps)
    assert answer["ok"], answer
    assert [path for path, _, _ in answer["results"]] == ["app/retry.py"]
    assert any(w.startswith("Skipped line 1 of .gitignore ('!')") for w in answer["warnings"])


# -- ignore lines that would backtrack ---------------------------------------------

# Each takes `pathspec` (the matcher before wherein.gitignore) longer than the timeout on one
# name: its regexes backtrack exponentially in the stars, polynomially in the `**`s.
BACKTRACKING_LINES = (
    "*a*a*a*a*a*a*a*a*b",
    "*?*?*?*?*?*?*?*?*?*?b",
    "**/a/**/a/**/a/**/a/**/a/**/a/**/b",
    "**/a*/**/a*/**/a*/**/a*/**/a*/**/c",
)


def test_planted_backtracking_lines_and_long_names_cannot_stall_the_index(tmp_path):
    deep = "a/" * 120
    long_name = "a" * 250
    root = write_tree(
        tmp_path / "repo",
        {
            ".gitignore": "\n".join(BACKTRACKING_LINES) + "\n",
            long_name: "def long_name(): pass\n",
            f"{deep}{long_name}": "def deep_long_name(): pass\n",
            f"{deep}ab": "ignored: `*a*a*a*a*a*a*a*a*b` needs eight a's before the b\n",
            f"{deep}aaaaaaaab": "ignored by the first line\n",
            f"{deep}b": "ignored by the third line\n",
        },
    )
    indexed = subprocess.run(
        wherein_command("index", "--workspace", str(root)),
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "WHEREIN_HOME": str(tmp_path / "home"),
            "WHEREIN_EMBEDDING_PROVIDER": "static",
        },
        timeout=CHILD_TIMEOUT_S,
    )
    assert indexed.returncode == 0 and "Traceback" not in indexed.stderr, indexed.stderr
    assert indexed.stdout.startswith("3 files seen,"), indexed.stdout
    files, report = walked(root)
    assert sorted(files) == sorted([long_name, f"{deep}{long_name}", f"{deep}ab"])
    assert report.warnings == []


def test_a_line_with_too_many_stars_is_skipped_by_name_and_quoted_short(tmp_path):
    line = "*a" * 100 + "*b"
    root = write_tree(
        tmp_path / "repo",
        {
            ".gitignore": f"*.log\n{line}\n!keep.log\n",
            "a.log": "x",
            "keep.log": "x",
            "main.py": "x",
        },
    )
    files, report = walked(root)
    assert sorted(files) == ["keep.log", "main.py"]
    assert report.warnings == [
        f"Skipped line 2 of .gitignore ({line[:80]!r}... (202 characters)): it has more than "
        "32 `*` wildcards; split it into simpler lines."
    ]


def test_past_the_cap_of_wildcard_lines_for_one_folder_the_later_ones_are_skipped(tmp_path):
    never = "".join(f"*never{n}*\n" for n in range(MAX_WILDCARD_LINES - 1))
    root = write_tree(
        tmp_path / "repo",
        {
            ".gitignore": never,
            "sub/.gitignore": "x*.tmp\ny*.bak\nsecret.py\nz*.cfg\n*.log\n",
            "other/.gitignore": "y*.bak\n",
            "top.py": "x",
            "sub/x1.tmp": "the last wildcard line within the cap applies",
            "sub/y1.bak": "the first past it does not",
            "sub/secret.py": "a literal line past the cap still applies",
            "sub/z1.cfg": "nor any wildcard line after it",
            "sub/a.log": "nor a `*.ext` line",
            "sub/ok.py": "x",
            "other/y1.bak": "a sibling folder has a cap of its own",
        },
    )
    files, report = walked(root)
    assert sorted(files) == ["sub/ok.py", "sub/y1.bak", "sub/z1.cfg", "top.py"]
    assert report.warnings == [
        "Skipped line 2 of sub/.gitignore ('y*.bak') and the wildcard lines after it: more "
        f"than {MAX_WILDCARD_LINES:,} wildcard lines apply to this folder; write the rest as "
        "literal names or `*.ext` lines, which have no limit."
    ]


# -- files and folders swapped between the walk and the read ----------------------


def test_a_file_swapped_for_a_fifo_after_the_walk_is_skipped_not_waited_on(tmp_path):
    root = write_tree(tmp_path / "repo", {"a.py": "def a(): pass\n", "pkg/b.py": "x = 1\n"})
    then = (
        "import os\n"
        "for e in entries:\n"
        "    os.unlink(e.path)\n"
        "    os.mkfifo(e.path)\n"
        "from wherein.index.prepare import prepare_files\n"
        "out = [read_source(e, 1 << 20).reason for e in entries]\n"
        "out += [p.outcome for p in prepare_files(entries, max_file_bytes=1 << 20,\n"
        "                                         known_sha256={}, workers=0)]\n"
    )
    answer = walk_in_a_child(root, then)
    assert answer["files"] == ["a.py", "pkg/b.py"]
    assert answer["out"] == ["vanished"] * 4


def test_a_folder_swapped_for_a_link_during_the_run_indexes_nothing_outside(tmp_path):
    outside = write_tree(
        tmp_path / "outside",
        {
            "late/x.py": "def outside_late(): pass\n",
            "pkg/mod.py": "def outside_mod(): pass\n",
        },
    )
    root = write_tree(
        tmp_path / "repo",
        {
            "a.py": "def a(): pass\n",
            "late/x.py": "def inside_late(): pass\n",
            "pkg/mod.py": "def inside_mod(): pass\n",
        },
    )
    report = WalkReport()
    walk = walk_root(Root(root), LIMIT, report)
    assert next(walk).rel == "a.py"  # the root is listed; late/ and pkg/ are not yet
    os.rename(root / "late", tmp_path / "late-away")
    (root / "late").symlink_to(outside / "late", target_is_directory=True)
    entries = list(walk)
    assert [e.rel for e in entries] == ["pkg/mod.py"]
    assert report.unreadable == ["late/ (replaced during the walk)"]

    # pkg/ was listed as a folder; now it is a link out of the tree.
    os.rename(root / "pkg", tmp_path / "pkg-away")
    (root / "pkg").symlink_to(outside / "pkg", target_is_directory=True)
    source = read_source(entries[0], LIMIT)
    assert not isinstance(source, SourceText), source.text
    assert (source.reason, source.detail) == (
        "unreadable",
        "a folder on its path was replaced during the run",
    )


def test_a_file_read_after_the_walk_still_reads_when_rewritten_in_place_or_renamed_over(
    tmp_path,
):
    root = write_tree(tmp_path / "repo", {"pkg/a.py": "old\n", "pkg/b.py": "old\n"})
    entries = list(walk_root(Root(root), LIMIT, WalkReport()))
    (root / "pkg" / "a.py").write_text("rewritten\n")
    (root / "pkg" / "b.tmp").write_text("renamed over\n")  # an editor's atomic save
    os.replace(root / "pkg" / "b.tmp", root / "pkg" / "b.py")
    assert [read_source(e, LIMIT).text for e in entries] == ["rewritten\n", "renamed over\n"]


# -- deep trees -------------------------------------------------------------------


@pytest.fixture
def deep_tree(tmp_path):
    """A workspace with `top.py` and `d/d/.../d/leaf.py`, deeper than the recursion limit."""
    depth = max(1100, sys.getrecursionlimit() + 100)
    root = deep = tmp_path / "repo"
    root.mkdir()
    for _ in range(depth):  # one at a time: pathlib's and os's makedirs recurse too
        deep = deep / "d"
        deep.mkdir()
    (deep / "leaf.py").write_text("def deepest_leaf(): pass\n")
    (root / "top.py").write_text("def top(): pass\n")
    yield root, depth
    # pytest's own clean-up (shutil.rmtree) recurses once a level: take the tree down here.
    for level in range(depth, 0, -1):
        for child in (root / ("d/" * level)).iterdir():
            child.unlink()
        (root / ("d/" * level)).rmdir()


def test_a_tree_deeper_than_the_recursion_limit_is_walked_and_indexed(tmp_path, deep_tree):
    root, depth = deep_tree
    files, report = walked(root)
    assert len(files) == 2 and files[0] == "top.py"  # never print the 2,000-character path
    assert files[1] == "d/" * depth + "leaf.py"
    assert report.unreadable == []
    store = open_store(tmp_path / "index" / "index.db")
    refreshed = refresh_index(store, [Root(root)], max_file_bytes=LIMIT)
    store.close()
    assert refreshed.files_seen == 2 and refreshed.unreadable == []


def test_past_the_cap_of_ignore_lines_in_force_the_later_ones_are_skipped(tmp_path, monkeypatch):
    # Nested folders of huge ignore files held every line while the walk was below them
    # (40 folders of 1 MiB files: 1.08 GB); past the cap a folder's later lines are dropped.
    monkeypatch.setattr(ignore_rules, "MAX_RULES_IN_FORCE", 6)
    root = write_tree(
        tmp_path / "repo",
        {
            ".gitignore": "a.tmp\nb.tmp\nc.tmp\n",
            "sub/.gitignore": "d.tmp\ne.tmp\nf.tmp\ng.tmp\n",
            "sub/d.tmp": "within the cap: ignored",
            "sub/f.tmp": "within the cap: ignored",
            "sub/g.tmp": "past the cap: indexed",
            "other/.gitignore": "g.tmp\n",
            "other/g.tmp": "a sibling holds only its parent's lines and its own: ignored",
            "a.tmp": "ignored",
            "top.py": "x",
        },
    )
    files, report = walked(root)
    assert sorted(files) == ["sub/g.tmp", "top.py"]
    assert report.warnings == [
        "Skipped line 4 of sub/.gitignore and the lines after it: more than 6 ignore lines "
        "apply to this folder, which no real project needs; the files they would ignore are "
        "indexed."
    ]
