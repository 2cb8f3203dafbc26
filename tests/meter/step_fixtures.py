"""A generic ledger whose context-by-step and cost-by-day figures are computed by hand.

Seven sessions of gpt-5-codex (input 1.25, cache write 1.25, cache read 0.125, output 10 per
million tokens). Session number i's request at step k has input 100, cache write 20, cache
read 1000 k + 10 i and output 50, so its context is 120 + 1000 k + 10 i tokens.

  baseline: b1..b4 (i = 1..4) with 5, 4, 3, 2 requests
  recall:   r5..r7 (i = 5..7) with 3, 3, 2 requests; usage.jsonl has one search per session
            (1,000 chars returned of 9,000 in the source)

Context by step (mean over the sessions that reached it):
  baseline  step 1: 4 sessions, 120 + 1000 + 25 = 1,145; step 2: 4 sessions, 2,145;
            step 3: 3 sessions (b1..b3, mean i = 2), 3,140; steps 4-5: 2 and 1 sessions, cut:
            3 requests left out
  recall    step 1: 3 sessions, 120 + 1000 + 60 = 1,180; step 2: 3 sessions, 2,180;
            step 3: 2 sessions, cut: 2 requests left out
Days (UTC): b1, b2, r5 on 2026-11-01; b3, b4, r6, r7 on 2026-11-03; none on 2026-11-02.
The file lists the rows newest first, so reading must sort each session by time.
"""

from __future__ import annotations

import json
from pathlib import Path

MODEL = "gpt-5-codex"
SESSIONS = {  # name: (i, requests, day, project)
    "b1": (1, 5, "2026-11-01", "/srv/shop"),
    "b2": (2, 4, "2026-11-01", "/srv/shop"),
    "r5": (5, 3, "2026-11-01", "/srv/api"),
    "b3": (3, 3, "2026-11-03", "/srv/api"),
    "b4": (4, 2, "2026-11-03", "/srv/shop"),
    "r6": (6, 3, "2026-11-03", "/srv/api"),
    "r7": (7, 2, "2026-11-03", "/srv/shop"),
}
RECALL_SESSIONS = ("r5", "r6", "r7")
INPUT, WRITE, OUTPUT = 100, 20, 50
RATES = {"input": 1.25, "cache_write": 1.25, "cache_read": 0.125, "output": 10.0}


def cache_read(i: int, step: int) -> int:
    return 1000 * step + 10 * i


def request_parts(i: int, step: int) -> dict[str, float]:
    """USD of one request, by part of the report's cost split."""
    return {
        "cache_read": cache_read(i, step) * RATES["cache_read"] / 1e6,
        "input": INPUT * RATES["input"] / 1e6,
        "cache_write": WRITE * RATES["cache_write"] / 1e6,
        "output": OUTPUT * RATES["output"] / 1e6,
    }


def write_step_ledger(folder: Path, wherein_home: Path | None = None) -> Path:
    """Write `folder/steps.jsonl` (and the usage rows under `wherein_home`); returns the ledger."""
    rows = []
    for name, (i, requests, day, project) in SESSIONS.items():
        for step in range(1, requests + 1):
            rows.append(
                {
                    "time": f"{day}T{8 + i:02d}:{step:02d}:00Z",
                    "session": name,
                    "model": MODEL,
                    "input_tokens": INPUT,
                    "cache_read_tokens": cache_read(i, step),
                    "cache_write_tokens": WRITE,
                    "output_tokens": OUTPUT,
                    "project": project,
                }
            )
    rows.reverse()
    folder.mkdir(parents=True, exist_ok=True)
    ledger = folder / "steps.jsonl"
    ledger.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    if wherein_home is not None:
        wherein_home.mkdir(parents=True, exist_ok=True)
        usage = [
            {
                "time": f"{SESSIONS[name][2]}T{8 + SESSIONS[name][0]:02d}:01:30Z",
                "session": name,
                "workspace": "/srv/api",
                "action": "search",
                "results": 4,
                "returned_chars": 1000,
                "source_chars": 9000,
                "paths_hash": "0",
            }
            for name in RECALL_SESSIONS
        ]
        (wherein_home / "usage.jsonl").write_text(
            "".join(json.dumps(row) + "\n" for row in usage), encoding="utf-8"
        )
    return ledger
