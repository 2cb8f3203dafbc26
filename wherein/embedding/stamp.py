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
import tempfile
from pathlib import Path

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
    from wherein.index.location import data_home

    return data_home() / STAMP_RELATIVE


def _read_entries(stamp: Path) -> dict[str, dict]:
    """The stamp's entries; {} when it is missing, unreadable, malformed or not ours."""
    try:
        data = json.loads(stamp.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        return {}
    files = data.get("files")
    if not isinstance(files, dict):
        return {}
    return {key: value for key, value in files.items() if isinstance(value, dict)}


def _write_entry(stamp: Path, key: str, entry: dict) -> None:
    """Add or replace one entry, atomically; any failure leaves the stamp as it was."""
    try:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        files = _read_entries(stamp)
        files[key] = entry
        payload = json.dumps({"format": _FORMAT, "files": files}, indent=1, sort_keys=True)
        fd, temporary = tempfile.mkstemp(prefix=".verified-", suffix=".tmp", dir=stamp.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(payload)
            os.replace(temporary, stamp)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError:
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
