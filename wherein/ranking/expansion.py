"""Query expansion: a local chat model suggests other phrasings of the query (off by default).

The original query is always the first query and always ranked, whatever the model does: the
phrasings only add orders to the fusion after the original's (docs/contracts.md "Ranking"), so the
worst case is a search without expansion, never a failed one. Its benefit is unmeasured until
`scripts/bench.py --expansion` runs against a real model.
"""

from __future__ import annotations

import threading
from typing import Any

from wherein.ranking.chat import ask_model, chat_model, json_block, load_client, rest_key
from wherein.ranking.step import FAILED, USED, PendingStep, StepStatus, downgrade, start_step
from wherein.settings import Settings

__all__ = [
    "MAX_PHRASINGS",
    "SYSTEM_PROMPT",
    "Expansion",
    "expand_query",
    "parse_phrasings",
    "start_expansion",
]

# Each phrasing costs one more BM25 pass and one more vector pass; three covers synonyms, an
# identifier spelling and a broader wording without letting the model outvote the query.
MAX_PHRASINGS = 3
# A phrasing longer than this is an essay, not a search query.
MAX_PHRASING_CHARS = 200
# Keys a model may put its list under; the prompt asks for the first.
_LIST_KEYS = ("queries", "phrasings", "alternatives", "rewrites")

SYSTEM_PROMPT = (
    "You help search a software repository for code. Given a search query, write up to "
    f"{MAX_PHRASINGS} other ways to ask for the same code: synonyms, the identifier names "
    "the code probably uses (snake_case or CamelCase), the terms a programmer would use. "
    'Answer with only a JSON object, no prose: {"queries": ["...", "..."]}'
)


class Expansion:
    """An expansion in flight; `wait` gives the queries to rank, the original first."""

    def __init__(self, query: str, pending: PendingStep[str]) -> None:
        self.query = query
        self.pending = pending

    def wait(self) -> tuple[list[str], StepStatus]:
        """The queries to rank (`[query]` on any failure) and what happened.

        Raises:
            Exception: only a bug in the step; the model's failures are statuses.
        """
        answer, status = self.pending.wait()
        if status.status != USED or answer is None:
            return [self.query], status
        phrasings = parse_phrasings(answer, self.query)
        if not phrasings:
            return [self.query], downgrade(
                status,
                FAILED,
                'the model\'s answer held no usable phrasing (expected JSON {"queries": [...]})',
            )
        return [self.query, *phrasings], status


def start_expansion(
    query: str, settings: Settings, cancel: threading.Event | None = None
) -> Expansion:
    """Ask the model for phrasings in a worker thread, under `expansion.timeout_s`.

    Nothing is sent when `expansion.enabled` is false or `cancel` is already set.
    """

    def work() -> str:
        target = chat_model(settings, "expansion")
        return ask_model(target, SYSTEM_PROMPT, query, timeout_s=settings["expansion.timeout_s"])

    pending = start_step(
        "expansion",
        work if settings["expansion.enabled"] else None,
        timeout_s=settings["expansion.timeout_s"],
        timeout_key="expansion.timeout_s",
        cancel=cancel,
        prepare=load_client,
        rest_key=rest_key(settings, "expansion"),
    )
    return Expansion(query, pending)


def expand_query(
    query: str, settings: Settings, cancel: threading.Event | None = None
) -> tuple[list[str], StepStatus]:
    """`start_expansion` and wait: the queries to rank, the original first, and the status."""
    return start_expansion(query, settings, cancel).wait()


def parse_phrasings(answer: str, query: str) -> list[str]:
    """Up to MAX_PHRASINGS distinct phrasings from the model's answer; [] when none is usable.

    Accepted: `{"queries": [...]}` (or a few synonyms of that key) or a bare JSON list of
    strings, anywhere in the text. Non-strings, blanks and repeats of the query are dropped.
    """
    value: Any = json_block(answer)
    if isinstance(value, dict):
        value = next((value[key] for key in _LIST_KEYS if isinstance(value.get(key), list)), None)
    if not isinstance(value, list):
        return []
    seen = {query.casefold()}
    phrasings: list[str] = []
    for item in value:
        if not isinstance(item, str):
            continue
        text = " ".join(item.split())[:MAX_PHRASING_CHARS].strip()
        if not text or text.casefold() in seen:
            continue
        seen.add(text.casefold())
        phrasings.append(text)
        if len(phrasings) == MAX_PHRASINGS:
            break
    return phrasings
