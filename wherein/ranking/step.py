"""An optional model step of a search: its own deadline, the caller's cancellation, its status.

Query expansion and reranking call a local chat model that can be slow, wedged or absent, on
the critical path of a search. Each runs its model call in a worker thread against a deadline
of its own (docs/contracts.md "Ranking"): slow means the caller stops waiting at the deadline
and goes on with what it has; cancelled means it stops waiting at once and starts nothing more.
The worker's reads and writes carry the same deadline (`request_deadline`), so an abandoned
call ends on its own soon after and never holds a connection for longer than that.

A model that made a search wait out its deadline is not asked again at once, by any process
(`wherein.endpoint.rest`, under the step's `rest_key`): each `wherein search` is a process of
its own, and against a wedged server every one of them paid the whole deadline.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from wherein.config import KEYS, MAX_TIMEOUT_S, MIN_TIMEOUT_S
from wherein.errors import ModelTimeout, ModelUnreachable, WhereinError

__all__ = [
    "CANCELLED",
    "FAILED",
    "OFF",
    "STATUSES",
    "TIMED_OUT",
    "USED",
    "PendingStep",
    "StepStatus",
    "clamp_timeout",
    "downgrade",
    "start_step",
]

OFF = "off"
USED = "used"
TIMED_OUT = "timed_out"
FAILED = "failed"
CANCELLED = "cancelled"
STATUSES = (OFF, USED, TIMED_OUT, FAILED, CANCELLED)

# How often a waiting search looks at the caller's cancellation: a threading.Event cannot be
# waited on together with the worker's, and 20 ms is below what a person notices while
# costing 50 wake-ups a second only while a model call is in flight.
CANCEL_POLL_S = 0.02

T = TypeVar("T")


@dataclass(frozen=True)
class StepStatus:
    """What became of one optional step; `to_json` is its `search --json` object."""

    status: str = OFF
    reason: str | None = None
    ms: float = 0.0

    @property
    def degraded(self) -> bool:
        """True when the step was asked for and the search went on without (all of) it."""
        return self.status in (TIMED_OUT, FAILED, CANCELLED)

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "reason": self.reason, "ms": round(self.ms, 1)}


def clamp_timeout(seconds: float, key: str) -> float:
    """`seconds` within the bounds config uses; NaN becomes the key's default, never a deadline.

    Settings already clamp with a warning (`wherein.config`); this guards callers that pass a
    number of their own, so a NaN can never surface as "the model had nothing to say".
    """
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or math.isnan(seconds):
        return float(KEYS[key].default)
    return float(min(max(seconds, MIN_TIMEOUT_S), MAX_TIMEOUT_S))


class PendingStep(Generic[T]):
    """A model call running in a worker thread; `wait` collects it by the step's deadline."""

    def __init__(
        self,
        name: str,
        work: Callable[[], T] | None,
        *,
        timeout_s: float,
        timeout_key: str,
        cancel: threading.Event | None,
        prepare: Callable[[], None] | None = None,
        rest_key: str | None = None,
    ) -> None:
        self.name = name
        self.rest_key = rest_key
        self.timeout_s = clamp_timeout(timeout_s, timeout_key)
        self.timeout_key = timeout_key
        self.cancel = cancel
        self._value: T | None = None
        self._error: BaseException | None = None
        self._done = threading.Event()
        self._started = time.monotonic()
        self._ended: float | None = None
        self._outcome: tuple[T | None, StepStatus] | None = None
        self._asked = False
        kept = None if work is None or rest_key is None else _resting(rest_key)
        if work is None:
            self._outcome = (None, StepStatus(OFF))
        elif cancel is not None and cancel.is_set():
            self._outcome = (None, StepStatus(CANCELLED, "the search was cancelled before it"))
        elif kept is not None:
            self._outcome = (None, StepStatus(FAILED, kept.message(asked_by=())))
        else:
            self._asked = True
            if prepare is not None:
                prepare()  # on the step's clock: what it costs is added latency too
            worker = threading.Thread(
                target=self._run, args=(work,), daemon=True, name=f"wherein-{name}"
            )
            worker.start()

    @property
    def started(self) -> bool:
        """Whether a model call was made (a step that is off, cancelled or resting makes none)."""
        return self._asked

    def _run(self, work: Callable[[], T]) -> None:
        # Here, not at the top: transport loads httpx, which a search with no step never needs.
        from wherein.endpoint.transport import request_deadline

        try:
            # Reads, writes and connects end at the deadline too, so an abandoned call stops.
            with request_deadline(self._started + self.timeout_s - time.monotonic()):
                self._value = work()
        except BaseException as err:  # noqa: BLE001 - handed to the waiting thread, not lost
            self._error = err
        finally:
            self._ended = time.monotonic()
            self._done.set()

    def wait(self) -> tuple[T | None, StepStatus]:
        """The call's value and status; returns by the deadline, or at once on cancellation.

        Raises:
            Exception: a bug in the step (not a WhereinError) keeps its traceback.
        """
        if self._outcome is None:
            self._outcome = self._collect()
            self._keep_outcome(self._outcome[1])
        return self._outcome

    def _keep_outcome(self, status: StepStatus) -> None:
        """A wait of a second or more for nothing starts a rest; an answer ends one."""
        if self.rest_key is None:
            return
        from wherein.endpoint import rest

        answerless = status.status == TIMED_OUT or isinstance(self._error, ModelUnreachable)
        if status.status == USED:
            rest.note_answer(self.rest_key)
        elif answerless and status.ms >= rest.WORTH_RESTING_S * 1000.0:
            rest.note_miss(self.rest_key, f"The {self.name} model: {status.reason}.")

    def _collect(self) -> tuple[T | None, StepStatus]:
        deadline = self._started + self.timeout_s
        while not self._done.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                return None, self._status(TIMED_OUT, self._late())
            if self.cancel is None:
                self._done.wait(left)
                continue
            if self._done.wait(min(left, CANCEL_POLL_S)):
                break
            if self.cancel.is_set():
                return None, self._status(CANCELLED, "the search was cancelled")
        if isinstance(self._error, ModelTimeout):
            # The same words as when this thread's own clock runs out: the two race at the
            # deadline, and which one wins must not change what the user reads.
            return None, self._status(TIMED_OUT, self._late())
        if isinstance(self._error, WhereinError):  # ModelStepError, the guard's ConfigError
            return None, self._status(FAILED, str(self._error))
        if self._error is not None:
            raise self._error
        return self._value, self._status(USED, None)

    def _late(self) -> str:
        return (
            f"the model gave no answer within {self.timeout_s:g} s; raise "
            f"{self.timeout_key} if it is only slow"
        )

    def _status(self, status: str, reason: str | None) -> StepStatus:
        end = self._ended if self._ended is not None else time.monotonic()
        return StepStatus(status, reason, (end - self._started) * 1000.0)


def _resting(key: str):  # -> wherein.endpoint.rest.Rest | None
    # Imported here: a search with both steps off never reads the rest file.
    from wherein.endpoint import rest

    return rest.resting(key)


def start_step(
    name: str,
    work: Callable[[], T] | None,
    *,
    timeout_s: float,
    timeout_key: str,
    cancel: threading.Event | None = None,
    prepare: Callable[[], None] | None = None,
    rest_key: str | None = None,
) -> PendingStep[T]:
    """Start `work` (None: the step is off) in a worker thread under its own deadline.

    `prepare` runs first in the calling thread, on the step's clock (see `chat.load_client`).
    With a `rest_key`, a recent wait for nothing under that key fails the step at once.
    """
    return PendingStep(
        name,
        work,
        timeout_s=timeout_s,
        timeout_key=timeout_key,
        cancel=cancel,
        prepare=prepare,
        rest_key=rest_key,
    )


def downgrade(status: StepStatus, to: str, reason: str) -> StepStatus:
    """The same step's timing with a different outcome (an answer that was not usable)."""
    return replace(status, status=to, reason=reason)
