"""A progress bar with ETA for long work, shown only when stderr is a terminal."""

from __future__ import annotations

import time
from typing import TextIO

__all__ = ["ProgressDisplay"]

# Redraws at most this often. The bar is drawn from `update`, not by rich's refresh thread: a
# process running a second thread spawns its chunking workers instead of forking them
# (`wherein.index.prepare.start_method`), and the first search in a terminal would pay it.
REDRAW_EVERY_S = 0.1

STAGE_LABELS = {
    "scan": "Reading files",
    "fast": "Fast-tier vectors",
    "model": "Loading the model",
    "embed": "Embedding chunks",
}


class ProgressDisplay:
    """Context manager whose `update(stage, done, total)` drives one rich bar per stage.

    With `lazy`, nothing is drawn (nor rich imported, 40 ms) until an update shows work
    left: a search in a terminal draws a bar only when it has files to read.
    """

    def __init__(self, stream: TextIO, lazy: bool = False) -> None:
        self.enabled = stream.isatty()
        self.stream = stream
        self.lazy = lazy
        self._progress = None
        self._tasks: dict[str, object] = {}
        self._drawn_at = 0.0

    def __enter__(self) -> ProgressDisplay:
        if self.enabled and not self.lazy:
            self._start()
        return self

    def _start(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=Console(file=self.stream),
            transient=True,
            auto_refresh=False,
        )
        self._progress.start()

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()

    def update(self, stage: str, done: int, total: int) -> None:
        if self._progress is None:
            if not (self.enabled and self.lazy and done < total):
                return
            self._start()
        task = self._tasks.get(stage)
        if task is None:
            task = self._progress.add_task(STAGE_LABELS.get(stage, stage), total=total)
            self._tasks[stage] = task
        self._progress.update(task, completed=done, total=total)
        now = time.monotonic()
        if done >= total or now - self._drawn_at >= REDRAW_EVERY_S:
            self._drawn_at = now
            self._progress.refresh()
