"""Search results as text for people: location, similarity, symbols, numbered excerpt."""

from __future__ import annotations

from typing import TextIO

from wherein.search import SearchResult

__all__ = ["print_results"]

# A degraded model step, in words: what happened and what the results are instead.
_STEP_WORDS = {"timed_out": "timed out", "failed": "failed", "cancelled": "was cancelled"}
_STEP_FALLBACK = {
    "Query expansion": "the results rank the query as written",
    "Reranking": "the results keep the fused order",
}


def print_results(result: SearchResult, stream: TextIO) -> None:
    """Print results, coloured when `stream` is a terminal."""
    from rich.console import Console
    from rich.text import Text

    console = Console(file=stream, highlight=False, soft_wrap=True)
    if not result.hits:
        console.print("No results.", style="yellow" if console.is_terminal else None)
    for hit in result.hits:
        title = Text()
        title.append(f"{hit.path}:{hit.start_line}-{hit.end_line}", style="bold cyan")
        if hit.similarity is not None:
            title.append(f"  similarity {hit.similarity:.2f}", style="dim")
        if hit.symbols:
            title.append("  " + ", ".join(hit.symbols[:6]), style="green")
        if hit.stale:
            title.append("  (changed since indexed)", style="yellow")
        console.print(title)
        width = len(str(hit.end_line))
        if hit.header:
            console.print(Text(f"{'':>{width}} | {hit.header.splitlines()[0]}", style="dim"))
            console.print(Text(f"{'':>{width}} | ...", style="dim"))
        for offset, line in enumerate(hit.excerpt.split("\n")):
            row = Text(f"{hit.start_line + offset:>{width}} | ", style="dim")
            row.append(line)
            console.print(row)
        if hit.truncated:
            console.print(Text(f"{'':>{width}} | ... (cut; read the file for more)", style="dim"))
        console.print()
    for label, step in (("Query expansion", result.expansion), ("Reranking", result.rerank)):
        if step.degraded:
            # Text, not markup: a reason may quote the model's JSON, brackets and all.
            console.print(Text(
                f"{label} {_STEP_WORDS[step.status]} after {step.ms:.0f} ms, so "
                f"{_STEP_FALLBACK[label]}: {(step.reason or 'no reason given').rstrip('.')}.",
                style="yellow" if console.is_terminal else "",
            ))  # fmt: skip
    if result.pending_chunks:
        console.print(
            f"{result.pending_chunks} chunks in {result.pending_files} files are not embedded "
            "yet (keyword ranking covers them); run 'wherein index' to finish.",
            style="yellow" if console.is_terminal else None,
        )
