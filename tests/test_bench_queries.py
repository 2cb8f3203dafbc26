"""scripts/bench_queries.py: the queries it reads, what it finds different, what it refuses."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.helpers import write_tree

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
RUBY = (
    "class Shop\n  def self.open\n  end\n  def Other.close\n  end\n  def sell(item)\n  end\nend\n"
)


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(SCRIPTS))  # it imports bench_instructions for its count
    spec = importlib.util.spec_from_file_location("bench_queries", SCRIPTS / "bench_queries.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_query_file_and_the_grammars_that_borrow_one_are_listed(bench):
    names = bench.languages()
    assert {"python", "ruby", "cpp", "tsx"} <= set(names)
    new = bench.new_queries(["tsx", "typescript"])
    assert new["tsx"] == new["typescript"] and "@definition" in new["tsx"]


@pytest.mark.skipif(
    not (SCRIPTS.parent / ".git").exists(), reason="a checkout without its git history"
)
def test_the_queries_of_a_revision_are_read_from_git(bench):
    old = bench.old_queries("HEAD", ["ruby", "tsx"])
    assert "singleton_method" in old["ruby"] and "@definition" in old["tsx"]
    with pytest.raises(SystemExit, match="is not a commit"):
        bench.old_queries("no-such-revision-anywhere", ["ruby"])


def test_a_query_that_lost_a_pattern_is_caught_in_the_samples(bench, tmp_path):
    samples = write_tree(tmp_path / "samples", {"shop.rb": RUBY, "notes.txt": "text\n"})
    new = bench.new_queries(["ruby"])
    files, found, differing = bench.differences([samples], new, new)
    assert (files, differing) == (1, []) and found == 4
    lost = {"ruby": "\n".join(line for line in new["ruby"].splitlines() if "singleton" not in line)}
    files, found, differing = bench.differences([samples], lost, new)
    [(path, only_old, only_new)] = differing
    assert path.name == "shop.rb" and only_old == []
    assert [(d.qualified, d.row) for d in only_new] == [("Shop.open", 1), ("Shop.Other.close", 3)]


def test_compiling_is_timed_for_each_language(bench):
    text = bench.new_queries(["python"])["python"]
    assert bench.compile_seconds("python", text, 2) > 0
    with pytest.raises(Exception, match="Invalid node type"):  # a query the grammar refuses
        bench.compile_seconds("python", "(no_such_node) @definition", 1)


def test_it_refuses_to_start_without_a_revision_or_with_bad_arguments(bench, capsys, tmp_path):
    for argv, said in (
        (["--language", "ruby"], "--old is required"),
        (["--old", "HEAD", "--repeats", "0"], "--repeats must be 1 or more"),
        (["--old", "HEAD", "--language", "cobol"], "no query for cobol"),
        (["--old", "HEAD", "--samples", str(tmp_path / "missing")], "is not a folder"),
    ):
        with pytest.raises(SystemExit):
            bench.main(argv)
        assert said in capsys.readouterr().err
