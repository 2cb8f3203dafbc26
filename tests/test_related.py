"""`wherein related FILE[:LINE]` through the real CLI: the origin, what is left out, the errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import cli, write_tree
from tests.index.processes import assert_one_sentence
from wherein.cli import main


def _function(name: str, words: str, lines: int = 18) -> str:
    body = "".join(f"    part_{i} = {words}  # {i}\n" for i in range(lines))
    return f"def {name}(value):\n{body}    return value\n\n\n"


AREA = "radius * radius * math.pi area of the shape"
REPO = {
    "shapes/area.py": _function("circle_area", AREA)
    + _function("square_area", "width * width area of the shape")
    + _function("triangle_area", "base * height / 2 area of the shape"),
    "shapes/perimeter.py": _function("circle_perimeter", "2 * radius * math.pi around the shape"),
    "net/http.py": _function("send_request", "socket.connect(host, port) headers body"),
    "net/retry.py": _function("retry_with_backoff", "sleep(2 ** attempt) after a failure"),
    "docs/shapes.md": "# Shapes\n\nThe area of a circle is radius * radius * math.pi.\n",
}


@pytest.fixture
def repo(tmp_path, monkeypatch, capsys) -> Path:
    monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "static")
    root = write_tree(tmp_path / "repo", REPO).resolve()
    assert main(["index", "--workspace", str(root)]) == 0
    capsys.readouterr()
    return root


def related_json(capsys, repo: Path, place: str, *args: str) -> dict:
    code, out, err = cli(capsys, "related", place, "--json", "--workspace", str(repo), *args)
    assert code == 0, err
    return json.loads(out)


def test_related_ranks_the_chunks_like_the_one_at_the_line(capsys, repo):
    payload = related_json(capsys, repo, "shapes/area.py:3")
    origin = payload["origin"]
    assert origin["path"] == "shapes/area.py" and origin["symbols"] == ["circle_area"]
    assert origin["start_line"] <= 3 <= origin["end_line"]
    results = payload["results"]
    assert results and all(r["similarity"] is not None for r in results)
    for result in results:  # neither the origin nor anything overlapping it in its file
        assert not (
            result["path"] == origin["path"]
            and result["start_line"] <= origin["end_line"]
            and origin["start_line"] <= result["end_line"]
        )
    top = {tuple(r["symbols"]) for r in results[:3]}
    assert top & {("square_area",), ("triangle_area",), ("circle_perimeter",)}
    assert payload["query"] == "shapes/area.py:3"
    assert set(payload) >= {"results", "pending", "warnings", "tiers", "scope"}


def test_related_without_a_line_compares_the_whole_file_and_leaves_it_out(capsys, repo):
    payload = related_json(capsys, repo, "shapes/area.py")
    assert payload["origin"]["start_line"] == 1 and payload["origin"]["symbols"] == []
    paths = [r["path"] for r in payload["results"]]
    assert paths and "shapes/area.py" not in paths
    assert paths[0] in ("shapes/perimeter.py", "docs/shapes.md")


@pytest.mark.parametrize(
    "place", ["./shapes/area.py:3", "shapes/area.py:3-12", "{repo}/shapes/area.py:3"]
)
def test_a_place_may_be_written_as_results_show_it_or_as_a_path(capsys, repo, place):
    payload = related_json(capsys, repo, place.replace("{repo}", str(repo)))
    assert payload["origin"]["symbols"] == ["circle_area"]


def test_a_file_whose_name_holds_a_control_character_is_named_as_results_show_it(capsys, repo):
    (repo / "net" / "two\nlines.py").write_text(_function("parse_lines", "split lines"))
    assert cli(capsys, "index", "--workspace", str(repo))[0] == 0
    payload = related_json(capsys, repo, "net/two\\x0alines.py:2")
    assert payload["origin"]["path"] == "net/two\nlines.py"  # JSON keeps the name exact
    assert payload["origin"]["symbols"] == ["parse_lines"]


def test_a_place_relative_to_the_current_folder(capsys, repo, monkeypatch):
    monkeypatch.chdir(repo / "shapes")
    payload = related_json(capsys, repo, "area.py:25")
    assert payload["origin"]["symbols"] == ["square_area"]


def test_filters_and_output_forms_apply_to_related(capsys, repo):
    narrowed = related_json(capsys, repo, "shapes/area.py:3", "--exclude", "shapes/")
    assert narrowed["results"]
    assert not any(r["path"].startswith("shapes/") for r in narrowed["results"])
    only_md = related_json(capsys, repo, "shapes/area.py:3", "--lang", "md")
    assert [r["path"] for r in only_md["results"]] == ["docs/shapes.md"]
    ranked = [r["path"] for r in related_json(capsys, repo, "shapes/area.py:3")["results"]]
    code, out, err = cli(capsys, "related", "shapes/area.py:3", "-l", "--workspace", str(repo))
    assert code == 0, err
    assert out.splitlines() == list(dict.fromkeys(ranked))


def test_text_output_names_the_origin_first(capsys, repo):
    code, out, err = cli(
        capsys, "related", "shapes/area.py:3", "--lines", "2", "--workspace", str(repo)
    )
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("Like shapes/area.py:1-") and lines[0].endswith("circle_area:")
    assert "similarity" in lines[1]


@pytest.mark.parametrize(
    ("place", "named"),
    [
        ("nope.py:1", "'nope.py' is not a file in the index"),
        ("shapes/area.py:9999", "no line 9999"),
        ("shapes/area.py:0", "lines start at 1"),
        ("shapes/area.py:" + "9" * 5000, "names a line past the end of any file"),
        ("  ", "Name a place"),
    ],
)
def test_a_bad_place_exits_2_with_one_sentence(capsys, repo, place, named):
    code, out, err = cli(capsys, "related", place, "--workspace", str(repo))
    assert code == 2 and out == ""
    assert named in assert_one_sentence(err)


def test_a_file_indexed_without_text_is_refused(capsys, repo):
    (repo / "blob.bin").write_bytes(b"\x00\x01binary")
    assert cli(capsys, "index", "--workspace", str(repo))[0] == 0
    code, _, err = cli(capsys, "related", "blob.bin", "--workspace", str(repo))
    assert code == 2
    assert "indexed without its text (binary)" in assert_one_sentence(err)
