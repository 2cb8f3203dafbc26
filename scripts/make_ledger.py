"""Write a synthetic agent ledger, in Claude Code's transcript shape or the generic JSONL one.

    python scripts/make_ledger.py OUT [--lines N | --sessions N] [--seed 7]
        [--start 2026-10-01] [--days 30] [--recall-share 0.0] [--format claude|generic]
        [--malformed-rate 0.0005]

Claude format: OUT/projects/<project>/<session>.jsonl, subagent transcripts under
OUT/projects/<project>/<session>/subagents/, as Claude Code writes them; point
CLAUDE_CONFIG_DIR at OUT to read them. Generic format: OUT/ledger.jsonl, one row per call
(DeepSeek-style: cache hits and misses, no cache writes), read with --ledger. With
--recall-share, that share of sessions calls `mcp__wherein__recall` and OUT/usage.jsonl gets
wherein's usage rows (point WHEREIN_HOME at OUT).

How a session is drawn (all from one seeded random.Random, so a seed gives the same files):
- requests per session: lognormal, median 40, a heavy tail (sessions of 1,000+ requests);
- context starts at 15-25K tokens (system prompt, tools, project notes) and grows by each
  tool result (lognormal, median 1,200 tokens); 30% of sessions run with a 1M window, the
  rest compact at 160K; compaction resets to the base plus an 8K summary;
- each request reads the previous context from cache and writes the new part (1-hour TTL,
  as Claude Code does); a gap of more than an hour (2% of requests) finds the cache cold and
  writes the whole context; uncached input is 1-8 tokens;
- output: lognormal, median 300 tokens; a response is written as one line per content block
  (thinking, text, tool_use), each repeating the usage, all but the last with a placeholder
  output count;
- 10% of requests start a subagent (Haiku, isSidechain, same sessionId, 5-20 requests);
- 3% of sessions are resumed: their last assistant lines are copied into another file;
- 0.2% of responses are `<synthetic>` lines; --malformed-rate of the tool-result lines are
  cut short (a truncated assistant line would change which copy of a response survives, and
  the totals below could no longer be exact).
Sessions that call recall are drawn from the same distributions as the others: this
generator builds in no saving, so any difference between the groups in its output is noise.

OUT/expected.json holds the generator's own totals (requests after merging copies, tokens,
sessions, malformed lines), which reading the ledger must reproduce.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import random
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

PROJECTS = ["-home-dev-shop", "-home-dev-api", "-home-dev-infra", "-home-dev-ml", "-home-dev-docs"]
MAIN_MODELS = [("claude-sonnet-4-6", 0.7), ("claude-opus-4-6", 0.3)]
SUBAGENT_MODEL = "claude-haiku-4-5-20251001"
DEEPSEEK_MODEL = "deepseek-v4-pro"
MEDIAN_REQUESTS, REQUESTS_SIGMA = 40, 1.1
MEDIAN_TOOL_RESULT, TOOL_RESULT_SIGMA = 1200, 0.9
MEDIAN_OUTPUT, OUTPUT_SIGMA = 300, 0.8
LONG_WINDOW, SHORT_WINDOW, LONG_WINDOW_SHARE = 950_000, 160_000, 0.3
SUMMARY_TOKENS = 8_000
COLD_CACHE_SHARE, SUBAGENT_SHARE, RESUMED_SHARE, SYNTHETIC_SHARE = 0.02, 0.10, 0.03, 0.002
CHARS_PER_TOKEN = 4
MAX_RESULT_CHARS = 4_000  # keeps a million lines near a gigabyte, as real transcripts run


class Generator:
    """Draws sessions and writes them, keeping the totals a reader must reproduce."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.rng = random.Random(args.seed)
        self.out: Path = args.out
        self.start = datetime.fromisoformat(args.start).replace(tzinfo=timezone.utc)
        self.lines = 0
        self.expected = {
            "requests": 0,
            "sessions": 0,
            "malformed_lines": 0,
            "recall_sessions": 0,
            "tokens": dict.fromkeys(
                ("input", "cache_read", "cache_write_5m", "cache_write_1h", "output"), 0
            ),
        }
        self.usage_rows: list[dict] = []

    def run(self) -> dict:
        self.out.mkdir(parents=True, exist_ok=True)
        ledger = (self.out / "ledger.jsonl").open("w") if self.args.format == "generic" else None
        number = 0
        while self._more(number):
            self._session(number, ledger)
            number += 1
        if ledger is not None:
            ledger.close()
        if self.usage_rows:
            with (self.out / "usage.jsonl").open("w") as handle:
                for row in self.usage_rows:
                    handle.write(json.dumps(row) + "\n")
        self.expected["lines"] = self.lines
        (self.out / "expected.json").write_text(json.dumps(self.expected, indent=1) + "\n")
        return self.expected

    def _more(self, number: int) -> bool:
        if self.args.sessions is not None:
            return number < self.args.sessions
        return self.lines < self.args.lines

    def _session(self, number: int, ledger) -> None:
        rng = self.rng
        session = f"{number:08x}-5e55-4a00-9000-{rng.getrandbits(48):012x}"
        project = rng.choice(PROJECTS)
        model = rng.choices([m for m, _ in MAIN_MODELS], [w for _, w in MAIN_MODELS])[0]
        requests = max(1, int(rng.lognormvariate(math.log(MEDIAN_REQUESTS), REQUESTS_SIGMA)))
        window = LONG_WINDOW if rng.random() < LONG_WINDOW_SHARE else SHORT_WINDOW
        uses_recall = rng.random() < self.args.recall_share
        when = self.start + timedelta(seconds=rng.uniform(0, self.args.days * 86_400))
        self.expected["sessions"] += 1
        path = self.out / "projects" / project / f"{session}.jsonl"
        written: list[str] = []
        called_recall = False
        if ledger is None:
            path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.nullcontext(ledger) if ledger is not None else path.open("w") as handle:
            base = rng.randint(15_000, 25_000)
            context, cached = base, 0
            for turn in range(requests):
                when += timedelta(seconds=rng.expovariate(1 / 40))
                if rng.random() < COLD_CACHE_SHARE:
                    when += timedelta(hours=1, minutes=rng.randint(1, 90))
                    cached = 0
                added = min(
                    int(rng.lognormvariate(math.log(MEDIAN_TOOL_RESULT), TOOL_RESULT_SIGMA)),
                    200_000,
                )
                if turn:
                    context += added
                if context > window:
                    context, cached = base + SUMMARY_TOKENS, 0
                fresh = rng.randint(1, 8)
                usage = (fresh, cached, context - cached, self._output())
                recall = uses_recall and rng.random() < 0.15
                if ledger is not None:
                    self._generic_row(handle, session, project, when, usage)
                else:
                    written += self._response(
                        handle, session, project, model, when, usage, recall, added
                    )
                    if rng.random() < SUBAGENT_SHARE:
                        self._subagent(path, session, project, when)
                if recall:
                    self._usage_row(session, project, when)
                    called_recall = True
                cached = context
        self.expected["recall_sessions"] += called_recall
        if ledger is None and written and rng.random() < RESUMED_SHARE:
            copy = path.with_name(f"{session}-resumed.jsonl")
            with copy.open("w") as handle:
                for line in written[-5:]:
                    handle.write(line)
                    self.lines += 1

    def _output(self) -> int:
        return max(1, int(self.rng.lognormvariate(math.log(MEDIAN_OUTPUT), OUTPUT_SIGMA)))

    def _count(self, usage: tuple[int, int, int, int], one_hour: bool = True) -> None:
        fresh, read, write, output = usage
        tokens = self.expected["tokens"]
        tokens["input"] += fresh
        tokens["cache_read"] += read
        tokens["cache_write_1h" if one_hour else "cache_write_5m"] += write
        tokens["output"] += output
        self.expected["requests"] += 1

    def _write(self, handle, line: dict, may_break: bool = False) -> str:
        text = json.dumps(line, separators=(",", ":")) + "\n"
        if may_break and self.rng.random() < self.args.malformed_rate:
            # Never just after a "}": a reader may skip, unparsed, a line that ends like an
            # object and holds no response, and this one must be counted as malformed.
            text = text[: len(text) // 2].rstrip("}") + "\n"
            self.expected["malformed_lines"] += 1
        handle.write(text)
        self.lines += 1
        return text

    def _response(self, handle, session, project, model, when, usage, recall, added) -> list[str]:
        rng = self.rng
        written = []
        if rng.random() < SYNTHETIC_SHARE:
            self._write(
                handle,
                _assistant(
                    session,
                    project,
                    "<synthetic>",
                    when,
                    f"msg_syn{rng.getrandbits(40)}",
                    None,
                    (0, 0, 0, 0),
                    [{"type": "text", "text": "No response requested."}],
                ),
            )
        blocks = []
        if rng.random() < 0.4:
            blocks.append(
                {"type": "thinking", "thinking": "x" * rng.randint(50, 600), "signature": "s"}
            )
        if rng.random() < 0.7:
            blocks.append({"type": "text", "text": "y" * rng.randint(20, 400)})
        tool = "mcp__wherein__recall" if recall else rng.choice(["Read", "Bash", "Grep", "Edit"])
        tool_id = f"toolu_{rng.getrandbits(64):016x}"
        blocks.append({"type": "tool_use", "id": tool_id, "name": tool, "input": {"q": "z" * 40}})
        message_id = f"msg_{rng.getrandbits(80):020x}"
        request_id = f"req_{rng.getrandbits(80):020x}"
        fresh, read, write, output = usage
        for k, block in enumerate(blocks):
            shown = output if k == len(blocks) - 1 else rng.randint(1, 8)
            line = _assistant(
                session,
                project,
                model,
                when + timedelta(milliseconds=300 * k),
                message_id,
                request_id,
                (fresh, read, write, shown),
                [block],
            )
            written.append(self._write(handle, line))
        self._count(usage)
        result = "r" * min(added * CHARS_PER_TOKEN, MAX_RESULT_CHARS)
        tool_result = {"type": "tool_result", "tool_use_id": tool_id, "content": result}
        user = {
            "type": "user",
            "isSidechain": False,
            "sessionId": session,
            "timestamp": _iso(when + timedelta(seconds=2)),
            "message": {"role": "user", "content": [tool_result]},
        }
        self._write(handle, user, may_break=True)
        return written

    def _subagent(self, path: Path, session, project, when) -> None:
        rng = self.rng
        agent = path.parent / session / "subagents" / f"agent-{rng.getrandbits(32):08x}.jsonl"
        agent.parent.mkdir(parents=True, exist_ok=True)
        context, cached = rng.randint(8_000, 14_000), 0
        with agent.open("w") as handle:
            for _ in range(rng.randint(5, 20)):
                when += timedelta(seconds=rng.expovariate(1 / 10))
                usage = (rng.randint(1, 8), cached, context - cached, self._output())
                line = _assistant(
                    session,
                    project,
                    SUBAGENT_MODEL,
                    when,
                    f"msg_{rng.getrandbits(80):020x}",
                    f"req_{rng.getrandbits(80):020x}",
                    usage,
                    [{"type": "text", "text": "found"}],
                    sidechain=True,
                )
                self._write(handle, line)
                self._count(usage)
                cached = context
                context += int(rng.lognormvariate(math.log(800), 0.7))

    def _generic_row(self, ledger, session, project, when, usage) -> None:
        fresh, read, write, output = usage
        # DeepSeek bills no cache writes: the new part of the context is a cache miss (input).
        row = {
            "time": _iso(when),
            "session": session,
            "model": DEEPSEEK_MODEL,
            "input_tokens": fresh + write,
            "cache_read_tokens": read,
            "cache_write_tokens": 0,
            "output_tokens": output,
            "project": f"/srv/{project.strip('-')}",
        }
        self._write(ledger, row)
        self._count((fresh + write, read, 0, output))

    def _usage_row(self, session, project, when) -> None:
        returned = self.rng.randint(1_500, 6_000)
        self.usage_rows.append(
            {
                "time": _iso(when),
                "session": session,
                "workspace": f"/home/dev/{project}",
                "action": "search",
                "results": 8,
                "returned_chars": returned,
                "source_chars": returned * self.rng.randint(4, 20),
                "paths_hash": "0",
            }
        )


def _assistant(
    session, project, model, when, message_id, request_id, usage, content, sidechain=False
) -> dict:
    fresh, read, write, output = usage
    line = {
        "parentUuid": None,
        "isSidechain": sidechain,
        "userType": "external",
        "cwd": "/" + project.strip("-").replace("-", "/"),
        "sessionId": session,
        "version": "2.0.31",
        "gitBranch": "main",
        "type": "assistant",
        "timestamp": _iso(when),
        "message": {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {
                "input_tokens": fresh,
                "cache_creation_input_tokens": write,
                "cache_read_input_tokens": read,
                "cache_creation": {
                    "ephemeral_5m_input_tokens": 0,
                    "ephemeral_1h_input_tokens": write,
                },
                "output_tokens": output,
                "service_tier": "standard",
            },
        },
    }
    if request_id is not None:
        line["requestId"] = request_id
    return line


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make_ledger.py", description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path, help="the folder to write")
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--lines", type=int, default=10_000, help="write at least this many lines")
    size.add_argument("--sessions", type=int, help="write exactly this many sessions")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--start", default="2026-10-01", help="first day (UTC)")
    parser.add_argument("--days", type=int, default=30, help="days the sessions start within")
    parser.add_argument("--recall-share", type=float, default=0.0, help="share of sessions")
    parser.add_argument("--format", choices=["claude", "generic"], default="claude")
    parser.add_argument("--malformed-rate", type=float, default=0.0005)
    args = parser.parse_args(argv)
    if (args.out / "projects").exists() or (args.out / "ledger.jsonl").exists():
        print(
            f"make_ledger.py: {args.out} already holds a ledger; choose an empty folder.",
            file=sys.stderr,
        )
        return 2
    expected = Generator(args).run()
    print(
        f"make_ledger.py: {expected['lines']:,} lines, {expected['requests']:,} requests, "
        f"{expected['sessions']:,} sessions in {args.out}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
