"""scripts/bench_instructions.py: its sample, its steps (run here without valgrind), its count."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.helpers import write_tree

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
FILES = {
    f"pkg/mod{n}.py": f"def handler_{n}(request):\n    return request.retry({n})\n\n\n"
    f"class Widget{n}:\n    def draw(self):\n        return {n}\n"
    for n in range(6)
}


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(SCRIPTS))  # it imports measure for its default corpus
    spec = importlib.util.spec_from_file_location(
        "bench_instructions", SCRIPTS / "bench_instructions.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_count_is_read_from_callgrinds_last_line(bench):
    stderr = "==41== Callgrind, a call-graph generating cache profiler\n==41== Collected : 1234\n"
    assert bench.collected(stderr + "==41==\n==41== I   refs:      1,234\n") == 1234
    with pytest.raises(ValueError, match="no callgrind count"):
        bench.collected("valgrind: command not found")


def test_the_sample_is_every_nth_file_of_the_walk(bench, tmp_path):
    corpus = write_tree(tmp_path / "corpus", FILES)
    every = bench.sample(corpus, 1)
    assert len(every) == 6
    assert [e.rel for e in bench.sample(corpus, 4)] == [every[0].rel, every[4].rel]


def test_each_step_handles_the_samples_chunks_and_a_baseline_none(bench, tmp_path):
    corpus = write_tree(tmp_path / "corpus", FILES)
    entries = bench.sample(corpus, 2)
    counts = {step: bench.run_step(step, entries) for step in bench.STEPS}
    assert len(set(counts.values())) == 1 and counts["prepare"] >= 3  # a chunk per file or more
    assert all(bench.run_step(step, entries, do=False) == 0 for step in bench.STEPS)


def test_it_refuses_to_start_without_a_revision_or_with_a_bad_sample(bench, capsys):
    with pytest.raises(SystemExit):
        bench.main(["--corpus", "."])
    assert "--old is required" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bench.main(["--old", "HEAD", "--every", "0"])
    assert "--every must be 1 or more" in capsys.readouterr().err
