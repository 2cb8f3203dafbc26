"""The walk: ignore rules, skipped directories, symlinks, odd bytes and odd names, permissions."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tests.helpers import HashingEmbedder, write_tree
from tests.index.processes import (
    assert_permissions_apply,
    permission_prefix,
    run_wherein,
)
from wherein.config import load_settings
from wherein.errors import WorkspaceError
from wherein.index import prepare as prepare_module
from wherein.index.refresh import refresh_index
from wherein.index.store import open_store
from wherein.search import run_search
from wherein.source_files import BINARY_SNIFF_BYTES
from wherein.workspace import (
    Root,
    WalkReport,
    read_source,
    resolve_workspace,
    walk_root,
)

LIMIT = 1_048_576
FIFTY_MB = 50 * 1024 * 1024


def walked(root: Path, max_file_bytes: int = LIMIT) -> tuple[set[str], WalkReport]:
    report = WalkReport()
    return {e.rel for e in walk_root(Root(root), max_file_bytes, report)}, report


def refresh(tmp_path: Path, root: Path, max_file_bytes: int = LIMIT):
    store = open_store(tmp_path / "index" / "index.db")
    return store, refresh_index(store, [Root(root)], max_file_bytes=max_file_bytes)


def search_paths(root: Path, query: str) -> list[str]:
    result = run_search(
        query, workspace=root, settings=load_settings(root), fast_embedder=HashingEmbedder()
    )
    return [hit.path for hit in result.hits]


# -- ignore rules ---------------------------------------------------------------


def test_nested_gitignore_with_negation_exclude_and_whereinignore(tmp_path):
    root = write_tree(
        tmp_path / "repo",
        {
            ".gitignore": "*.log\n!important.log\n/top_only.py\n",
            ".git/info/exclude": "excluded_by_git.py\n",
            ".whereinignore": "docs/\n",
            "a.log": "x",
            "important.log": "x",
            "top_only.py": "x",
            "excluded_by_git.py": "x",
            "generated_b.py": "x",
            "keep.py": "x",
            "docs/guide.md": "x",
            "sub/.gitignore": "!sub_keep.log\ngenerated_*.py\n",
            "sub/.whereinignore": "private.py\n",
            "sub/x.log": "x",
            "sub/sub_keep.log": "x",
            "sub/generated_a.py": "x",
            "sub/top_only.py": "x",
            "sub/private.py": "x",
            "sub/excluded_by_git.py": "x",
            "sub/deeper/y.log": "x",
            "sub/deeper/sub_keep.log": "x",
            "sub/deeper/ok.py": "x",
            "other/private.py": "x",
            "other/docs/notes.md": "x",
        },
    )
    files, _ = walked(root)
    assert files == {
        "important.log",
        "generated_b.py",
        "keep.py",
        "sub/sub_keep.log",
        "sub/top_only.py",
        "sub/deeper/sub_keep.log",
        "sub/deeper/ok.py",
        "other/private.py",
    }


def test_a_negation_cannot_reinclude_a_file_inside_an_ignored_directory(tmp_path):
    # git: "It is not possible to re-include a file if a parent directory of that file is
    # excluded" (gitignore(5)).
    root = write_tree(
        tmp_path / "repo",
        {
            ".gitignore": "vendor/\n!vendor/keep.py\n",
            "vendor/keep.py": "x",
            "main.py": "x",
        },
    )
    assert walked(root)[0] == {"main.py"}


# -- skipped directories --------------------------------------------------------


def test_tool_and_build_directories_are_skipped_at_every_depth(tmp_path):
    root = write_tree(
        tmp_path / "repo",
        {
            ".git/objects/x.py": "x",
            "node_modules/a.js": "x",
            "a/node_modules/b.js": "x",
            "a/b/__pycache__/c.py": "x",
            "__pycache__/d.py": "x",
            "build/x.py": "x",
            "pkg/dist/x.py": "x",
            "deep/er/target/x.py": "x",
            "pkg/sub/.git/HEAD.py": "x",
            # A virtualenv is recognised by its pyvenv.cfg, whatever it is called.
            "env-3.11/pyvenv.cfg": "home = /usr/bin\n",
            "env-3.11/lib/site.py": "x",
            "a/b/tools-env/pyvenv.cfg": "home = /usr/bin\n",
            "a/b/tools-env/lib/x.py": "x",
            "a/b/keep.py": "x",
            "a/build.py": "x",
            "pkg/distance.py": "x",
            "targets/t.py": "x",
        },
    )
    assert walked(root)[0] == {"a/b/keep.py", "a/build.py", "pkg/distance.py", "targets/t.py"}


# -- symlinks -------------------------------------------------------------------


def test_symlinks_are_never_followed_and_a_loop_does_not_hang(tmp_path):
    outside = write_tree(
        tmp_path / "outside",
        {"secret.py": "def leaked_secret(): pass\n", "dir/more.py": "def leaked_more(): pass\n"},
    )
    root = write_tree(tmp_path / "repo", {"real.py": "def real_thing(): pass\n", "a/b.py": "x"})
    (root / "link_to_file.py").symlink_to(outside / "secret.py")
    (root / "link_to_dir").symlink_to(outside / "dir", target_is_directory=True)
    (root / "link_inside.py").symlink_to(root / "real.py")
    (root / "a" / "loop").symlink_to(root, target_is_directory=True)
    (root / "a" / "self").symlink_to(root / "a" / "self")  # dangling loop: ELOOP on stat
    files, report = walked(root)
    assert files == {"real.py", "a/b.py"}
    assert report.symlinks == 5
    assert "leaked_secret" not in search_paths(root, "leaked_secret leaked_more")


# -- contents: binary, size, odd bytes --------------------------------------------


def test_binary_file_is_skipped_and_counted(tmp_path):
    root = write_tree(
        tmp_path / "repo",
        {
            "image.py": b"def fake():\n" + b"\x00" * 10 + b"pass\n",
            # The last byte git sniffs: still binary.
            "edge.py": b"#" * (BINARY_SNIFF_BYTES - 1) + b"\x00\n",
            "code.py": "def code(): pass\n",
        },
    )
    store, report = refresh(tmp_path, root)
    assert report.skipped["binary"] == 2
    rows = dict(
        store.conn.execute(
            "SELECT f.path, count(c.id) FROM files f LEFT JOIN chunks c ON c.file_id = f.id "
            "GROUP BY f.path"
        )
    )
    assert rows == {"image.py": 0, "edge.py": 0, "code.py": 1}


def test_file_over_the_size_limit_is_skipped_and_counted(tmp_path):
    root = write_tree(tmp_path / "repo", {"big.py": "x = 1\n" * 100, "small.py": "y = 2\n"})
    files, report = walked(root, max_file_bytes=200)
    assert files == {"small.py"}
    assert report.too_large == 1


def test_fifty_megabyte_single_line_file_is_skipped_unread(tmp_path, monkeypatch):
    root = write_tree(tmp_path / "repo", {"ok.py": "def fine(): pass\n"})
    with open(root / "huge.js", "wb") as handle:
        handle.write(b"var a=1;" * (FIFTY_MB // 8))
    reads = []
    real_read = prepare_module.read_source
    monkeypatch.setattr(
        prepare_module,
        "read_source",
        lambda entry, limit: reads.append(entry.rel) or real_read(entry, limit),
    )
    store, report = refresh(tmp_path, root)
    assert reads == ["ok.py"]
    assert report.skipped["too_large"] == 1
    assert set(store.file_states()) == {"ok.py"}


def test_fifty_megabyte_single_line_file_under_a_raised_limit_does_not_blow_up(tmp_path):
    root = write_tree(tmp_path / "repo", {"ok.py": "def fine(): pass\n"})
    with open(root / "huge.js", "wb") as handle:
        handle.write(b"var a=1;" * (FIFTY_MB // 8))
    store, report = refresh(tmp_path, root, max_file_bytes=64 * 1024 * 1024)
    assert report.files_seen == 2
    # One 50 MB line is a minified bundle, recorded as skipped rather than chunked.
    assert report.skipped["minified"] == 1
    assert store.counts()["chunks"] == 1


def test_nul_bytes_after_the_sniffed_prefix_are_indexed_as_replacement(tmp_path):
    padding = b"".join(b"# padding line %d\n" % i for i in range(BINARY_SNIFF_BYTES // 16))
    root = write_tree(
        tmp_path / "repo",
        {
            "mid.py": padding + b"def marmot\x00_after():\n    return 'tail'\n",
        },
    )
    store, report = refresh(tmp_path, root)
    assert not +report.skipped  # no positive counts: nothing was skipped
    texts = [row[0] for row in store.conn.execute("SELECT text FROM chunks")]
    assert any("marmot\ufffd_after" in text for text in texts)
    assert not any("\x00" in text for text in texts)
    assert search_paths(root, "marmot")[:1] == ["mid.py"]


def test_a_file_made_unreadable_after_it_was_indexed_is_reported_and_its_text_dropped(tmp_path):
    prefix = permission_prefix()
    root = write_tree(
        tmp_path / "repo",
        {"ok.py": "def open_function(): pass\n", "secret.py": "def hidden_marmot(): pass\n"},
    )
    env = {"WHEREIN_EMBEDDING_PROVIDER": "static"}
    indexed = run_wherein("index", "--workspace", str(root), prefix=prefix, env=env)
    assert indexed.returncode == 0, indexed.stderr.decode()
    os.chmod(root / "secret.py", 0)  # size and modification time as they were
    try:
        assert_permissions_apply(prefix, root / "secret.py")
        again = run_wherein("index", "--workspace", str(root), prefix=prefix, env=env)
        assert again.returncode == 0, again.stderr.decode()
        assert "unreadable, skipped: secret.py (Permission denied)" in again.stderr.decode()
        found = run_wherein(
            "search", "hidden_marmot", "--json", "--workspace", str(root), prefix=prefix, env=env
        )
        payload = json.loads(found.stdout)
        assert not any("hidden_marmot" in r["excerpt"] for r in payload["results"])
    finally:
        os.chmod(root / "secret.py", 0o644)


def test_invalid_utf8_content_is_decoded_with_replacement(tmp_path):
    root = write_tree(
        tmp_path / "repo", {"latin.py": b"def caf\xe9_order():\n    return 'cr\xe8me'\n"}
    )
    entry = next(walk_root(Root(root), LIMIT, WalkReport()))
    source = read_source(entry, LIMIT)
    assert source.had_invalid_utf8
    assert source.text == "def caf\ufffd_order():\n    return 'cr\ufffdme'\n"
    assert search_paths(root, "order") == ["latin.py"]


def test_names_with_a_newline_or_invalid_utf8_are_indexed_and_searchable(tmp_path):
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    with open(os.fsencode(root / "pkg") + b"/two\nlines.py", "w") as handle:
        handle.write("def zebra_crossing():\n    return 1\n")
    with open(os.fsencode(root / "pkg") + b"/bad\xffname.py", "w") as handle:
        handle.write("def okapi_grazing():\n    return 2\n")
    files, _ = walked(root)
    assert files == {"pkg/two\nlines.py", "pkg/bad\\xffname.py"}

    settings = load_settings(root)
    for query, expected in (
        ("zebra_crossing", "pkg/two\nlines.py"),
        ("okapi_grazing", "pkg/bad\\xffname.py"),
    ):
        embedder = HashingEmbedder()
        result = run_search(query, workspace=root, settings=settings, fast_embedder=embedder)
        assert result.hits[0].path == expected
        assert not result.hits[0].stale  # the real bytes of the name still reach the file
        text = json.dumps(result.to_json(), ensure_ascii=False)
        assert json.loads(text.encode("utf-8").decode("utf-8"))["results"][0]["path"] == expected


def test_a_byte_order_mark_is_no_part_of_the_first_line(tmp_path):
    """Editors on Windows start a file with one (C# projects often): it is left out of the
    text indexed and shown, and of a chunk an older index kept with it."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "Cart.cs").write_bytes(b"\xef\xbb\xbfusing System;\nclass Cart { void Pay() {} }\n")
    store, _ = refresh(tmp_path, root)
    (text,) = [t for (t,) in store.conn.execute("SELECT text FROM chunks")]
    assert text.startswith("using System;")
    store.conn.execute("UPDATE chunks SET text = ? || text", ("\ufeff",))  # as read before
    store.conn.commit()
    store.close()
    result = run_search(
        "Cart", workspace=root, settings=load_settings(root), fast_embedder=HashingEmbedder()
    )
    assert result.hits[0].excerpt.startswith("using System;")


def test_a_name_with_a_control_character_shown_as_another_name_is_reported(tmp_path):
    # A real ESC in a name is shown `\x1b`, as a name with those four characters is: the
    # agent could not tell which file a result is. The one shown as it is, is indexed.
    root = write_tree(
        tmp_path / "repo",
        {"x\x1b.py": "def tern_escaped(): pass\n", "x\\x1b.py": "def tern_literal(): pass\n"},
    )
    (root / "lone\x1b.py").write_text("def tern_alone(): pass\n")  # no look-alike: indexed
    files, report = walked(root)
    assert files == {"x\\x1b.py", "lone\x1b.py"}
    assert [item.split(" ")[0] for item in report.unreadable] == ["x\x1b.py"]
    assert "rename one" in report.unreadable[0]


def test_a_name_not_utf8_shown_as_another_name_is_reported_and_the_rest_indexed(tmp_path):
    # `d\xff` the byte and `d\xff` written out show alike; the index keys files by what it
    # shows, and two rows with one key failed the whole refresh of the repository.
    root = tmp_path / "repo"
    raw = os.fsencode(root)
    for folder in (b"d\xff", b"d\\xff"):
        os.makedirs(raw + b"/" + folder)
        with open(raw + b"/" + folder + b"/m.py", "w") as handle:
            handle.write(f"def walrus_{len(folder)}():\n    return 1\n")
    for name in (b"bad\xff.py", b"bad\\xff.py", b"ok.py"):
        with open(raw + b"/" + name, "w") as handle:
            handle.write(f"def heron_{len(name)}():\n    return 1\n")

    files, report = walked(root)
    assert files == {"d\\xff/m.py", "bad\\xff.py", "ok.py"}
    assert sorted(item.split(" ")[0] for item in report.unreadable) == ["bad\\xff.py", "d\\xff"]
    assert all("rename one" in item for item in report.unreadable)

    store, summary = refresh(tmp_path, root)
    assert {p for (p,) in store.conn.execute("SELECT path FROM files")} == files
    kept = "SELECT c.text FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = ?"
    assert "walrus_5" in store.conn.execute(kept, ("d\\xff/m.py",)).fetchone()[0]  # written out
    store.close()
    assert search_paths(root, "heron_5")[0] == "ok.py"


def test_missing_workspace_and_file_as_workspace_are_clear_errors(tmp_path):
    with pytest.raises(WorkspaceError, match="does not exist"):
        resolve_workspace(tmp_path / "nope")
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(WorkspaceError, match="not a directory"):
        resolve_workspace(tmp_path / "file.txt")


# -- permissions -----------------------------------------------------------------


def test_unreadable_file_and_directories_are_reported_and_skipped(tmp_path):
    """EACCES on a file, on listing a directory, and on entering one: reported, never fatal."""
    prefix = permission_prefix()
    root = write_tree(
        tmp_path / "repo",
        {
            "ok/readable.py": "def readable_function(): pass\n",
            "locked/hidden.py": "def locked_function(): pass\n",
            "no_exec/inside.py": "def no_exec_function(): pass\n",
            "secret.py": "def secret_function(): pass\n",
        },
    )
    os.chmod(root / "secret.py", 0)
    os.chmod(root / "locked", 0)
    os.chmod(root / "no_exec", stat.S_IRUSR | stat.S_IWUSR)  # listable, not enterable
    try:
        assert_permissions_apply(prefix, root / "secret.py")
        indexed = run_wherein(
            "index",
            "--workspace",
            str(root),
            prefix=prefix,
            env={"WHEREIN_EMBEDDING_PROVIDER": "static"},
        )
        err = indexed.stderr.decode()
        assert indexed.returncode == 0, err
        assert "Traceback" not in err
        for item in ("locked/", "no_exec/inside.py", "secret.py"):
            assert f"unreadable, skipped: {item} (Permission denied)" in err
        assert indexed.stdout.decode().rstrip().endswith("; 3 unreadable")

        found = run_wherein(
            "search",
            "readable_function",
            "--json",
            "--workspace",
            str(root),
            prefix=prefix,
            env={"WHEREIN_EMBEDDING_PROVIDER": "static"},
        )
        assert found.returncode == 0, found.stderr.decode()
        payload = json.loads(found.stdout)
        assert payload["results"][0]["path"] == "ok/readable.py"
        unreadable = [w for w in payload["warnings"] if w.startswith("Unreadable, skipped: ")]
        assert len(unreadable) == 1
        for item in ("locked/", "no_exec/inside.py", "secret.py"):
            assert f"{item} (Permission denied)" in unreadable[0]
    finally:
        for path in (root / "secret.py", root / "locked", root / "no_exec"):
            os.chmod(path, 0o755)
