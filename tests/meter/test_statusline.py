"""`wherein statusline` as Claude Code runs it: JSON on stdin, one line on stdout, exit 0.

Prices per million tokens: claude-sonnet-4-5 3 in, 3.75 5-minute write, 6 1-hour write,
0.3 read, 15 out; claude-haiku-4-5 1 in, 5 out.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.meter.hostile import REPO
from wherein.cli import main
from wherein.meter import statusline

SONNET = "claude-sonnet-4-5-20250929"
HAIKU = "claude-haiku-4-5-20251001"
CHILD = "import sys; from wherein.cli import main; sys.exit(main(sys.argv[1:]))"
# r1 (two streamed copies, the second fuller): 1000 in, 100,000 written for 1 hour, 15,000
#   out = 3000 + 600,000 + 225,000 = 828,000 micro-dollars
# r2 (with a recall tool_use): 500 in, 20,000 written for 5 minutes, 100,000 read, 5,000 out
#   = 1500 + 75,000 + 30,000 + 75,000 = 181,500
# the subagent's: 10,000 in, 2,000 out on haiku = 10,000 + 10,000 = 20,000
# session so far: 1,029,500 micro-dollars = $1.03
# Recall rows: 3 searches, each 4,000 chars returned of 156,000: 39x, (468,000 - 12,000) / 4
#   = 114,000 tokens kept out.
LINE = "Recall 3 · 39x · ~114k tokens kept out (est.) · $1.03 this session"


def _usage(inp, out, write=0, read=0, one_hour=0):
    usage = {
        "input_tokens": inp,
        "cache_creation_input_tokens": write,
        "cache_read_input_tokens": read,
        "output_tokens": out,
    }
    if one_hour:
        usage["cache_creation"] = {
            "ephemeral_5m_input_tokens": write - one_hour,
            "ephemeral_1h_input_tokens": one_hour,
        }
    return usage


def _response(session, n, usage, *, model=SONNET, content=None, request=True, when=None):
    line = {
        "type": "assistant",
        "sessionId": session,
        "timestamp": when or f"2026-11-02T10:00:{n:02d}Z",
        "message": {
            "id": f"msg_{n}",
            "model": model,
            "content": content or [{"type": "text", "text": "ok"}],
            "usage": usage,
        },
    }
    if request:
        line["requestId"] = f"req_{n}"
    return line


def _append(path: Path, lines: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        for line in lines:
            handle.write((line if isinstance(line, str) else json.dumps(line)) + "\n")


@pytest.fixture
def session(tmp_path: Path) -> dict:
    """Session s1's transcript, its subagent's, and wherein's usage rows."""
    transcript = tmp_path / "home" / ".claude" / "projects" / "-home-me-app" / "s1.jsonl"
    recall = [
        {
            "type": "tool_use",
            "id": "toolu_1",
            "name": "mcp__wherein__recall",
            "input": {"query": "where are retries handled"},
        }
    ]
    _append(
        transcript,
        [
            {"type": "user", "sessionId": "s1", "message": {"role": "user", "content": "fix it"}},
            _response("s1", 1, _usage(1000, 1, write=100_000, one_hour=100_000)),
            _response("s1", 1, _usage(1000, 15_000, write=100_000, one_hour=100_000)),
            _response("s1", 2, _usage(500, 5000, write=20_000, read=100_000), content=recall),
            _response("s0", 9, _usage(10**6, 10**6)),  # copied from the session this resumed
        ],
    )
    _append(
        transcript.with_suffix("") / "subagents" / "agent-1.jsonl",
        [
            _response("s1", 3, _usage(10_000, 2000), model=HAIKU),
        ],
    )

    def row(session_id, action, returned, source):
        return {
            "time": "2026-11-02T10:00:30+00:00",
            "session": session_id,
            "workspace": "/home/me/app",
            "action": action,
            "results": 3,
            "returned_chars": returned,
            "source_chars": source,
            "paths_hash": "",
        }

    ledger = tmp_path / "wherein-home" / "usage.jsonl"
    _append(ledger, [row("s2", "search", 100, 900_000)])
    _append(ledger, [row("s1", "search", 4000, 156_000) for _ in range(3)])
    _append(ledger, [row("s1", "status", 0, 0), row("s10", "search", 1, 10**6)])
    _append(ledger, ['{"time": "2026-11-02T10:00:31+00:00", "session": "s1", "act'])
    return {
        "session_id": "s1",
        "transcript_path": str(transcript),
        "cwd": "/home/me/app",
        "workspace": {"current_dir": "/home/me/app", "project_dir": "/home/me/app"},
        "model": {"id": SONNET, "display_name": "Sonnet 4.5"},
        "version": "2.1.200",
        "cost": {"total_cost_usd": 9.99},
    }


