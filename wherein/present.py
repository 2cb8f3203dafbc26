"""Search results as text for people: location, similarity, symbols, numbered excerpt.

A path, a symbol, an excerpt line and a model's reason are the repository's (or a model's)
text: each goes out through `untrusted.one_line`, so on a terminal an escape sequence in a
file shows as `\x1b[2J` instead of clearing the screen, and a newline in a file name cannot
forge a line. Tabs in an excerpt stay (rich expands them).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, TextIO

from wherein.search import Hit, SearchResult
from wherein.untrusted import one_line

if TYPE_CHECKING:
    from wherein.ranking.step import StepStatus

__all__ = ["print_results", "result_notes"]

# A degraded model step, in words: what happened and what the results are instead.
_STEP_WORDS = {"timed_out": "timed out", "failed": "failed", "cancelled": "was cancelled"}
_STEP_FALLBACK = {
    "Query expansion": "the results rank the query as written",
    "Reranking": "the results keep the fused order",
}


# What rich reads to decide a stream is a terminal despite isatty(); any of them set, rich decides.
_RICH_TERMINAL_VARIABLES = ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")


def print_results(result: SearchResult, stream: TextIO) -> None:
    """Print results, coloured when `stream` is a terminal."""
    plain = None if _may_colour(stream) else _plain_lines(result)
    if plain is not None:
        # Not a terminal (an agent's pipe, a file): the same text rich would write, without
        # importing it, which costs a fresh `wherein search` about 40 ms.
        stream.write("".join(line + "\n" for line in plain))
        stream.flush()
        return
    from rich.console import Console
    from rich.text import Text

    console = Console(file=stream, highlight=False, soft_wrap=True)
    if not result.hits:
        console.print("No results.", style="yellow" if console.is_terminal else None)
    for hit in result.hits:
        title = Text()
        title.append(f"{one_line(hit.path)}:{hit.start_line}-{hit.end_line}", style="bold cyan")
        if hit.source_path is not None:
            title.append(_source_path(hit), style="cyan")
        if hit.similarity is not None:
            title.append(f"  similarity {hit.similarity:.2f}", style="dim")
        if hit.symbols:
            title.append("  " + _symbols(hit.symbols), style="green")
        if hit.stale:
            title.append("  (changed since indexed)", style="yellow")
        console.print(title)
        width = len(str(hit.end_line))
        if hit.header:
            console.print(Text(f"{'':>{width}} | {_header(hit.header)}", style="dim"))
            console.print(Text(f"{'':>{width}} | ...", style="dim"))
        for offset, line in enumerate(hit.excerpt.split("\n")):
            row = Text(f"{hit.start_line + offset:>{width}} | ", style="dim")
            row.append(_source_line(line))
            console.print(row)
        if hit.truncated:
            console.print(Text(f"{'':>{width}} | ... (cut; read the file for more)", style="dim"))
        console.print()


def result_notes(result: SearchResult) -> list[str]:
    """What the results leave out, one line each, for stderr: a degraded model step, and
    the chunks the configured model has not embedded yet."""
    notes = [
        _step_line(label, step)
        for label, step in (("Query expansion", result.expansion), ("Reranking", result.rerank))
        if step.degraded
    ]
    if result.pending_chunks:
        notes.append(_pending_line(result))
    return notes


def _step_line(label: str, step: StepStatus) -> str:
    """What became of a degraded model step; the reason may quote the model."""
    reason = one_line((step.reason or "no reason given").rstrip("."))
    return (
        f"{label} {_STEP_WORDS[step.status]} after {step.ms:.0f} ms, so "
        f"{_STEP_FALLBACK[label]}: {reason}."
    )


def _source_path(hit: Hit) -> str:
    """Where a result from an extra source root is on disk, at its first line: its label path
    (what `--path` takes) is not a path one can open."""
    return f"  ({one_line(hit.source_path or '')}:{hit.start_line})"


def _symbols(symbols: tuple[str, ...]) -> str:
    return ", ".join(one_line(symbol) for symbol in symbols[:6])


def _header(header: str) -> str:
    return _source_line(header.split("\n", 1)[0])


def _source_line(line: str) -> str:
    """One line of a file as shown: a CRLF file's CR dropped, everything else visible."""
    return one_line(line.removesuffix("\r"))


def _pending_line(result: SearchResult) -> str:
    """What waits for the configured model, and who ranks it meanwhile."""
    fast = result.tiers.get("fast")
    stand_in = "the fast tier and keywords rank" if fast and fast.used else "keywords rank"
    return (
        f"{result.pending_chunks} chunks in {result.pending_files} files have no vector from "
        f"the configured model yet ({stand_in} them); run 'wherein index' to finish."
    )


def _may_colour(stream: TextIO) -> bool:
    """Whether rich might see a terminal (or a notebook) here; when in doubt, True."""
    if any(name in os.environ for name in _RICH_TERMINAL_VARIABLES):
        return True
    if "IPython" in sys.modules or "idlelib" in sys.modules:
        return True
    isatty = getattr(stream, "isatty", None)
    try:
        return isatty is not None and bool(isatty())
    except ValueError:  # a closed stream: rich says not a terminal
        return False


def _plain_lines(result: SearchResult) -> list[str] | None:
    """print_results' lines as rich writes them to a non-terminal, or None for rich to do it.

    Rich only drops its styles there (the text is escaped already, so it finds no control
    character to strip); a tab it expands by cell width, which this leaves to rich.
    """
    lines: list[str] = []
    if not result.hits:
        lines.append("No results.")
    for hit in result.hits:
        title = f"{one_line(hit.path)}:{hit.start_line}-{hit.end_line}"
        if hit.source_path is not None:
            title += _source_path(hit)
        if hit.similarity is not None:
            title += f"  similarity {hit.similarity:.2f}"
        if hit.symbols:
            title += "  " + _symbols(hit.symbols)
        if hit.stale:
            title += "  (changed since indexed)"
        lines.append(title)
        width = len(str(hit.end_line))
        if hit.header:
            lines.append(f"{'':>{width}} | {_header(hit.header)}")
            lines.append(f"{'':>{width}} | ...")
        for offset, line in enumerate(hit.excerpt.split("\n")):
            lines.append(f"{hit.start_line + offset:>{width}} | " + _source_line(line))
        if hit.truncated:
            lines.append(f"{'':>{width}} | ... (cut; read the file for more)")
        lines.append("")
    if any("\t" in line for line in lines):
        return None
    return lines
