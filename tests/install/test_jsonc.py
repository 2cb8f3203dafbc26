"""Splicing one member into JSON / JSONC text: everything else keeps its bytes."""

from __future__ import annotations

import json

import pytest

from wherein.errors import ConfigError
from wherein.install.jsonc import parse_json_document

ENTRY = {"command": "/venv/bin/wherein", "args": ["serve"]}
KEY = ("mcpServers", "wherein")

ROUND_TRIPS = {
    "empty object": "{}\n",
    "other key": '{\n  "theme": "dark"\n}\n',
    "other server": '{\n  "mcpServers": {\n    "x": {"command": "x"}\n  }\n}\n',
    "comments everywhere": (
        '// header\n{\n  "theme": "dark", // mine\n  /* block */\n  "a": [1, 2,],\n}\n'
    ),
    "trailing commas": '{\n  "mcpServers": {\n    "x": {},\n  },\n}\n',
    "one line": '{"a":1}',
    "one line, trailing comma": '{"a": 1,}',
    "tabs": '{\n\t"a": 1\n}',
    "comment-only container": '{\n  "mcpServers": {\n    // none yet\n  }\n}\n',
    "four spaces, no final newline": '{\n    "a": {\n        "b": true\n    }\n}',
    "CRLF": '{\r\n  "theme": "dark", // mine\r\n  "vim": true\r\n}\r\n',
    "byte-order mark": '\ufeff{\n  "a": 1\n}\n',
    "escapes and unicode": '{\n  "name": "caf\\u00e9 \\"quoted\\" é",\n  "url": "http://x/*y*/"\n}\n',
}


def install_then_remove(text: str) -> tuple[str, str]:
    document = parse_json_document(text, "f", allow_comments=True)
    created = document.get(KEY[:1]) is None
    after = document.with_member(KEY, ENTRY)
    back = parse_json_document(after, "f", allow_comments=True).without_member(KEY)
    if created:
        pruned = parse_json_document(back, "f", allow_comments=True)
        if pruned.is_empty_object(KEY[:1]):
            back = pruned.without_member(KEY[:1])
    return after, back


@pytest.mark.parametrize("text", ROUND_TRIPS.values(), ids=ROUND_TRIPS.keys())
def test_member_splice_round_trips_byte_for_byte(text):
    after, back = install_then_remove(text)
    assert parse_json_document(after, "f", allow_comments=True).get(KEY) == ENTRY
    assert back == text


@pytest.mark.parametrize("text", ROUND_TRIPS.values(), ids=ROUND_TRIPS.keys())
def test_only_the_new_member_is_added(text):
    before = parse_json_document(text, "f", allow_comments=True).data
    after, _ = install_then_remove(text)
    data = parse_json_document(after, "f", allow_comments=True).data
    data["mcpServers"].pop("wherein")
    if "mcpServers" not in before:
        del data["mcpServers"]
    assert data == before


def test_comments_and_their_places_survive():
    text = '{\n  "theme": "dark", // mine\n  /* block */\n  "vim": true\n}\n'
    after, _ = install_then_remove(text)
    assert after.startswith('{\n  "theme": "dark", // mine\n  /* block */\n  "vim": true,\n')


def test_new_member_follows_the_file_indentation():
    after, _ = install_then_remove('{\n    "a": 1\n}\n')
    assert '\n    "mcpServers": {\n        "wherein": {\n            "command"' in after
    assert '"args": ["serve"]' in after  # a list of plain values stays on one line


def test_replacing_a_member_keeps_its_neighbours():
    text = '{\n  "mcpServers": {\n    "wherein": {"command": "old"}, // ours\n    "b": 1\n  }\n}\n'
    document = parse_json_document(text, "f", allow_comments=True)
    after = document.with_member(KEY, ENTRY)
    assert after.endswith(', // ours\n    "b": 1\n  }\n}\n')
    assert json.loads(after.replace(" // ours", ""))["mcpServers"]["wherein"] == ENTRY


def test_a_duplicate_key_is_edited_where_json_parse_reads_it():
    text = '{"a": {"wherein": 1}, "a": {}}'
    document = parse_json_document(text, "f", allow_comments=False)
    assert document.get(("a",)) == {}
    assert json.loads(document.with_member(("a", "wherein"), 2)) == {"a": {"wherein": 2}}


def test_a_key_holding_a_non_object_is_refused():
    document = parse_json_document('{"mcpServers": []}', "f.json", allow_comments=False)
    with pytest.raises(ConfigError, match="'mcpServers' in f.json is not an object"):
        document.with_member(KEY, ENTRY)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('{"a": 1', "end of the file"),
        ('{"a": "open', "unterminated string"),
        ('{"a": 1 "b": 2}', "missing comma"),
        ('{"a": tru}', "not valid JSON"),
        ("[1, 2]", "does not hold a JSON object"),
        ('{"a": 1} {}', "text after the end"),
        ('{"a": 1 /* open', "unterminated string or comment"),
        ('{"a": 1}\n', None),
    ],
)
def test_malformed_text_is_refused_with_the_file_and_line(text, fragment):
    if fragment is None:
        assert parse_json_document(text, "f.json", allow_comments=False).data == {"a": 1}
        return
    with pytest.raises(ConfigError, match=fragment) as caught:
        parse_json_document(text, "/x/f.json", allow_comments=True)
    assert "/x/f.json" in str(caught.value) and "left untouched" in str(caught.value)


@pytest.mark.parametrize(
    ("text", "data"),
    [('{\n  // c\n  "a": 1\n}', {"a": 1}), ('{"a": 1,}', {"a": 1}), ('{"a": [1,]}', {"a": [1]})],
)
def test_comments_are_refused_where_the_agent_reads_plain_json(text, data):
    with pytest.raises(ConfigError, match="line"):
        parse_json_document(text, "f.json", allow_comments=False)
    assert parse_json_document(text, "f.json", allow_comments=True).data == data


def test_a_comment_marker_inside_a_string_is_text():
    document = parse_json_document('{"url": "http://x//y", "b": "/* no */"}', "f", False)
    assert document.data == {"url": "http://x//y", "b": "/* no */"}
    assert not document.has_comments


def test_lines_added_to_a_crlf_file_end_in_crlf():
    after, _ = install_then_remove('{\r\n  "a": 1\r\n}\r\n')
    assert "\n" not in after.replace("\r\n", "")
