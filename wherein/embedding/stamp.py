"""Hash a model file once, not at every start: `$WHEREIN_HOME/models/verified.json`.

A file whose sha256 matched is recorded with its stat (size, mtime, ctime, inode, device)
and the hash it matched. A later start whose stat is identical, for the same expected
hash, skips reading the file. Anything else (another stat, another expected hash, a
missing, malformed or foreign stamp) means hashing again. The stamp is written
atomically and only when the file's stat did not change while it was hashed; failing to
write it costs the next start a hash, nothing more.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from wherein.safe_files import (
    CONTROL_FILE_MAX_BYTES,
    UnsafeFile,
    not_regular,
    read_regular,
    write_atomic,
)
from wherein.storage.aside import move_aside

__all__ = ["STAMP_RELATIVE", "sha256_file", "verified_sha256"]

STAMP_RELATIVE = Path("models") / "verified.json"
_FORMAT = "wherein-verified-models-1"


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _fingerprint(stat: os.stat_result) -> dict[str, int]:
    return {
        "size": stat.st_size,
        "mtime_ns": stat.st_mtime_ns,
        "ctime_ns": stat.st_ctime_ns,
        "inode": stat.st_ino,
        "device": stat.st_dev,
    }


def _stamp_path() -> Path:
    from wherein.storage.paths import data_home

    return data_home() / STAMP_RELATIVE


def _read_entries(stamp: Path) -> dict[str, dict]:
    """The stamp's entries; {} when it is missing, unreadable, malformed, not ours, or not a
    regular file (a link is not followed, a FIFO not waited on)."""
    try:
        raw = read_regular(stamp, max_bytes=CONTROL_FILE_MAX_BYTES)
        data = json.loads(raw.decode("utf-8")) if raw is not None else None
    except (UnsafeFile, UnicodeDecodeError, ValueError, RecursionError):
        return {}
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        return {}
    files = data.get("files")
    if not isinstance(files, dict):
        return {}
    return {key: value for key, value in files.items() if isinstance(value, dict)}


def _write_entry(stamp: Path, key: str, entry: dict) -> None:
    """Add or replace one entry, atomically; any failure leaves the stamp as it was.

    A folder, FIFO or link at the stamp's name is moved aside (it may be someone's), so the
    next start is vouched for again instead of hashing the model for ever.
    """
    try:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        files = _read_entries(stamp)
        files[key] = entry
        payload = json.dumps({"format": _FORMAT, "files": files}, indent=1, sort_keys=True)
        if not_regular(stamp) is not None:
            move_aside(stamp)
        write_atomic(stamp, payload.encode("utf-8"))
    except (OSError, UnsafeFile):
        pass


def verified_sha256(path: Path, expected: str) -> str:
    """The file's sha256: `expected` itself when a stamp vouches for the unchanged file.

    Returns the actual hash otherwise, after recording a stamp when it equals `expected`.
    The caller compares the result with `expected` and refuses the file on a mismatch.

    Raises:
        OSError: the file cannot be read.
    """
    resolved = path.resolve()
    key = str(resolved)
    before = resolved.stat()
    stamp = _stamp_path()
    wanted = {**_fingerprint(before), "sha256": expected}
    if _read_entries(stamp).get(key) == wanted:
        return expected
    actual = sha256_file(resolved)
    if actual == expected and _fingerprint(resolved.stat()) == _fingerprint(before):
        _write_entry(stamp, key, wanted)
    return actual
