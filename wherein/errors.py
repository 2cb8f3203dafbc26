"""The project's errors: one base class, so the CLI and the MCP layer can catch only ours.

Hierarchy::

    WhereinError
    ├── UsageError          bad arguments: an empty query, a negative limit (CLI exit 2)
    ├── ConfigError         an unknown key, a bad value, a config file that does not parse
    ├── WorkspaceError      the workspace is missing, not a directory, or unreadable
    │   └── NoSuchWorkspace the folder --workspace names is not there (CLI exit 2)
    ├── IndexError_         base for index problems
    │   ├── IndexMissing    no index yet for this workspace
    │   │   └── HistoryMissing  no history index yet on this machine
    │   ├── IndexBusy       another process is writing the index
    │   └── IndexUnwritable the data directory or the index file cannot be written
    ├── EmbedderError       the embedding model could not load or answer
    │   ├── EndpointUnreachable  an embedding server did not answer in time (fail open)
    │   └── NoLocalEmbedder neither the in-process model nor a loopback endpoint answered
    │                       for history, which sends text nowhere else
    ├── ModelStepError      query expansion or reranking could not use its chat model
    │   └── ModelTimeout    the chat model did not answer before the step's deadline
    └── LedgerMissing       `wherein baseline` found no agent ledger to read

A remote endpoint refused for history is a `ConfigError` (exit code 2), as for code.

Every message names the thing and its value, then what to do, in one sentence.
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "EmbedderError",
    "EndpointUnreachable",
    "HistoryMissing",
    "IndexBusy",
    "IndexError_",
    "IndexMissing",
    "IndexUnwritable",
    "LedgerMissing",
    "ModelStepError",
    "NoLocalEmbedder",
    "NoSuchWorkspace",
    "ModelTimeout",
    "ModelUnreachable",
    "UsageError",
    "VectorsDamaged",
    "WhereinError",
    "WorkspaceError",
]


class WhereinError(Exception):
    """Base of every error wherein raises on purpose; `str(err)` is the user-facing message."""

    exit_code = 1


class UsageError(WhereinError):
    """The caller asked for something that cannot be done as asked."""

    exit_code = 2


class ConfigError(WhereinError):
    """A setting is unknown, malformed, or from a place that may not set it."""

    exit_code = 2


class WorkspaceError(WhereinError):
    """The workspace directory cannot be used."""


class NoSuchWorkspace(WorkspaceError):
    """The folder named as the workspace does not exist or is not a directory: a usage error,
    like any other argument that names nothing."""

    exit_code = 2


class IndexError_(WhereinError):  # noqa: N801 - the builtin IndexError is unrelated
    """Base for problems with the index file."""


class IndexMissing(IndexError_):
    """No index has been built for the workspace."""


class HistoryMissing(IndexMissing):
    """No history index has been built on this machine."""


class IndexBusy(IndexError_):
    """Another process holds the index write lock."""


class IndexUnwritable(IndexError_):
    """The index or its directory cannot be written (permissions, disk full)."""


class VectorsDamaged(IndexError_):
    """A tier's vectors hold a row that is not a unit vector: damaged since they were written
    (a cache file's bytes, or the index's own)."""

    def __init__(self, tier: str) -> None:
        super().__init__(
            f"The {tier} tier's stored vectors are damaged (a row is not a unit vector). "
            "Run 'wherein index': it embeds the damaged rows' chunks again."
        )
        self.tier = tier

    def ranked_without(self) -> str:
        """What a search that ranked without the tier says."""
        return (
            f"The {self.tier} tier's vectors in the index are damaged (a row is not a unit "
            "vector): ranked without them. Run 'wherein index': it embeds the damaged rows' "
            "chunks again."
        )


class EmbedderError(WhereinError):
    """The embedding model failed to load or to embed."""


class EndpointUnreachable(EmbedderError):
    """An embedding server refused, timed out or vanished: search falls back to keywords."""


class NoLocalEmbedder(EmbedderError):
    """No embedder on this machine answered; history has no other place to send text."""


class ModelStepError(WhereinError):
    """A chat model step (expansion, rerank) failed; the search goes on without it."""


class ModelTimeout(ModelStepError):
    """The chat model did not answer before the step's own deadline."""


class ModelUnreachable(ModelStepError):
    """The chat model's server could not be reached, or broke off without an answer."""


class LedgerMissing(WhereinError):
    """No agent ledger was found to read: name one with `--ledger FILE`."""
