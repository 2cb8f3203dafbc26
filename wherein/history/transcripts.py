"""Which transcripts history reads: the Claude Code and Codex files the cost meter finds.

Discovery is the meter's (`CLAUDE_CONFIG_DIR`, `~/.claude`, `$CODEX_HOME/sessions`); files
are only ever opened for reading.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from wherein.history.claude import read_claude_conversation
from wherein.history.codex import read_codex_conversation
from wherein.history.records import SOURCE_CLAUDE, SOURCE_CODEX, Conversation
from wherein.meter.claude import claude_candidates, claude_transcripts
from wherein.meter.codex import codex_rollouts, codex_sessions_dir
from wherein.meter.jsonl import ReadStats

__all__ = ["Transcript", "find_transcripts", "read_conversation", "searched_places"]

# Claude Code keeps subagent transcripts under <session>/subagents/: every line there is a
# sidechain, so reading them would only find nothing.
SUBAGENTS_DIR = "subagents"


@dataclass(frozen=True)
class Transcript:
    """One conversation file and the agent that wrote it."""

    path: Path
    source: str


def find_transcripts(environ: Mapping[str, str] | None = None) -> list[Transcript]:
    """Every Claude Code transcript and Codex rollout of this user, sorted by path."""
    found = [
        Transcript(path, SOURCE_CLAUDE)
        for path in claude_transcripts(environ)
        if SUBAGENTS_DIR not in path.parts
    ]
    found.extend(Transcript(path, SOURCE_CODEX) for path in codex_rollouts(environ))
    return found


def searched_places(environ: Mapping[str, str] | None = None) -> list[str]:
    """Where `find_transcripts` looks, for a message saying it found nothing."""
    places = [str(p / "projects") for p in claude_candidates(environ)]
    places.append(str(codex_sessions_dir(environ)))
    return places


def read_conversation(transcript: Transcript, stats: ReadStats | None = None) -> Conversation:
    """The messages of one transcript."""
    if transcript.source == SOURCE_CLAUDE:
        return read_claude_conversation(transcript.path, stats)
    return read_codex_conversation(transcript.path, stats)
