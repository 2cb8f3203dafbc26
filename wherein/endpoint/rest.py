"""An endpoint that just made someone wait is not asked again at once, by any process.

Each `wherein search` is a process of its own, so the rest an HTTP embedder takes after a miss
(`wherein.backoff.Backoff`) ended with it: against a wedged server every search paid the
whole probe again (10 s each; an agent's twenty searches, over three minutes). A miss that
cost a second or more is therefore kept in the data home, under the configured model, and a
search started within the rest ranks without the endpoint at once and says why. The rest
doubles with each such miss in a row, from 15 s to 5 min, and any answer ends it. A quick
failure (nothing listening) is not kept: asking again costs nothing, and the server may just
have started. A request a person makes on purpose (`wherein status`, `doctor`, `index`) asks
anyway (`forget_rest`).

The file is a hint, read and written like any control file (no link followed, bounded):
when it cannot be read or written, the endpoint is asked as if it were not there.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass

from wherein.embedding.registry import configured_model
from wherein.safe_files import UnsafeFile, read_regular, write_atomic
from wherein.settings import Settings
from wherein.storage.paths import data_home
from wherein.untrusted import one_line

__all__ = [
    "REST_FILE_NAME",
    "WORTH_RESTING_S",
    "Rest",
    "forget_rest",
    "note_answer",
    "note_miss",
    "rest_key",
    "resting",
]

REST_FILE_NAME = "endpoint-rest.json"
FIRST_REST_S = 15.0
REST_CEILING_S = 300.0
# A failed ask that took this long is worth not repeating; a refused connection takes
# milliseconds.
WORTH_RESTING_S = 1.0
MAX_FILE_BYTES = 64 << 10
MAX_ENTRIES = 32  # a handful of endpoints at most; the oldest go first past this
MAX_SAID_CHARS = 500


@dataclass(frozen=True)
class Rest:
    """A recent miss: what the endpoint's failure said, how long ago, and how long is left."""

    said: str
    ago_s: float
    left_s: float

    def message(self, asked_by: tuple[str, ...] = ("status", "index")) -> str:
        """What happened and when it is asked again; `asked_by` names the commands that ask
        at once (`forget_rest`)."""
        said = (
            f"{self.said} That was {self.ago_s:.0f} s ago; it is not asked again for "
            f"{self.left_s:.0f} s"
        )
        if not asked_by:
            return said + "."
        commands = " or ".join(f"'wherein {command}'" for command in asked_by)
        return f"{said}, or until {commands} asks it."


def rest_key(settings: Settings) -> str:
    """The configured endpoint and model, as settings name them."""
    return configured_model(settings)


def resting(key: str, now: float | None = None) -> Rest | None:
    """The rest `key` is in, or None when it may be asked."""
    entry = _read().get(key)
    if not isinstance(entry, dict):
        return None
    now = time.time() if now is None else now
    at, until, said = entry.get("at"), entry.get("until"), entry.get("said")
    if not all(isinstance(x, (int, float)) for x in (at, until)) or not isinstance(said, str):
        return None
    # A clock set back must not stretch a rest past its ceiling.
    left = min(until - now, REST_CEILING_S)
    if left <= 0:
        return None
    return Rest(one_line(said[:MAX_SAID_CHARS]), max(0.0, now - at), left)


def note_miss(key: str, said: str, now: float | None = None) -> float:
    """Keep a miss of `key`; the seconds of rest it starts (doubling with each in a row)."""
    now = time.time() if now is None else now
    entries = _read()
    previous = entries.get(key)
    misses = previous.get("misses") if isinstance(previous, dict) else 0
    until = previous.get("until") if isinstance(previous, dict) else None
    if not isinstance(until, (int, float)) or now - until > REST_CEILING_S:
        misses = 0  # not a miss in a row: the last rest ended long ago, unasked since
    misses = misses + 1 if isinstance(misses, int) and 0 <= misses < 64 else 1
    wait = min(FIRST_REST_S * 2 ** (misses - 1), REST_CEILING_S)
    entries[key] = {"at": now, "until": now + wait, "misses": misses, "said": said}
    _write(entries)
    return wait


def note_answer(key: str) -> None:
    """`key` answered: its rest, if any, is over."""
    entries = _read()
    if key in entries:
        del entries[key]
        _write(entries)


def forget_rest(settings: Settings) -> None:
    """Ask the configured endpoint at the next request, whatever a recent miss said."""
    note_answer(rest_key(settings))


def _path():
    return data_home() / REST_FILE_NAME


def _read() -> dict[str, object]:
    try:
        data = read_regular(_path(), max_bytes=MAX_FILE_BYTES)
        entries = json.loads(data) if data else {}
    except (UnsafeFile, OSError, ValueError, RecursionError):
        return {}
    return entries if isinstance(entries, dict) else {}


def _kept_at(item: tuple[str, object]) -> float:
    at = item[1].get("at") if isinstance(item[1], dict) else None
    return float(at) if isinstance(at, (int, float)) else 0.0


def _write(entries: dict[str, object]) -> None:
    kept = sorted(entries.items(), key=_kept_at)[-MAX_ENTRIES:]
    data = json.dumps(dict(kept)).encode()
    # A hint: a home that cannot be written (full, read-only, a link planted) costs only
    # the next search's wait.
    with contextlib.suppress(UnsafeFile, OSError):
        write_atomic(_path(), data, durable=False)
