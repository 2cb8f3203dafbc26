"""The traps other cost meters fall into, each against figures computed by hand here.

Prices per million tokens: claude-sonnet-4-5 3 in, 3.75 5-minute write, 6 1-hour write,
0.3 read, 15 out; gpt-5-codex 1.25 in, 0.125 cached, 10 out.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.meter.ledger_fixtures import write_claude_projects
from wherein.cli import main
from wherein.meter.prices import load_prices

SONNET = "claude-sonnet-4-5-20250929"
CODEX = "gpt-5-codex"


def _write(path: Path, lines: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _baseline(capsys, *extra: str) -> dict:
    assert main(["baseline", "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def _claude_line(session, when, message_id, usage, request_id=None, text="ok") -> dict:
    line = {
        "type": "assistant",
        "sessionId": session,
        "timestamp": when,
        "cwd": "/home/me/app",
        "message": {
            "id": message_id,
            "model": SONNET,
            "content": [{"type": "text", "text": text}],
            "usage": usage,
        },
    }
    if request_id is not None:
        line["requestId"] = request_id
    return line


# --- Claude Code behind a third-party gateway: no requestId on any line -------------------


def test_lines_without_request_id_merge_on_message_id_alone(tmp_path, capsys):
    # msg_g1 streamed as three lines (placeholder outputs 1 and 1, then 80):
    #   20 in, 3000 read, 400 written (5-minute), 80 out
    #   = 20*3 + 3000*0.3 + 400*3.75 + 80*15 = 60 + 900 + 1500 + 1200 = 3660 micro-dollars
    # msg_g2 once: 5 in, 10 out = 15 + 150 = 165 micro-dollars
    def usage(out):
        return {
            "input_tokens": 20,
            "cache_creation_input_tokens": 400,
            "cache_read_input_tokens": 3000,
            "output_tokens": out,
        }

    lines = [
        _claude_line("gw", "2026-11-02T10:00:01Z", "msg_g1", usage(1), text="a"),
        _claude_line("gw", "2026-11-02T10:00:02Z", "msg_g1", usage(1), text="b"),
        _claude_line("gw", "2026-11-02T10:00:03Z", "msg_g1", usage(80), text="c"),
        _claude_line(
            "gw", "2026-11-02T10:00:09Z", "msg_g2", {"input_tokens": 5, "output_tokens": 10}
        ),
    ]
    _write(tmp_path / "home" / ".claude" / "projects" / "-home-me-app" / "gw.jsonl", lines)
    summary = _baseline(capsys)
    assert summary["requests"] == 2  # counting each streamed copy would give 4
    assert summary["duplicate_lines"] == 2
    assert summary["tokens"]["output"] == 90  # the fullest copy kept, never a placeholder
    assert summary["cost_usd"] == pytest.approx((3660 + 165) / 1e6)


# --- Codex: input_tokens includes cached_input_tokens; forks replay their parent ---------


def _event(when, kind, payload) -> dict:
    return {"timestamp": when, "type": kind, "payload": payload}


def _tokens(when, inp, cached, out) -> dict:
    total = {
        "input_tokens": inp,
        "cached_input_tokens": cached,
        "output_tokens": out,
        "reasoning_output_tokens": 0,
        "total_tokens": inp + out,
    }
    info = {"total_token_usage": total, "last_token_usage": total}
    return _event(when, "event_msg", {"type": "token_count", "info": info})


def _meta(when, session, **extra) -> dict:
    return _event(when, "session_meta", {"id": session, "cwd": "/home/me/api", **extra})


def _turn(when) -> dict:
    return _event(when, "turn_context", {"cwd": "/home/me/api", "model": CODEX})


def _rollout(home: Path, day: str, name: str, lines: list[dict]) -> Path:
    return _write(home / "sessions" / "2026" / "11" / day / f"rollout-{name}.jsonl", lines)


def test_codex_cached_input_is_part_of_input_and_billed_once(tmp_path, capsys):
    # One turn: 10,000 input of which 9,000 cached, 500 output.
    #   new 1,000 * 1.25 + cached 9,000 * 0.125 + 500 * 10 = 1250 + 1125 + 5000 = 7375
    #   (adding cached to input would bill 10,000 * 1.25 + ... = 18,625: 2.5 times as much)
    _rollout(
        tmp_path / "home" / ".codex",
        "04",
        "2026-11-04T09-00-00-one",
        [
            _meta("2026-11-04T09:00:00Z", "one"),
            _turn("2026-11-04T09:00:00Z"),
            _tokens("2026-11-04T09:00:05Z", 10_000, 9_000, 500),
        ],
    )
    summary = _baseline(capsys)
    assert summary["tokens"]["input"] == 1_000
    assert summary["tokens"]["cache_read"] == 9_000
    assert summary["cost_usd"] == pytest.approx(7375 / 1e6)


def _parent(home: Path) -> Path:
    # Two turns, running totals (1000 in incl. 600 cached, 100 out) then (2500, 1800, 250):
    #   400*1.25 + 600*0.125 + 100*10 = 500 + 75 + 1000 = 1575
    #   300*1.25 + 1200*0.125 + 150*10 = 375 + 150 + 1500 = 2025
    return _rollout(
        home,
        "04",
        "2026-11-04T09-00-00-parent",
        [
            _meta("2026-11-04T09:00:00Z", "parent"),
            _turn("2026-11-04T09:00:00Z"),
            _tokens("2026-11-04T09:00:03Z", 1000, 600, 100),
            _tokens("2026-11-04T09:00:07Z", 2500, 1800, 250),
        ],
    )


def _fork(home: Path) -> Path:
    # Forked the next day: its own meta, the parent's embedded, the parent's two token_count
    # events replayed under the fork's time, then one turn of its own to (4000, 3000, 400):
    #   delta (1500 incl. 1200 cached, 150 out) = 300*1.25 + 1200*0.125 + 150*10 = 2025
    return _rollout(
        home,
        "05",
        "2026-11-05T08-00-00-fork",
        [
            _meta("2026-11-05T08:00:00Z", "fork", forked_from_id="parent"),
            _meta("2026-11-04T09:00:00Z", "parent"),
            _turn("2026-11-05T08:00:00Z"),
            _tokens("2026-11-05T08:00:00Z", 1000, 600, 100),
            _tokens("2026-11-05T08:00:00Z", 2500, 1800, 250),
            _turn("2026-11-05T08:01:00Z"),
            _tokens("2026-11-05T08:01:30Z", 4000, 3000, 400),
        ],
    )


def test_a_forked_codex_rollout_counts_each_turn_once_across_files(tmp_path, capsys):
    home = tmp_path / "home" / ".codex"
    _parent(home)
    _fork(home)
    summary = _baseline(capsys)
    assert summary["requests"] == 3  # 5 if the replayed events counted again
    assert summary["replayed_turns"] == 2
    assert summary["cost_usd"] == pytest.approx((1575 + 2025 + 2025) / 1e6)
    by_day = {day["date"]: day for day in summary["per_day"]}
    assert by_day["2026-11-04"]["cost_usd"] == pytest.approx((1575 + 2025) / 1e6)
    assert by_day["2026-11-05"]["cost_usd"] == pytest.approx(2025 / 1e6)  # the fork's own
    assert summary["sessions"] == 2  # the fork is its own session, not its embedded parent's


def test_a_fork_whose_parent_is_gone_still_counts_the_replayed_turns_once(tmp_path, capsys):
    _fork(tmp_path / "home" / ".codex")
    summary = _baseline(capsys)
    assert (summary["requests"], summary["replayed_turns"]) == (3, 0)
    assert summary["cost_usd"] == pytest.approx((1575 + 2025 + 2025) / 1e6)


# --- Cache writes: 1-hour at 2x input, 5-minute at 1.25x, and the share of each ----------


def test_each_ttl_of_cache_writes_is_priced_at_its_own_rate_and_shown_with_its_share(
    tmp_path, capsys
):
    # The shared fixture (ledger_fixtures.py): A1 writes 1000 tokens for 1 hour on sonnet-4-5
    # (6 = 2 x 3 in) = 6000; A2 writes 200 for 5 minutes (3.75 = 1.25 x 3) = 750; B2 writes
    # 500 for 5 minutes on opus-4-5 (6.25 = 1.25 x 5) = 3125. Cache writes 9875 of 267,970.
    book = load_prices()
    for model in ("claude-sonnet-4-5", "claude-opus-4-5"):
        rates = book.lookup(model, 1.8e9).rates
        assert (rates.cache_write_5m, rates.cache_write_1h) == (
            pytest.approx(1.25 * rates.input),
            pytest.approx(2 * rates.input),
        )
    write_claude_projects(tmp_path / "home" / ".claude")
    summary = _baseline(capsys)
    assert summary["cache_write_split_usd"] == {
        "5m": pytest.approx(3875 / 1e6),
        "1h": pytest.approx(6000 / 1e6),
    }
    assert summary["cost_split_usd"]["cache_write"] == pytest.approx(9875 / 1e6)
    assert summary["cost_usd"] == pytest.approx(267_970 / 1e6)
    assert main(["baseline"]) == 0
    lines = capsys.readouterr().out.splitlines()
    five = next(line for line in lines if "5-minute cache writes" in line)
    hour = next(line for line in lines if "1-hour cache writes" in line)
    assert "$0.0039" in five and "1.4%; 39.2% of cache writes" in five
    assert "$0.0060" in hour and "2.2%; 60.8% of cache writes" in hour
