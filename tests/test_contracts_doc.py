"""docs/contracts.md and the code say the same: commands, flags, settings, JSON fields, recall.

Cheap checks that fail when the code grows something the page does not mention (a command, a
flag, a setting, a `--json` field, a `recall` argument or result field) or when the page keeps
something the code dropped. They do not check every sentence: a reviewer does that.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from tests.helpers import write_tree
from tests.index.processes import run_wherein
from wherein import errors
from wherein.cli import main
from wherein.cli.parser import build_parser
from wherein.config import KEYS, Trust
from wherein.plugin.schema import ACTIONS, input_schema, result_schema

DOC = (Path(__file__).resolve().parent.parent / "docs" / "contracts.md").read_text()
# What the settings table's last column says for each kind of trust.
TRUST_WORDS = {
    Trust.ANY: "set it",
    Trust.LOWER: "lower it",
    Trust.TURN_OFF: "turn it off",
    Trust.IN_PROCESS: "choose `minilm` or `static`",
    Trust.INSIDE: "workspace file: folders inside the workspace; agent: nothing",
    Trust.USER: "nothing",
    Trust.USER_FILE: "nothing (only your config file, not the environment)",
}


def _section(title: str) -> str:
    """The text under the `## title` heading, up to the next heading of that level."""
    start = DOC.index(f"\n## {title}\n")
    end = DOC.find("\n## ", start + 1)
    return DOC[start : end if end != -1 else len(DOC)]


def _table_rows(text: str) -> list[list[str]]:
    return [
        [cell.strip() for cell in line.strip("|").split(" | ")]
        for line in text.splitlines()
        if line.startswith("| ") and not line.startswith("|---")
    ]


def _default(value: Any) -> str:
    """A default as the settings table writes it."""
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, float) and value.is_integer():
        return f"`{int(value)}`"
    if isinstance(value, str):
        return f'`"{value}"`'
    return f"`{json.dumps(value)}`"


def test_every_setting_is_in_the_table_with_its_default_and_who_may_set_it():
    rows = {row[0].strip("`"): row for row in _table_rows(_section("Settings")) if len(row) == 4}
    rows.pop("key")
    assert set(rows) == set(KEYS), "docs/contracts.md 'Settings' and wherein.config.KEYS differ"
    for key, spec in KEYS.items():
        _, default, _, who = rows[key]
        assert default == _default(spec.default), key
        assert who == TRUST_WORDS[spec.trust], key


def _leaf_commands(
    parser: argparse.ArgumentParser, words: tuple[str, ...] = ("wherein",)
) -> list[tuple[str, list[str]]]:
    """Each runnable command and its long flags, from the parser itself."""
    found, flags = [], []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += _leaf_commands(sub, (*words, name))
        else:
            flags += [flag for flag in action.option_strings if flag.startswith("--")]
    if not any(isinstance(a, argparse._SubParsersAction) for a in parser._actions):
        found.append((" ".join(words), [f for f in flags if f != "--help"]))
    return found


def test_every_command_and_flag_is_in_the_commands_table():
    rows = _table_rows(_section("Commands"))
    missing = []
    for command, flags in _leaf_commands(build_parser()):
        row = [r for r in rows if re.search(rf"`{re.escape(command)}( [A-Z\[]|`)", r[0])]
        if len(row) != 1:
            missing.append(command)
            continue
        missing += [f"{command} {flag}" for flag in flags if f"`{flag}" not in row[0][1]]
    assert missing == [], f"not in docs/contracts.md 'Commands': {missing}"


def test_every_exit_code_an_error_can_have_is_in_the_table():
    documented = {int(row[0]) for row in _table_rows(_section("Exit codes")) if row[0].isdigit()}
    raised = {
        getattr(errors, name).exit_code
        for name in errors.__all__
        if isinstance(getattr(errors, name), type)
    }
    assert raised | {0, 130} == documented


def _keys(value: Any) -> set[str]:
    """Every object key in a JSON value, at any depth, except under a free-form mapping."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def test_search_and_status_json_fields_are_described(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "static")
    repo = write_tree(tmp_path / "repo", {"app.py": "def retry(call):\n    return call()\n"})
    assert main(["search", "retry", "--workspace", str(repo), "--json"]) == 0
    searched = json.loads(capsys.readouterr().out)
    assert main(["status", "--workspace", str(repo), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    tiers = set(searched["tiers"])  # tier names are keys, and documented as names
    for title, value, ignored in (
        ("`wherein search --json`", searched, tiers),
        ("`wherein status --json`", status, set()),
    ):
        text = _section(title)
        named = [k for k in _keys(value) - ignored if f'"{k}"' in text or f"`{k}`" in text]
        undocumented = sorted(_keys(value) - ignored - set(named))
        assert undocumented == [], f"not in docs/contracts.md {title}: {undocumented}"


def _schema_names(schema: Any) -> set[str]:
    """Every property name a JSON Schema declares, at any depth."""
    if isinstance(schema, dict):
        names = set(schema.get("properties", {}))
        return names | {n for v in schema.values() for n in _schema_names(v)}
    if isinstance(schema, list):
        return {n for v in schema for n in _schema_names(v)}
    return set()


def test_recall_arguments_actions_and_result_fields_are_described():
    text = _section("The MCP tool `recall`")
    arguments = {name.strip("`") for row in _table_rows(text) for name in row[0].split(", ")}
    assert set(input_schema()["properties"]) <= arguments
    assert all(f"`{action}`" in text for action in ACTIONS)
    fields = _schema_names(result_schema())
    undocumented = sorted(n for n in fields if f'"{n}"' not in text and f"`{n}`" not in text)
    assert undocumented == [], f"not in docs/contracts.md 'The MCP tool recall': {undocumented}"


def test_help_is_written_for_the_person_running_it():
    done = run_wherein("--help")
    shown = done.stdout.decode()
    assert done.returncode == 0
    assert shown.startswith("usage: wherein ")
    assert "Find where something is handled in a code repository" in shown
    assert "Exit codes: 0 success, 2 usage error, 1 other failure" in shown
    assert "docs/contracts.md" in shown
    for internal in ("_clean_arguments", "untrusted.", "Results to stdout, the rest"):
        assert internal not in shown
