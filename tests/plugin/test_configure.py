"""configure: known keys, validated values, secrets never returned, nothing that widens egress."""

from __future__ import annotations

import json

import pytest
import tomlkit

from tests.plugin.conftest import run_session
from wherein.config import config_set, user_config_path, workspace_config_path

SECRET = "sk-test-5f1c9e0a7b"


def _user_file() -> dict:
    path = user_config_path()
    return tomlkit.parse(path.read_text()).unwrap() if path.exists() else {}


def test_configure_round_trip_with_a_secret_never_returns_it(repo):
    config_set("embedding.api_key", SECRET, user_config_path())  # the user's own step

    async def steps(rc):
        wrote = await rc.recall(action="configure", config={"set": {"search.limit": 2}})
        read = await rc.recall(action="configure")
        blank = await rc.recall(action="configure", config={"set": {"embedding.api_key": "  "}})
        null = await rc.recall(action="configure", config={"set": {"embedding.api_key": None}})
        search = await rc.recall(query="handler")
        status = await rc.recall(action="status")
        return wrote, read, blank, null, search, status

    wrote, read, blank, null, search, status = run_session(repo, steps)
    changed = {s["key"]: s for s in wrote["config"]["changed"]}
    assert changed["search.limit"] == {"key": "search.limit", "value": "2", "source": "user"}
    settings = {s["key"]: s["value"] for s in read["config"]["settings"]}
    assert settings["embedding.api_key"] == "(set)"
    assert settings["search.limit"] == "2"
    for result in (blank, null):
        assert result["ok"] and result["config"]["unchanged"] == ["embedding.api_key"]
        assert result["config"]["changed"] == []
    assert _user_file()["embedding"]["api_key"] == SECRET
    assert _user_file()["search"]["limit"] == 2
    assert len(search["results"]) == 2
    assert status["embedding"]["api_key_set"] is True
    for result in (wrote, read, blank, null, search, status):
        assert SECRET not in json.dumps(result)


def test_configure_refuses_to_set_a_key(repo):
    async def steps(rc):
        return await rc.recall(action="configure", config={"set": {"embedding.api_key": SECRET}})

    result = run_session(repo, steps)
    assert result["ok"] is False
    assert "may not set 'embedding.api_key'" in result["error"]["message"]
    assert SECRET not in json.dumps(result)
    assert not user_config_path().exists()


@pytest.mark.parametrize(
    ("key", "value", "needle"),
    [
        ("embedding.allow_remote", True, "may not set 'embedding.allow_remote'"),
        ("embedding.api_base", "http://198.51.100.7:11434", "may not set 'embedding.api_base'"),
        ("expansion.api_base", "http://example.com", "may not set 'expansion.api_base'"),
        ("rerank.api_base", "http://example.com", "may not set 'rerank.api_base'"),
        ("scope.source_roots", ["home=/root"], "may not set 'scope.source_roots'"),
        ("rerank.enabled", True, "may not turn on 'rerank.enabled'"),
        ("expansion.enabled", True, "may not turn on 'expansion.enabled'"),
        ("embedding.provider", "openai", "only in-process providers"),
    ],
)
def test_configure_refuses_keys_that_widen_where_code_goes(repo, key, value, needle):
    async def steps(rc):
        return await rc.recall(action="configure", config={"set": {key: value}})

    result = run_session(repo, steps)
    assert result["ok"] is False
    assert result["error"]["kind"] == "ConfigError"
    assert needle in result["error"]["message"]
    assert not user_config_path().exists()


def test_refusal_writes_nothing_even_beside_an_allowed_key(repo):
    async def steps(rc):
        return await rc.recall(
            action="configure",
            config={"set": {"search.limit": 3, "embedding.api_base": "http://10.0.0.1"}},
        )

    result = run_session(repo, steps)
    assert result["ok"] is False
    assert not user_config_path().exists()


@pytest.mark.parametrize(
    ("setting", "needle"),
    [
        ({"search.limit": 0}, "config.set.search.limit"),
        ({"search.limit": "many"}, "config.set.search.limit"),
        ({"no.such_key": 1}, "no.such_key"),
        ({"scope.focus": "../.."}, "outside the workspace"),
    ],
)
def test_configure_validates_keys_and_values(repo, setting, needle):
    async def steps(rc):
        return await rc.recall(action="configure", config={"set": setting})

    result = run_session(repo, steps)
    assert result["ok"] is False
    assert needle in result["error"]["message"]
    assert not user_config_path().exists()


def test_configure_may_narrow_and_write_the_workspace_file(repo):
    async def steps(rc):
        return await rc.recall(
            action="configure",
            config={"set": {"rerank.enabled": False, "scope.focus": "app"}, "file": "workspace"},
        )

    result = run_session(repo, steps)
    assert result["ok"], result["text"]
    assert result["config"]["path"] == str(workspace_config_path(repo))
    written = tomlkit.parse(workspace_config_path(repo).read_text()).unwrap()
    assert written == {"rerank": {"enabled": False}, "scope": {"focus": "app"}}
    assert {s["source"] for s in result["config"]["changed"]} == {"workspace"}
