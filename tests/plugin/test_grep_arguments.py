"""Over MCP, through the SDK client: the filters, exact text, and action=related."""

from __future__ import annotations

import pytest

from tests.helpers import write_tree
from tests.plugin.conftest import run_session


def _function(name: str, words: str, lines: int = 18) -> str:
    body = "".join(f"    part_{i} = {words}  # {i}\n" for i in range(lines))
    return f"def {name}(value):\n{body}    return value\n\n\n"


REPO = {
    "shapes/area.py": _function("circle_area", "radius * radius * math.pi area")
    + _function("square_area", "width * width area"),
    "shapes/perimeter.py": _function("circle_perimeter", "2 * radius * math.pi around"),
    "web/client.ts": "export function retryFetch(url: string) {\n  return fetch(url);\n}\n",
    "tests/test_area.py": "def test_circle_area():\n    assert circle_area(1) == math.pi\n",
}


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "static")
    return write_tree(tmp_path / "repo", REPO).resolve()


def _paths(result) -> list[str]:
    return [path for path, _, _ in result["results"]]


def test_filters_narrow_a_search(repo):
    async def steps(rc):
        return (
            await rc.recall(query="area of a circle", lang=["ts"]),
            await rc.recall(query="area of a circle", glob=["shapes/"], exclude=["perimeter.py"]),
            await rc.recall(query="area of a circle", exclude=["shapes/", "*.ts"]),
        )

    only_ts, only_area, no_shapes = run_session(repo, steps)
    assert _paths(only_ts) == ["web/client.ts"]
    assert set(_paths(only_area)) == {"shapes/area.py"}
    assert _paths(no_shapes) == ["tests/test_area.py"]


def test_exact_text_ranks_only_the_chunks_holding_it(repo):
    async def steps(rc):
        return (
            await rc.recall(exact="circle_area(1)"),
            await rc.recall(query="area", exact="math.pi", lang=["python"]),
        )

    alone, with_query = run_session(repo, steps)
    assert alone["ok"] and _paths(alone) == ["tests/test_area.py"]
    assert alone["text"].startswith("1 result for 'circle_area(1)'.")
    assert "| " in alone["text"] and "circle_area(1)" in alone["text"]
    assert with_query["ok"] and set(_paths(with_query)) == {
        "shapes/area.py",
        "shapes/perimeter.py",
        "tests/test_area.py",
    }


def test_related_answers_with_the_origin_and_leaves_it_out(repo):
    async def steps(rc):  # the first call of the session: it builds the index itself
        return await rc.recall(action="related", query="shapes/area.py:3")

    result = run_session(repo, steps)
    assert result["ok"] and result["action"] == "related"
    headline = result["text"].split("\n", 1)[0]
    count = len(result["results"])
    # The origin's place, not its names: they are the repository's text, kept in the fence.
    assert headline == f"{count} results like shapes/area.py:1-20."
    assert result["results"] and all(
        (path, start) != ("shapes/area.py", 1) for path, start, _ in result["results"]
    )
    assert "<repository-data " in result["text"]


@pytest.mark.parametrize(
    ("arguments", "needle"),
    [
        ({"query": "x", "lang": ["cobol"]}, "Argument lang 'cobol'"),
        ({"query": "x", "glob": ["!"]}, "Argument glob '!'"),
        ({"query": "x", "lang": "python"}, "lang"),
        ({"query": "x", "exact": ""}, "Argument exact is empty"),
        ({"exact": "x" * 1001}, "exact"),
        ({"action": "related"}, "for action=related"),
        ({"action": "related", "query": "nope.py:1"}, "'nope.py' is not a file in the index"),
        ({"action": "related", "query": "shapes/area.py:1", "exact": "x"}, "exact does not"),
    ],
)
def test_bad_filter_or_related_arguments_are_error_results(repo, arguments, needle):
    async def steps(rc):
        return await rc.recall(**arguments)

    result = run_session(repo, steps)
    assert result["ok"] is False
    assert needle in result["error"]["message"]
    assert "results" not in result
