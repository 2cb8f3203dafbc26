"""One `[mcp_servers.wherein]` table in a TOML file: appended, updated, cut out again."""

from __future__ import annotations

import pytest
import tomlkit

from wherein.errors import ConfigError
from wherein.install.tomlfile import parse_toml_document

KEY = ("mcp_servers", "wherein")
TABLE = {"command": "/venv/bin/wherein", "args": ["serve"]}

ROUND_TRIPS = {
    "empty": "",
    "one key": 'model = "o3"\n',
    "no final newline": 'model = "o3"',
    "blank line at the end": 'model = "o3"\n\n',
    "other server, comments": (
        '# top\nmodel = "o3"\n\n[mcp_servers.docs]\ncommand = "x"\nargs = ["a"] # why\n'
    ),
    "explicit parent table": '[mcp_servers]\n\n[mcp_servers.docs]\ncommand="x"\n',
    "array of tables last": '[[profiles]]\nname = "a"\n',
    "dotted keys": 'mcp_servers.docs.command = "x"\n',
    "CRLF": '# c\r\nmodel = "o3"\r\n\r\n[tui]\r\nb = 1\r\n',
}


@pytest.mark.parametrize("text", ROUND_TRIPS.values(), ids=ROUND_TRIPS.keys())
def test_table_append_and_cut_round_trip(text):
    after = parse_toml_document(text, "c.toml").with_table(KEY, TABLE)
    data = tomlkit.parse(after).unwrap()
    assert data["mcp_servers"]["wherein"] == TABLE
    assert after.startswith(text.rstrip("\n"))  # nothing before the new table moved
    back = parse_toml_document(after, "c.toml").without_table(KEY)
    if text == 'model = "o3"':
        assert back == 'model = "o3"\n'  # the one newline install had to add stays
    else:
        assert back == text


def test_an_inline_parent_table_is_edited_through_tomlkit():
    text = 'mcp_servers = { docs = { command = "x" } }\n'
    after = parse_toml_document(text, "c.toml").with_table(KEY, TABLE)
    assert tomlkit.parse(after).unwrap()["mcp_servers"] == {
        "docs": {"command": "x"},
        "wherein": TABLE,
    }
    back = parse_toml_document(after, "c.toml").without_table(KEY)
    assert tomlkit.parse(back).unwrap() == {"mcp_servers": {"docs": {"command": "x"}}}


def test_an_existing_table_is_updated_in_place_keeping_other_keys_and_comments():
    text = '[mcp_servers.wherein]\ncommand = "/old" # moved\nstartup_timeout_sec = 30\n'
    after = parse_toml_document(text, "c.toml").with_table(KEY, TABLE)
    assert "startup_timeout_sec = 30" in after and "# moved" in after
    assert tomlkit.parse(after).unwrap()["mcp_servers"]["wherein"]["command"] == TABLE["command"]


def test_our_sub_tables_go_with_our_table_and_later_tables_stay():
    text = (
        'a = 1\n\n[mcp_servers.wherein]\ncommand = "x"\n\n'
        '[mcp_servers.wherein.env]\nK = "v"\n\n[tui]\nb = 2\n'
    )
    back = parse_toml_document(text, "c.toml").without_table(KEY)
    assert tomlkit.parse(back).unwrap() == {"a": 1, "tui": {"b": 2}}
    assert back == "a = 1\n\n[tui]\nb = 2\n"


def test_a_parent_that_is_not_a_table_is_refused():
    with pytest.raises(ConfigError, match="mcp_servers"):
        parse_toml_document('mcp_servers = "none"\n', "c.toml").with_table(KEY, TABLE)


def test_our_key_holding_something_other_than_a_table_is_refused_naming_it():
    text = '[mcp_servers]\nwherein = "notatable"\n'
    with pytest.raises(ConfigError, match=r"'mcp_servers\.wherein' in c\.toml is not a table"):
        parse_toml_document(text, "c.toml").with_table(KEY, TABLE)


def test_malformed_toml_is_refused_naming_the_file():
    with pytest.raises(ConfigError, match=r"/x/config.toml is not valid TOML"):
        parse_toml_document("[mcp_servers.docs\n", "/x/config.toml")


def test_a_file_of_many_dotted_keys_is_edited_as_text_and_never_handed_to_tomlkit():
    # tomlkit's time grows with the cube of a table's dotted keys; the text edit needs no
    # tomlkit, and the edit that does (a parent written inline) is refused, not minutes long.
    dotted = "".join(f"a.b{n} = 1\n" for n in range(5000))
    text = f"[tui]\n{dotted}"
    added = parse_toml_document(text, "c.toml").with_table(KEY, TABLE)
    assert added.startswith(text)
    assert parse_toml_document(added, "c.toml").get(KEY) == TABLE
    inline = f"mcp_servers = {{ other = {{ command = 'y' }} }}\n[tui]\n{dotted}"
    with pytest.raises(ConfigError, match=r"c\.toml has 5000 dotted keys"):
        parse_toml_document(inline, "c.toml").with_table(KEY, TABLE)


def test_a_file_nested_past_the_recursion_limit_is_refused_naming_the_file():
    with pytest.raises(ConfigError, match=r"c\.toml is not valid TOML \(arrays or tables nested"):
        parse_toml_document("a = " + "[" * 5000 + "]" * 5000 + "\n", "c.toml")
