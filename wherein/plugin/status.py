"""The `status` action: the index, the embedder and whether its endpoint answers, read only.

An HTTP endpoint is asked once through `describe_embedder` (no retry, 10 s ceiling), exactly
as `wherein status` does; an in-process model is not loaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wherein.config import Settings
from wherein.embedding.probe import EmbedderStatus, describe_embedder, refused_embedder
from wherein.errors import ConfigError
from wherein.index.status import IndexStatus, read_status
from wherein.storage.room import low_room

__all__ = ["describe_status"]


def describe_status(workspace: Path, settings: Settings, building: bool) -> tuple[dict, list]:
    """The `index` and `embedding` blocks of a status result, and its sentences."""
    status = read_status(workspace)
    try:
        embedder = describe_embedder(settings, status.embedder)
    except ConfigError as err:  # the MCP status still shows the index; the CLI exits 2
        embedder = refused_embedder(settings, err)
    index = _index_fields(status)
    embedding = _embedding_fields(settings, embedder)
    lines = [
        f"Workspace {workspace}.",
        _index_sentence(index, building),
        _embedding_sentence(embedding),
    ]
    if index.get("low_disk"):
        lines.append(index["low_disk"])
    return {"index": index, "embedding": embedding}, lines


def _index_fields(status: IndexStatus) -> dict[str, Any]:
    """The MCP `index` block (docs/contracts.md): the counts only when they were read."""
    index: dict[str, Any] = {"exists": status.exists, "path": str(status.index_path)}
    if status.error is not None:
        index["error"] = status.error
    elif status.exists:
        index |= {
            "files": status.files,
            "skipped_files": status.skipped_files,
            "chunks": status.chunks,
            "vectors": status.vectors,
            "embedder": status.embedder,
            "size_bytes": status.size_bytes,
            "pending": {"files": status.pending_files, "chunks": status.pending_chunks},
            "low_disk": low_room(status.index_path.parent, status.pending_chunks),
        }
    return index


def _embedding_fields(settings: Settings, embedder: EmbedderStatus) -> dict[str, Any]:
    return {
        "provider": embedder.provider,
        "model": embedder.model,
        "dim": embedder.dim,
        "in_process": embedder.in_process,
        "url": embedder.url,
        "answered": embedder.answered,
        "error": embedder.error,
        "api_key_set": bool(settings["embedding.api_key"]),
        "allow_remote": bool(settings["embedding.allow_remote"]),
    }


def _index_sentence(index: dict[str, Any], building: bool) -> str:
    if building and (not index["exists"] or "error" in index):
        # The job has only begun creating the file; its schema may not be written yet.
        return "The index is being created by the running job."
    if not index["exists"]:
        return "No index yet: recall action=index builds it (a search also builds what it can)."
    if "error" in index:
        return f"The index at {index['path']} cannot be read: {index['error']}."
    return (
        f"Index: {index['files']} files, {index['chunks']} chunks, "
        f"{index['pending']['chunks']} waiting for a vector; embedder "
        f"{index['embedder'] or '(none yet: the fast tier and keywords rank)'}."
    )


def _embedding_sentence(embedding: dict[str, Any]) -> str:
    model = f" ({embedding['model']})" if embedding["model"] else ""
    name = f"Embedding: {embedding['provider']}{model}"
    if embedding["in_process"]:
        return f"{name}, in process."
    if embedding["answered"]:
        return f"{name} at {embedding['url']}: the endpoint answered."
    where = f" at {embedding['url']}" if embedding["url"] else ""
    return (
        f"{name}{where}: no answer ({embedding['error']}); searches rank by keywords until it "
        "answers."
    )
