"""How a quotation reads: who said it and when, a label on a model's lines, the words verbatim.

The same lines serve the terminal (`wherein history search`) and the recall prompt, where they
sit inside the fence. Every line of quoted text is cleaned (control characters and Unicode
line separators escaped, as for code excerpts) and prefixed with `| `.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence

from wherein.history.fence import wrap_quotes
from wherein.history.records import AUTHOR_ASSISTANT
from wherein.history.search import HistoryResult, Quotation
from wherein.untrusted import clean_line, cut_middle

__all__ = ["ASSISTANT_LABEL", "MAX_QUOTE_CHARS", "quote_lines", "render_prompt_text"]

ASSISTANT_LABEL = "assistant wrote (a model's earlier output, not verified fact):"
USER_LABEL = "user wrote:"
# A shown quotation stops here, saying how much is left out: a pasted log in one message must
# not fill a terminal or a model's context. `--json` carries the whole message.
MAX_QUOTE_CHARS = 4000
# Before each quoted line: a message has no line numbers, so its lines start like a code
# excerpt's after the number (`wherein.plugin.presentation`), and none can begin a fence line.
EXCERPT_PREFIX = "| "
# A conversation's id or project name in a title: ids are 36 characters, folders short; a
# 200,000-character session id was a whole title, and went to the model.
MAX_NAME_CHARS = 120


def _title(quote: Quotation) -> str:
    conversation = cut_middle(clean_line(quote.conversation), MAX_NAME_CHARS)
    parts = [f"{quote.rank}. {quote.source} conversation {conversation}"]
    if quote.project:
        parts.append(f"in {cut_middle(clean_line(quote.project), MAX_NAME_CHARS)}")
    parts.append(f"message {quote.position} of {quote.count}")
    parts.append(quote.date.replace("T", " ").replace("Z", " UTC") if quote.date else "undated")
    if quote.similarity is not None:
        parts.append(f"similarity {quote.similarity:.2f}")
    return "  ".join(parts)


def quote_lines(quote: Quotation) -> list[str]:
    """The title, the author's label, then each line of the message, prefixed and cleaned."""
    label = ASSISTANT_LABEL if quote.author == AUTHOR_ASSISTANT else USER_LABEL
    text = quote.text
    cut = len(text) - MAX_QUOTE_CHARS
    if cut > 0:
        text = text[:MAX_QUOTE_CHARS]
    lines = [_title(quote), label]
    lines.extend(EXCERPT_PREFIX + clean_line(line) for line in text.split("\n"))
    if cut > 0:
        lines.append(f"{EXCERPT_PREFIX}[... {cut} more characters not shown]")
    return lines


def render_prompt_text(
    result: HistoryResult, token_hex: Callable[[int], str] = secrets.token_hex
) -> str:
    """The recall prompt's message: what was asked, then the quotations inside one fence."""
    asked = clean_line(result.query)
    if not result.results:
        return f"wherein found no earlier agent conversation on this machine matching: {asked}"
    lines: list[str] = []
    for quote in result.results:
        if lines:
            lines.append("")
        lines.extend(quote_lines(quote))
    _nonce, block = wrap_quotes(lines, token_hex)
    header = (
        f"wherein recalled {len(result.results)} earlier agent conversations on this machine "
        f"for: {asked}"
    )
    return "\n\n".join([header, block, *_notes(result.warnings)])


def _notes(warnings: Sequence[str]) -> list[str]:
    return [f"Note: {clean_line(w)}" for w in warnings]
