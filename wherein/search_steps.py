"""The optional model steps of one search (query expansion, rerank), and what became of each.

Either step may be off, time out or fail: the search then returns what the index alone
ranks, and the step's status says why.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

from wherein.config import Settings
from wherein.index.store import ChunkRow
from wherein.ranking.expansion import Expansion
from wherein.ranking.rerank import rerank
from wherein.ranking.signals import Candidate
from wherein.ranking.step import OFF, StepStatus, start_step

__all__ = ["SearchSteps", "no_expansion"]


def no_expansion(text: str, settings: Settings) -> Expansion:
    """An expansion that is off: a search with no question in words has nothing to rephrase."""
    timeout = settings["expansion.timeout_s"]
    off = start_step("expansion", None, timeout_s=timeout, timeout_key="expansion.timeout_s")
    return Expansion(text, off)


class SearchSteps:
    """The optional model steps of one search, and what became of each."""

    def __init__(
        self,
        expansion: Expansion,
        settings: Settings,
        cancel: threading.Event | None,
        rerank: bool = True,
    ) -> None:
        self._expansion = expansion
        self._settings = settings
        self._cancel = cancel
        self._rerank = rerank  # a search with no question in words has nothing to rerank by
        self.expansion: StepStatus | None = None
        self.rerank = StepStatus(OFF)

    def phrasings(self) -> list[str]:
        """The model's phrasings of the query (the original is ranked already), or []."""
        queries, self.expansion = self._expansion.wait()
        return queries[1:]

    def reorder(
        self, query: str, ranked: list[Candidate], rows: Mapping[int, ChunkRow]
    ) -> list[Candidate]:
        """`ranked` reordered by the rerank model, when it is on and answers in time."""
        if not self._rerank:
            return ranked
        window = ranked[: self._settings["rerank.candidates"]]
        passages = [
            f"{rows[c.chunk_id].path}:{c.start_line}-{c.end_line}\n{rows[c.chunk_id].text}"
            for c in window
        ]
        ranked, self.rerank = rerank(query, ranked, passages, self._settings, self._cancel)
        return ranked

    def statuses(self) -> tuple[StepStatus, StepStatus]:
        expansion = self.expansion
        if expansion is None:  # the index had nothing to rank, so its answer was not awaited
            pending = self._expansion.pending
            if pending.started:
                expansion = StepStatus(OFF, "the index had nothing to rank")
            else:
                expansion = pending.wait()[1]
        return expansion, self.rerank
