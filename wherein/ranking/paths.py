"""What a file's path says about it: a test, an example, docs, a legacy or older copy.

The penalty signal reads these; so do the evaluation filters. Worked out once per path
for the process (`path_facts` is cached): a search asks for every fused candidate.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache

from wherein.ranking.tokens import tokenize

__all__ = [
    "LEGACY_PENALTY",
    "PathFacts",
    "copied_directories",
    "in_copy",
    "is_doc_path",
    "is_test_path",
    "path_facts",
    "path_penalty",
    "wanted_kinds",
]

# A test folder: `tests/` and `testdata/` in any case (SwiftPM's and Symfony's `Tests/`),
# `test/`, `spec/`, `fixtures/`, `testing/` in lower case only (PHP's `src/Monolog/Test/` is
# a namespace of helpers shipped to users, Swift's `Testing/` the test framework itself),
# Jest's `__tests__/` and `__mocks__/`, Android's `androidTest/`, `e2e/`; and a folder
# named for what it tests, in CamelCase (SwiftPM's and Xcode's `AppTests/`, .NET's
# `MyLib.UnitTests/`) or after a separator (`integration_tests/`, .NET's `MyLib.Tests/`),
# which `contests/` is not.
_TEST_FOLDER = (
    r"(?i:tests|test_?data)|test|spec|specs|fixtures|testing|__tests__|__mocks__|e2e"
    r"|androidTest|[^/]*[A-Za-z0-9]Tests|[^/]*[_.-](?i:tests)"
)
# A test file: pytest's `test_x.py`, `x_test.go` (Go, Elixir's `_test.exs`), `x_spec.rb`,
# `.lua` and `.cr` (the default patterns of RSpec, busted and Crystal; an `api_spec.yaml`
# is no test), Jest's `x.test.ts` and `x.spec.ts`, JUnit's `XTest.java`, XCTest's
# `XTests.swift`, conftest.py.
_TEST_FILE = (
    r"test_[^/]*|[^/]*_tests?\.[^/]+|[^/]*_spec\.(?:rb|lua|cr)|[^/]*\.(?:test|spec)\.[^/]+"
    r"|[^/]*Tests?\.[^/]+|conftest\.py"
)
_TEST_PATH = re.compile(rf"(^|/)(?:{_TEST_FOLDER})/|(^|/)(?:{_TEST_FILE})$")
_EXAMPLE_PATH = re.compile(r"(^|/)(_?examples?|samples?|demos?|docs?_src|benchmarks?)/")
_DOC_PATH = re.compile(r"(^|/)(docs?|documentation)/|\.(md|rst|txt|adoc)$", re.IGNORECASE)
_LEGACY_PATH = re.compile(r"(^|/)(_?compat|legacy|deprecated|vendor(ed)?|third_party|_vendor)/")
_INIT_FILE = re.compile(r"(^|/)(__init__\.py|package-info\.java|index\.d\.ts)$")

# A folder is an older copy of its parent when this many of its file names, and this
# share of them, repeat the parent's (pydantic/v1 repeats 20 of pydantic's 25 names).
COPY_MIN_SHARED = 3
COPY_MIN_SHARE = 0.3
_VERSION_FOLDER = re.compile(r"v\d+|old|_?legacy_?v?\d*", re.IGNORECASE)
_PACKAGE_MARKERS = frozenset(
    {"__init__.py", "__main__.py", "index.js", "index.ts", "mod.rs", "lib.rs", "main.go"}
)

# The penalties multiply a score, so two kinds in one path compound. Switching them all
# off costs the most of any signal on the benchmark (commit MRR@10 .773 -> .599).
# A test names every symbol it exercises, so it matches a query as well as the code it
# tests; 0.3 puts it under that code, yet above code that shares no word with the query.
TEST_PENALTY = 0.3
# Examples and demos call the API the way a query describes it, but are seldom the answer.
EXAMPLE_PENALTY = 0.3
# Prose about the code matches natural-language queries best of all, yet an agent wants
# the place to change; a milder 0.5, because prose often is the answer for "how do I".
DOC_PENALTY = 0.5
# Vendored and compatibility copies repeat current code word for word; the copy loses.
LEGACY_PENALTY = 0.3
# A package marker re-exports names it does not define: halved, not buried, because some
# packages do define their API in `__init__.py`.
INIT_PENALTY = 0.5
# A stub or interface file declares what the implementation beside it defines; it yields to
# it: TypeScript's declarations, Python's stubs, OCaml's interfaces, Sorbet's Ruby stubs.
TYPE_STUB_PENALTY = 0.7
STUB_SUFFIXES = (".d.ts", ".d.mts", ".d.cts", ".pyi", ".mli", ".rbi")
# In the order path_penalty multiplies them.
_KIND_PENALTIES = (
    ("test", TEST_PENALTY),
    ("example", EXAMPLE_PENALTY),
    ("doc", DOC_PENALTY),
    ("legacy", LEGACY_PENALTY),
)

_QUERY_WANTS = {
    "test": ("test", "tests", "testing", "spec", "fixture", "fixtures"),
    "example": ("example", "examples", "sample", "demo", "tutorial"),
    "doc": ("doc", "docs", "documentation", "readme", "changelog", "guide"),
    "legacy": ("compat", "legacy", "deprecated", "vendor", "vendored"),
}


@dataclass(frozen=True)
class PathFacts:
    """What the signals read from a path, whatever the query: worked out once per path."""

    words: frozenset[str]  # the file stem's and the two nearest folders' tokens
    prefixes: frozenset[str]  # the first four letters of each word of four or more
    stem: str  # the file name before its first dot, lower-cased, leading `_` dropped
    kinds: frozenset[str]  # which of test, example, doc, legacy the path looks like
    init: bool
    stub: bool
    # `path_penalty` when the query wants none of `kinds`: the usual case, asked of every
    # candidate's file, so worked out with the rest.
    penalty: float = 1.0


@lru_cache(maxsize=65536)
def path_facts(path: str) -> PathFacts:
    words = _path_words(path)
    kinds = {
        kind
        for kind, pattern in (
            ("test", _TEST_PATH),
            ("example", _EXAMPLE_PATH),
            ("doc", _DOC_PATH),
            ("legacy", _LEGACY_PATH),
        )
        if pattern.search(path)
    }
    facts = PathFacts(
        words=frozenset(words),
        prefixes=frozenset(w[:4] for w in words if len(w) >= 4),
        stem=path.rsplit("/", 1)[-1].split(".")[0].lower().lstrip("_"),
        kinds=frozenset(kinds),
        init=bool(_INIT_FILE.search(path)),
        stub=path.endswith(STUB_SUFFIXES),
    )
    return replace(facts, penalty=_penalty_of(facts, frozenset()))


def _path_words(path: str) -> set[str]:
    parts = path.split("/")
    words = set(tokenize(parts[-1].rsplit(".", 1)[0]))
    for folder in parts[-3:-1]:
        words.update(tokenize(folder))
    return words


def wanted_kinds(query: str) -> set[str]:
    words = {w.lower() for w in re.findall(r"\w+", query)}
    return {kind for kind, triggers in _QUERY_WANTS.items() if words & set(triggers)}


def is_test_path(path: str) -> bool:
    """A test file or a file in a test folder (`tests/`, `test_x.py`, `x.spec.ts`, ...)."""
    return bool(_TEST_PATH.search(path))


def is_doc_path(path: str) -> bool:
    """Documentation: a prose file (`.md`, `.rst`, ...) or anything under `docs/`."""
    return bool(_DOC_PATH.search(path))


def path_penalty(path: str, wants: set[str] | frozenset[str]) -> float:
    """Multiplier for files that usually crowd out the answer unless asked for."""
    facts = path_facts(path)
    if facts.kinds.isdisjoint(wants):
        return facts.penalty
    return _penalty_of(facts, wants)


def _penalty_of(facts: PathFacts, wants: set[str] | frozenset[str]) -> float:
    factor = 1.0
    for kind, penalty in _KIND_PENALTIES:
        if kind in facts.kinds and kind not in wants:
            factor *= penalty
    if facts.init:
        factor *= INIT_PENALTY
    if facts.stub:
        factor *= TYPE_STUB_PENALTY
    return factor


def copied_directories(paths: Iterable[str]) -> frozenset[str]:
    """Folders that hold an older copy of their parent package (`pkg/v1/` beside `pkg/`).

    A folder is a copy when its name is a version (`v1`, `v2`, `old`) and at least
    COPY_MIN_SHARED of its file names, and COPY_MIN_SHARE of them, also stand in its
    parent folder: `pydantic/v1/fields.py` beside `pydantic/fields.py`. Both are needed:
    `api/v1/` beside `api/v2/` is the current API, not a copy, and a folder that merely
    mirrors its parent's layout (`sympy/strategies/branch`) is no older version. Package
    markers (`__init__.py`, `index.js`, `mod.rs`) are not evidence.
    """
    names: dict[str, set[str]] = {}
    for path in paths:
        folder, _, name = path.rpartition("/")
        if name not in _PACKAGE_MARKERS:
            names.setdefault(folder, set()).add(name)
    copies = set()
    for folder, files in names.items():
        if not folder or not _VERSION_FOLDER.fullmatch(folder.rpartition("/")[2]):
            continue
        parent = folder.rpartition("/")[0]
        shared = files & names.get(parent, set())
        if len(shared) >= COPY_MIN_SHARED and len(shared) >= COPY_MIN_SHARE * len(files):
            copies.add(folder)
    return frozenset(copies)


def in_copy(path: str, copies: frozenset[str], query_words: set[str]) -> bool:
    for folder in copies:
        if path.startswith(folder + "/"):
            return folder.rpartition("/")[2].lower() not in query_words
    return False
