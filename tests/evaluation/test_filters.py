"""Which subjects are questions, what they ask once cleaned, and which files answer them."""

from __future__ import annotations

import pytest

from wherein.evaluation.filters import (
    clean_subject,
    is_release_notes,
    is_source_file,
    subject_drop_reason,
)


@pytest.mark.parametrize(
    ("subject", "query", "reason"),
    [
        (
            "fix(http): retry idempotent requests on connection reset (#1234)",
            "retry idempotent requests on connection reset",
            None,
        ),
        (
            "[BUG] Correctly lowercase a redirect scheme",
            "Correctly lowercase a redirect scheme",
            None,
        ),
        ("BUG: handle empty headers, fixes #12", "handle empty headers", None),
        ("ABC-123: support proxies in sessions", "support proxies in sessions", None),
        (
            "Use yield from instead of looping yield (#6170)",
            "Use yield from instead of looping yield",
            None,
        ),
        ("feat!: stream large bodies (closes #7, #8)", "stream large bodies", None),
        (
            "Повторять запросы при сбросе соединения",
            "Повторять запросы при сбросе соединения",
            None,
        ),
        ("修复重定向时的协议大小写", "修复重定向时的协议大小写", None),
        # Words that look like a category but are the feature itself.
        (
            "Release the GIL while hashing large files",
            "Release the GIL while hashing large files",
            None,
        ),
        (
            "Merge adjacent chunks that share a declaration",
            "Merge adjacent chunks that share a declaration",
            None,
        ),
        (
            "Revert to the default timeout when the value is unset",
            "Revert to the default timeout when the value is unset",
            None,
        ),
        (
            "Make the dependency graph lazy to save startup time",
            "Make the dependency graph lazy to save startup time",
            None,
        ),
        (
            "Strip trailing whitespace from excerpts before display",
            "Strip trailing whitespace from excerpts before display",
            None,
        ),
        (
            "Lexical engine on SQLite FTS5 (m004); CHANGELOG and README for the tiers",
            "Lexical engine on SQLite FTS5 (m004); CHANGELOG and README for the tiers",
            None,
        ),
        # Dropped.
        ("Bump version to 2.3.1", "Bump version to 2.3.1", "version"),
        ("v2.0.0", "v2.0.0", "version"),
        ("Release 2.0.0", "Release 2.0.0", "release"),
        ("Prepare 2.1 release", "Prepare 2.1 release", "release"),
        ("chore(release): 4.0.0", "4.0.0", "release"),
        ('Revert "Add retry"', 'Revert "Add retry"', "revert"),
        ("Merge branch 'main' into feature", "Merge branch 'main' into feature", "merge"),
        ("Merge pull request #4 from a/b", "Merge pull request from a/b", "merge"),
        ("Fix typo in error message", "Fix typo in error message", "typo"),
        ("docs: explain retries", "explain retries", "docs"),
        ("Update README", "Update README", "docs"),
        ("Document the retry budget", "Document the retry budget", "docs"),
        ("ci: pin actions", "pin actions", "ci"),
        ("Fix CI on Windows", "Fix CI on Windows", "ci"),
        (
            "Bump urllib3 from 1.26.5 to 1.26.18",
            "Bump urllib3 from 1.26.5 to 1.26.18",
            "dependencies",
        ),
        ("chore(deps): bump idna", "bump idna", "dependencies"),
        ("Update dependencies", "Update dependencies", "dependencies"),
        ("Add tests for redirect handling", "Add tests for redirect handling", "tests"),
        ("tests: cover the walk", "cover the walk", "tests"),
        ("Endpoint tests with real sockets", "Endpoint tests with real sockets", "tests"),
        ("Run black", "Run black", "formatting"),
        ("Reformat with ruff", "Reformat with ruff", "formatting"),
        ("style: wrap long lines", "wrap long lines", "formatting"),
        ("search: ruff format", "search: ruff format", "formatting"),
        ("change_check: import order", "change_check: import order", "formatting"),
        ("Fix it", "Fix it", "short"),
        ("wip", "wip", "short"),
        ("(#12)", "", "short"),
    ],
)
def test_subjects_become_questions_or_are_dropped_for_a_reason(subject, query, reason):
    text, type_reason = clean_subject(subject)
    assert text == query
    assert (type_reason or subject_drop_reason(text)) == reason


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("src/requests/sessions.py", True),
        ("pkg/server.go", True),
        ("web/App.tsx", True),
        ("tests/test_sessions.py", False),
        ("src/sessions_test.go", False),
        ("web/app.spec.ts", False),
        ("conftest.py", False),
        ("docs/conf.py", False),
        ("README.md", False),
        ("pyproject.toml", False),
        ("assets/logo.png", False),
        ("Makefile", False),
    ],
)
def test_only_code_outside_tests_and_docs_answers_a_question(path, source):
    assert is_source_file(path) is source


@pytest.mark.parametrize(
    ("path", "notes"),
    [
        ("CHANGELOG.md", True),
        ("CHANGES.rst", True),
        ("HISTORY", True),
        ("docs/changes.rst", True),
        ("changelog.d/123.bugfix.md", True),
        ("newsfragments/45.feature", True),
        ("src/history.py", False),
        ("src/changes/apply.py", False),
    ],
)
def test_release_notes_are_recognised(path, notes):
    assert is_release_notes(path) is notes