def _run(stdin: bytes | None, *, encoding: str = "utf-8", keep_open: bool = False):
    """`wherein statusline` in a child process, as Claude Code starts it."""
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONIOENCODING=encoding)
    if keep_open:  # a pipe its writer never closes
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, "statusline"],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        child.stdin.write(stdin or b"")
        child.stdin.flush()
        out, err = _wait(child)
        return subprocess.CompletedProcess(child.args, child.returncode, out, err)
    return subprocess.run(
        [sys.executable, "-c", CHILD, "statusline"],
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )


def _wait(child: subprocess.Popen) -> tuple[bytes, bytes]:
    with child.stdout, child.stderr:  # the child ends on its own; stdin stays open all along
        out, err = child.stdout.read(), child.stderr.read()
    child.wait(timeout=60)
    child.stdin.close()
    return out, err


def _line(result) -> str:
    assert result.returncode == 0, result.stderr
    text = result.stdout.decode("utf-8")
    assert text.endswith("\n") and text.count("\n") == 1
    return text[:-1]


def test_the_line_shows_the_sessions_recall_figures_and_cost(session):
    assert _line(_run(json.dumps(session).encode())) == LINE


def test_a_refresh_reads_only_what_the_transcript_gained(session, tmp_path):
    stdin = json.dumps(session).encode()
    assert _line(_run(stdin)) == LINE
    (state,) = (tmp_path / "wherein-home" / "statusline").iterdir()
    recorded = json.loads(state.read_text())
    assert recorded["session"] == "s1"
    transcript = Path(session["transcript_path"])
    assert recorded["files"][str(transcript)][1] == transcript.stat().st_size
    # r4 arrives in two refreshes: a placeholder copy, then the full one (100 in, 1000 out
    # = 300 + 15,000 = 15,300): $1.0295 + $0.0153 = $1.0448.
    _append(transcript, [_response("s1", 4, _usage(100, 1))])
    assert _line(_run(stdin)).endswith("· $1.03 this session")  # 300 + 15 = $1.0298
    _append(transcript, [_response("s1", 4, _usage(100, 1000))])
    assert _line(_run(stdin)) == LINE.replace("$1.03", "$1.04")


def test_a_line_nested_deeper_than_python_recurses_is_passed_over(session):
    """A tool's input may nest deeply; JSON's parser recursed into it and failed the line."""
    deep = '{"type": "assistant", "x": ' + "[" * 5000 + "]" * 5000 + "}"
    _append(Path(session["transcript_path"]), [deep])
    stdin = json.dumps(session).encode()
    assert _line(_run(stdin)) == LINE
    assert _line(_run(stdin)) == LINE  # and its state was kept for the next refresh


def test_a_line_still_being_written_waits_for_the_next_refresh(session):
    transcript = Path(session["transcript_path"])
    whole = json.dumps(_response("s1", 5, _usage(100_000, 0)))  # 100,000 in = $0.30
    with transcript.open("a", encoding="utf-8") as handle:
        handle.write(whole[:40])
    stdin = json.dumps(session).encode()
    assert _line(_run(stdin)) == LINE
    with transcript.open("a", encoding="utf-8") as handle:
        handle.write(whole[40:] + "\n")
    assert _line(_run(stdin)) == LINE.replace("$1.03", "$1.33")


def test_a_long_transcript_is_caught_up_over_refreshes(session, monkeypatch, capsys):
    monkeypatch.setattr(statusline, "TRANSCRIPT_READ_BYTES", 600)  # a line or two a refresh
    lines = []
    for _ in range(10):
        lines.append(_in_process(session))
        if "≥" not in lines[-1]:
            break
    assert lines[0].startswith("Recall 3 · 39x") and "≥$" in lines[0]
    assert lines[-1] == LINE and len(lines) > 2


def _in_process(session: dict) -> str:
    """One refresh in this process (the test changes a module constant), stdin from a file."""
    path = Path(session["transcript_path"]).parent / "stdin.json"
    path.write_text(json.dumps(session), encoding="utf-8")
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    with open(path, "rb") as stdin:
        assert statusline.run_statusline(stdin, out) == 0
    out.seek(0)
    return out.read().rstrip("\n")


def test_an_unpriced_model_is_counted_not_priced(session):
    transcript = Path(session["transcript_path"])
    _append(transcript, [_response("s1", 6, _usage(5000, 5000), model="claude-mystery-9")])
    assert _line(_run(json.dumps(session).encode())) == f"{LINE} (+1 unpriced)"


def test_a_response_priced_out_of_range_adds_nothing_to_the_cost(session):
    """Token counts in range (below 10**12) priced at Sonnet's rates: $15M for one request,
    rejected as a stored cost of $10,000 or more is, never part of the session's figure."""
    transcript = Path(session["transcript_path"])
    _append(transcript, [_response("s1", 6, _usage(5000, 10**12 - 1))])
    assert _line(_run(json.dumps(session).encode())) == LINE


