"""The `status` action: the index, the embedder and whether its endpoint answers, read only.

An HTTP endpoint is asked once through `describe_embedder` (no retry, 10 s ceiling), exactly
as `wherein status` does; an in-process model is not loaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wherein.config import Settings
from wherein.embedding.probe import describe_embedder
from wherein.errors import ConfigError
from wherein.index.status import read_status
from wherein.redaction import redact

__all__ = ["describe_status"]


def describe_status(workspace: Path, settings: Settings, building: bool) -> tuple[dict, list]:
    """The `index` and `embedding` blocks of a status result, and its sentences."""
    raw = read_status(workspace)
    index = _index_fields(raw)
    embedding = _embedding_fields(settings, raw.get("embedder"))
    lines = [
        f"Workspace {workspace}.",
        _index_sentence(index, building),
        _embedding_sentence(embedding),
    ]
    return {"index": index, "embedding": embedding}, lines


def _index_fields(raw: dict[str, Any]) -> dict[str, Any]:
    """The index block, field by field, so a new status field cannot break the schema."""
    index: dict[str, Any] = {"exists": bool(raw["exists"]), "path": raw["index_path"]}
    for key in ("files", "skipped_files", "chunks", "vectors", "embedder", "size_bytes", "error"):
        if key in raw:
            index[key] = raw[key]
    if "pending" in raw:
        index["pending"] = {"files": raw["pending"]["files"], "chunks": raw["pending"]["chunks"]}
    return index


def _embedding_fields(settings: Settings, indexed: str | None) -> dict[str, Any]:
    try:
        described, error = describe_embedder(settings, indexed)
    except ConfigError as err:
        provider = settings["embedding.provider"]
        described = {
            "provider": provider,
            "model": settings["embedding.model"],
            "dim": None,
            "url": None,
            "answered": False,
        }
        error = redact(str(err), settings["embedding.api_key"])
    return {
        "provider": described["provider"],
        "model": described["model"],
        "dim": described["dim"],
        "in_process": described["url"] is None and error is None,
        "url": described["url"],
        "answered": described["answered"],
        "error": error,
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
        f"{index['pending']['chunks']} waiting for a vector; embedder {index['embedder']}."
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
