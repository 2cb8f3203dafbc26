"""Measure what each kind of MCP client's model receives from `recall`, in characters.

Claude Code and VS Code hand the model `JSON.stringify(structuredContent)` and drop `content`
when a result has `structuredContent`; other clients hand it the text `content`. Every session
also pays for the tool list. For one fixed repository (this project's own tree at a pinned
commit, from `git archive`) the script indexes it, runs a few 8-result searches through the
MCP SDK's own client, in process, and prints per search:

- fence: the fenced block itself, from its opening tag line to its closing tag line;
- content: the text content, what a content-reading client's model receives;
- structured: `len(json.dumps(structuredContent, ensure_ascii=False))`, what a
  Claude-Code-like client's model receives (json.dumps' ", " and ": " make it a little more
  than JSON.stringify's);
- each as a ratio to the fence (the target is <= 1.15);

and once: `len(json.dumps(tools/list result))` (the target is <= 3,000).

    python scripts/measure_mcp.py [--commit REV] [--provider static] [--out FILE]

Run it with PYTHONPATH pointing at the checkout to measure (before/after a change).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

# This repository's main branch when the MCP answers were slimmed (issue 15): a fixed tree.
DEFAULT_COMMIT = "cad8ea72267820edc41a61815b5107c0ea92ad68"
QUERIES = (
    "where is the fence around repository text built",
    "how does the index decide a file changed",
    "reciprocal rank fusion of the tiers",
    "refuse an embedding endpoint that is not loopback",
    "parse the usage ledger rows",
    "install the server into an agent's config file",
    "chunk a source file along its declarations",
    "which folder is the workspace",
    "escape control characters before printing",
    "cancel a running index job when the session ends",
)
LIMIT = 8
TARGET_RATIO = 1.15
TARGET_TOOL_LIST = 3000
_OPEN = re.compile(r"^<repository-data ([0-9a-f]+)>$", re.M)


def fence_of(text: str) -> str:
    """The fenced block of `text`, opening tag line through closing tag line ("" if none)."""
    opening = _OPEN.search(text)
    if opening is None:
        return ""
    closing = f"</repository-data {opening.group(1)}>"
    end = text.index(closing, opening.end()) + len(closing)
    return text[opening.start() : end]


def _export(commit: str, target: Path) -> None:
    """This repository's tree at `commit`, written to `target`."""
    here = Path(__file__).resolve().parent.parent
    target.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(here), "archive", "--format=tar", commit],
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)


async def _measure(workspace: Path, queries: tuple[str, ...]) -> dict[str, Any]:
    from mcp import Client

    from wherein.plugin.server import create_server

    async with Client(create_server(workspace), mode="legacy") as client:
        listed = await client.list_tools()
        tool_list = listed.model_dump(mode="json", by_alias=True, exclude_none=True)
        indexed = await client.call_tool("recall", {"action": "index", "run_in_background": False})
        if indexed.is_error:
            raise SystemExit(f"indexing failed: {indexed.content[0].text}")
        searches = []
        for query in queries:
            result = await client.call_tool("recall", {"query": query, "limit": LIMIT})
            text = result.content[0].text
            structured = result.structured_content or {}
            block = fence_of(text)
            fence = len(block)
            content = len(text)
            packed = len(json.dumps(structured, ensure_ascii=False))
            searches.append(
                {
                    "query": query,
                    "results": len(re.findall(r"^\d+\. ", block, re.M)),
                    "fence": fence,
                    "content": content,
                    "structured": packed,
                    "content_ratio": round(content / fence, 3) if fence else None,
                    "structured_ratio": round(packed / fence, 3) if fence else None,
                }
            )
    return {
        "tool_list": len(json.dumps(tool_list, ensure_ascii=False)),
        "tool_list_compact": len(json.dumps(tool_list, separators=(",", ":"))),
        "searches": searches,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commit", default=DEFAULT_COMMIT, help="the tree to search")
    parser.add_argument("--provider", default="static", help="embedding.provider")
    parser.add_argument("--out", help="write the figures as JSON here")
    args = parser.parse_args(argv)

    import anyio

    import wherein

    with tempfile.TemporaryDirectory(prefix="wherein-mcp-") as scratch:
        root = Path(scratch)
        workspace = root / "repo"
        _export(args.commit, workspace)
        os.environ.update(
            {
                "WHEREIN_HOME": str(root / "home"),
                "XDG_CONFIG_HOME": str(root / "config"),
                "WHEREIN_EMBEDDING_PROVIDER": args.provider,
            }
        )
        figures = anyio.run(_measure, workspace.resolve(), QUERIES)
    figures.update(commit=args.commit, provider=args.provider, code=str(wherein.__file__))
    print(f"wherein from {figures['code']}; tree {args.commit[:12]}; provider {args.provider}")
    header = ("query", "n", "fence", "content", "struct", "c/f", "s/f")
    print("{:<52} {:>2} {:>6} {:>8} {:>7} {:>5} {:>5}".format(*header))
    for s in figures["searches"]:
        print(
            f"{s['query'][:52]:<52} {s['results']:>2} {s['fence']:>6} {s['content']:>8} "
            f"{s['structured']:>7} {s['content_ratio']:>5} {s['structured_ratio']:>5}"
        )
    searches = figures["searches"]
    worst_content = max(s["content_ratio"] for s in searches)
    worst_structured = max(s["structured_ratio"] for s in searches)
    print(
        f"median fence {statistics.median(s['fence'] for s in searches):.0f}, "
        f"content {statistics.median(s['content'] for s in searches):.0f}, "
        f"structured {statistics.median(s['structured'] for s in searches):.0f}; "
        f"worst ratio content {worst_content}, structured {worst_structured} "
        f"(target <= {TARGET_RATIO})"
    )
    print(
        f"tools/list {figures['tool_list']} characters "
        f"({figures['tool_list_compact']} compact; target <= {TARGET_TOOL_LIST})"
    )
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2) + "\n")
    met = max(worst_content, worst_structured) <= TARGET_RATIO
    return 0 if met and figures["tool_list"] <= TARGET_TOOL_LIST else 1


if __name__ == "__main__":
    sys.exit(main())