def test_without_rows_for_the_session_the_transcripts_recall_calls_are_shown(session):
    other = dict(session, session_id="s3")
    transcript = Path(session["transcript_path"]).with_name("s3.jsonl")
    recall = [{"type": "tool_use", "id": "toolu_9", "name": "mcp__wherein__recall", "input": {}}]
    _append(transcript, [_response("s3", 1, _usage(1000, 1000), content=recall)])
    other["transcript_path"] = str(transcript)  # 3000 + 15,000 = $0.018
    assert _line(_run(json.dumps(other).encode())) == "Recall 1 · $0.02 this session"


@pytest.mark.parametrize(
    ("stdin", "expected"),
    [
        (None, "Recall: no session yet"),  # nothing on stdin
        (b"", "Recall: no session yet"),
        (b"{not json", "Recall: no session yet"),
        (b"\xff\xfe garbage", "Recall: no session yet"),
        (b'["s1"]', "Recall: no session yet"),
        (b'{"session_id": 42}', "Recall: no session yet"),
        (b'{"session_id": "fresh"}', "Recall: no calls yet"),  # no rows, no transcript yet
        (b'{"session_id": "fresh", "transcript_path": "/nowhere/x.jsonl"}', "Recall: no calls yet"),
    ],
)
def test_bad_or_missing_input_gives_a_neutral_line_and_exit_0(stdin, expected, tmp_path):
    assert _line(_run(stdin)) == expected


def test_stdin_left_open_is_not_waited_on_for_ever(session):
    assert _line(_run(json.dumps(session).encode(), keep_open=True)) == LINE


def test_a_terminal_that_cannot_show_the_dot_gets_ascii(session):
    ascii_line = LINE.replace(" · ", " | ")
    assert _line(_run(json.dumps(session).encode(), encoding="ascii")) == ascii_line


def test_a_subagents_folder_linked_elsewhere_is_not_read(session, tmp_path):
    """`baseline` follows no link inside the agent's folders, and the status line agrees."""
    folder = Path(session["transcript_path"]).with_suffix("") / "subagents"
    elsewhere = tmp_path / "elsewhere"
    folder.rename(elsewhere)
    folder.symlink_to(elsewhere, target_is_directory=True)
    stdin = json.dumps(session).encode()
    linked = _line(_run(stdin))
    folder.unlink()
    (tmp_path / "wherein-home" / "statusline").rename(tmp_path / "state-before")
    assert linked == _line(_run(stdin)) != LINE  # as if there were no subagent


def test_a_transcript_that_is_a_link_a_fifo_or_huge_is_not_read(session, tmp_path):
    real = Path(session["transcript_path"])
    link = real.with_name("linked.jsonl")
    link.symlink_to(real)
    fifo = real.with_name("fifo.jsonl")
    os.mkfifo(fifo)
    huge = real.with_name("huge.jsonl")
    with open(huge, "wb") as handle:
        handle.truncate(5 << 30)  # sparse: 5 GiB that take no disk, over the 4 GiB cap
    for path in (link, fifo, huge):
        stdin = json.dumps(dict(session, transcript_path=str(path))).encode()
        assert _line(_run(stdin)) == "Recall 3 · 39x · ~114k tokens kept out (est.)"


def test_nothing_a_transcript_or_session_id_holds_reaches_the_terminal(session):
    transcript = Path(session["transcript_path"])
    evil = "\x1b]52;c;ZXZpbA==\x07\x1b[2J"
    _append(transcript, [_response("s1", 7, _usage(10, 10), model=evil)])
    hostile = dict(session, session_id=f"s1{evil}")
    for stdin in (json.dumps(session), json.dumps(hostile)):
        out = _run(stdin.encode())
        text = out.stdout.decode("utf-8")
        assert "\x1b" not in text and "\x07" not in text
        assert out.returncode == 0


def test_the_status_line_loads_no_model_index_or_numpy(session):
    code = (
        "import io, sys\n"
        "from wherein.cli import main\n"
        "main(['statusline'])\n"
        "heavy = ('numpy', 'onnxruntime', 'sqlite3', 'tomlkit', 'msgspec', 'wherein.index.store',"
        " 'wherein.embedding.registry', 'wherein.meter.summary')\n"
        "print([m for m in heavy if m in sys.modules], file=sys.stderr)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONIOENCODING="utf-8")
    got = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(session).encode(),
        capture_output=True,
        env=env,
        timeout=60,
        check=True,
    )
    assert got.stdout.decode().strip() == LINE
    assert got.stderr.decode().strip() == "[]"


def test_statusline_through_main_writes_one_line(session, monkeypatch, capsys, tmp_path):
    stdin_file = tmp_path / "stdin.json"
    stdin_file.write_text(json.dumps(session), encoding="utf-8")
    with open(stdin_file, encoding="utf-8") as handle:
        monkeypatch.setattr(sys, "stdin", handle)
        assert main(["statusline"]) == 0
    assert capsys.readouterr().out.rstrip("\n").replace(" | ", " · ") == LINE
