"""The search filters' globs: gitignore semantics, in time linear in the path."""

from __future__ import annotations

import itertools

import pathspec
import pytest

from tests.helpers import fresh_search, printed_in_time, write_tree
from wherein.errors import UsageError
from wherein.file_filter import file_filter

PATTERNS = [
    "*.py",
    "/app/*.py",
    "tests/",
    "docs/**/*.md",
    "**/fixtures/*",
    "app/",
    "!app/keep.py",
    "test_*.py",
    "*.min.js",
    "a?c.txt",
    "[ab]*.ts",
    "build",
    "/README.md",
    "src/**",
]
PATHS = [
    "app/main.py",
    "app/keep.py",
    "lib/app/main.py",
    "tests/test_x.py",
    "src/tests/helpers.py",
    "docs/guide/intro.md",
    "docs/intro.md",
    "x/fixtures/data.json",
    "test_main.py",
    "web/bundle.min.js",
    "abc.txt",
    "sub/abc.txt",
    "b-widget.ts",
    "build/out.txt",
    "build",
    "README.md",
    "pkg/README.md",
    "src/a/b.c",
]


@pytest.mark.parametrize(
    "patterns",
    [[p] for p in PATTERNS] + [list(pair) for pair in itertools.combinations(PATTERNS, 2)],
    ids=lambda patterns: " ".join(patterns),
)
def test_globs_keep_what_gitignore_semantics_keep(patterns):
    """pathspec (the reference) and the filter agree on every path."""
    reference = pathspec.GitIgnoreSpec.from_lines(patterns)
    # Globs that only take files back keep none: refused (the test below), excludes are not.
    only_back = all(pattern.startswith("!") for pattern in patterns)
    allowed = None if only_back else file_filter(globs=patterns).matcher()
    dropped = file_filter(excludes=patterns).matcher()
    for path in PATHS:
        expected = reference.match_file(path)
        assert allowed is None or allowed(path, "text") == expected, path
        assert dropped(path, "text") == (not expected), path


def test_a_backtracking_glob_answers_at_once(tmp_path):
    """`*a*a*a*a*a*a*b` against a 200-character name: pathspec's translation backtracked
    for minutes (and held an MCP server with it). A hang fails this test by its timeout."""
    code = (
        "from wherein.file_filter import file_filter\n"
        "keep = file_filter(globs=['*a*a*a*a*a*a*b'], excludes=['*a*a*a*a*a*a*b']).matcher()\n"
        "print(keep('a' * 200 + '.py', 'python'))\n"
    )
    assert printed_in_time(code) == "False"


def test_a_glob_of_too_many_stars_is_a_usage_error():
    with pytest.raises(UsageError, match="more than 32"):
        file_filter(globs=["*a" * 40])


def test_a_glob_that_only_takes_files_back_is_a_usage_error_naming_the_exclude():
    with pytest.raises(UsageError, match="keeps none.*--exclude '\\*.py'"):
        file_filter(globs=["!*.py"])
    file_filter(globs=["*.py", "!test_*.py"])  # keeps some, takes some back: fine


def _search_one_file(tmp_path, files, match=None):
    repo = write_tree(tmp_path / "repo", {"app/main.py": "def handler(request):\n    pass\n"})
    return fresh_search(repo, "handler", files=files, match=match)


def test_a_filter_that_no_indexed_file_passes_says_so(tmp_path):
    result = _search_one_file(tmp_path, file_filter(globs=["nomatch/*.zz"]))
    assert result.hits == []
    assert "No indexed file passes --glob 'nomatch/*.zz'" in " ".join(result.warnings)


def test_an_exact_match_that_finds_nothing_is_not_blamed_on_the_filter(tmp_path):
    from wherein.text_match import exact_match

    result = _search_one_file(tmp_path, file_filter(globs=["*.py"]), exact_match("xyzzy"))
    assert result.hits == []
    assert not any("No indexed file passes" in w for w in result.warnings)
