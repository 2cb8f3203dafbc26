"""scripts/bench_eval_mining.py: the scripted history mines to the questions it scripted."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _bench():
    path = REPO / "scripts/bench_eval_mining.py"
    spec = importlib.util.spec_from_file_location("bench_eval_mining", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_scripted_history_with_renames_mines_to_its_script(tmp_path, capsys):
    # 2,000 commits cross two renames (every 997th commit), so older edits are followed.
    assert _bench().main(["--history", "2000", "--dir", str(tmp_path)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["considered"] == 2000
    # The initial commit is a 50-file "sweep"; the rename at 1994 takes a docs commit's place.
    assert result["dropped"] == {"release": 200, "docs": 199, "tests": 200, "too_many": 201}
    assert result["kept"] == 1200


def test_commits_bounds_a_long_history(tmp_path, capsys):
    assert _bench().main(["--history", "500", "--commits", "50", "--dir", str(tmp_path)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["considered"], result["kept"]) == (50, 30)
