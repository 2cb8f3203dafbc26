"""Settings through `wherein config` and the files it reads: what is refused, and how it says so.

The trust rules themselves (who may set which key) are tests/test_workspace_trust.py's.
"""

from __future__ import annotations

import pytest

from tests.helpers import cli, write_tree
from tests.index.processes import assert_one_sentence
from wherein.config import config_set
from wherein.errors import ConfigError
from wherein.index.location import data_home

REPO = {"app/routing.py": "def add_route(path, handler):\n    pass\n"}


@pytest.fixture
def repo(tmp_path):
    return write_tree(tmp_path / "repo", REPO)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("search.nope", "3"),
        ("nosection", "1"),
        ("search.limit", "abc"),
        ("search.limit", "0"),
        ("embedding.provider", "telepathy"),
        ("expansion.enabled", "maybe"),
    ],
)
def test_config_set_of_an_unknown_key_or_bad_value_exits_2_naming_the_key(capsys, key, value):
    from wherein.config import user_config_path

    code, out, err = cli(capsys, "config", "set", key, value)
    assert code == 2 and out == ""
    assert f"'{key}'" in assert_one_sentence(err)
    assert not user_config_path().exists()


def test_config_set_then_get_round_trips(capsys):
    assert cli(capsys, "config", "set", "search.limit", "5")[0] == 0
    code, out, _ = cli(capsys, "config", "get", "search.limit")
    assert (code, out) == (0, "5\t(user)\n")


@pytest.mark.parametrize(
    "body",
    [b"[search\nlimit = 3\n", b"limit = 3\n", b'[search]\nlimit = "x"\n', b"\xff\xfe[search]\n"],
)
@pytest.mark.parametrize("command", [["search", "router"], ["index"], ["status"]])
def test_a_malformed_user_config_file_is_one_sentence_naming_it(capsys, repo, body, command):
    from wherein.config import user_config_path

    path = user_config_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(body)
    code, out, err = cli(capsys, *command, "--workspace", str(repo))
    assert code == 2 and out == ""
    assert str(path) in assert_one_sentence(err)
    assert not data_home().exists()


def test_a_bad_value_given_on_its_own_is_named_once_with_its_bound_as_written(tmp_path):
    """`config set` and `configure` give a value alone: the message does not place it "in the
    value for" the key it already names, and a bound reads as a number, not 1.09951e+12."""
    with pytest.raises(ConfigError) as caught:
        config_set("search.limit", "abc", tmp_path / "config.toml")
    assert str(caught.value) == "Bad value 'abc' for 'search.limit': expected a whole number."
    with pytest.raises(ConfigError, match=r"must be at most 1,099,511,627,776\.$"):
        config_set("walk.max_file_bytes", str(1 << 41), tmp_path / "config.toml")
