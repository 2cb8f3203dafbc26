"""Search results written to a non-terminal without rich are exactly what rich writes."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from wherein import present
from wherein.ranking.step import CANCELLED, FAILED, OFF, TIMED_OUT, StepStatus
from wherein.scope import Scope
from wherein.search import Hit, SearchResult


def _hit(rank=1, **fields) -> Hit:
    values = dict(
        rank=rank,
        path="src/retry.py",
        root="",
        source_path=None,
        start_line=9,
        end_line=12,
        symbols=("backoff",),
        language="python",
        score=0.5,
        similarity=0.8123,
        stale=False,
        truncated=False,
        excerpt="def backoff(attempt):\n    return 2 ** attempt",
    )
    values.update(fields)
    return Hit(**values)


def _result(hits, **fields) -> SearchResult:
    values = dict(
        query="q",
        workspace="/w",
        scope=Scope(None, "workspace"),
        hits=hits,
        pending_files=0,
        pending_chunks=0,
    )
    values.update(fields)
    return SearchResult(**values)


TRICKY = "x = '[bold]not markup[/bold] :smile: \x1b[31mred\x1b[0m 漢字 trailing   '   \r"
RESULTS = {
    "none": _result([]),
    "none pending": _result([], pending_files=2, pending_chunks=7),
    "plain": _result([_hit()]),
    "everything": _result(
        [
            _hit(
                1,
                header="class Policy:\n    more",
                symbols=tuple(f"s{i}" for i in range(9)),
                stale=True,
                truncated=True,
                similarity=None,
                start_line=98,
                end_line=103,
            ),
            _hit(
                2,
                path="docs/[x] :tada:.md",
                excerpt=f"{TRICKY}\n\n  \nend\x07\x08\x0b\x0c\r",
                symbols=("[red]a[/red]",),
                similarity=0.0,
            ),
            _hit(3, excerpt="y" * 300 + "   ", start_line=1, end_line=1000),
        ],
        pending_files=1,
        pending_chunks=3,
        expansion=StepStatus(TIMED_OUT, None, 1500.4),
        rerank=StepStatus(FAILED, 'the model said {"order": [1, 2]} [/x].', 20.0),
    ),
    "cancelled": _result(
        [_hit()], expansion=StepStatus(CANCELLED, "stop", 1.0), rerank=StepStatus(OFF)
    ),
}


def _through_rich(result, monkeypatch) -> str:
    with monkeypatch.context() as patch:
        patch.setattr(present, "_plain_lines", lambda result: None)
        stream = io.StringIO()
        present.print_results(result, stream)
    return stream.getvalue()


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_plain_text_equals_what_rich_writes_to_a_non_terminal(name, monkeypatch):
    stream = io.StringIO()
    present.print_results(RESULTS[name], stream)
    assert present._plain_lines(RESULTS[name]) is not None
    assert stream.getvalue() == _through_rich(RESULTS[name], monkeypatch)


def test_a_tab_is_left_to_rich(monkeypatch):
    result = _result([_hit(excerpt="a\tb\n\t\tc")])
    assert present._plain_lines(result) is None
    stream = io.StringIO()
    present.print_results(result, stream)
    assert stream.getvalue() == _through_rich(result, monkeypatch)
    assert "\t" not in stream.getvalue()  # rich expands tabs from the row's first column


@pytest.mark.parametrize("variable", ["FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"])
def test_a_variable_rich_reads_leaves_the_decision_to_rich(variable, monkeypatch):
    monkeypatch.setenv(variable, "1")
    assert present._may_colour(io.StringIO())


def test_a_terminal_gets_rich(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    assert present._may_colour(Terminal())
    assert not present._may_colour(io.StringIO())


def test_printing_to_a_pipe_does_not_import_rich():
    code = (
        "import io, sys\n"
        "from wherein.present import print_results\n"
        "from tests.test_present import RESULTS\n"
        "print_results(RESULTS['everything'], io.StringIO())\n"
        "print('rich' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False"]
