"""Turn changed files into records ready to write, in worker processes when it pays.

Preparing a file is reading it, hashing it, deciding whether it is skipped,
chunking it with tree-sitter and tokenizing each chunk for BM25: pure CPU work
with no index access, so it runs beside the process that writes SQLite.

A large batch goes to a pool of worker processes (`start_method` says how they
start); a small one (a search after a one-file edit) is prepared in-process, so it
never pays process start-up. Workers cannot outlive the process that started them:
on Linux the kernel sends them SIGKILL when their parent dies (PR_SET_PDEATHSIG), and
a watchdog thread in each worker exits when the process it works for is gone.
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import ctypes.util
import dataclasses
import hashlib
import multiprocessing
import os
import select
import signal
import sys
import threading
import types
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from wherein.chunking import chunk_source, skip_reason
from wherein.embedding.base import Embedder
from wherein.embedding.static import StaticEmbedder
from wherein.errors import EmbedderError
from wherein.index.store import NewChunk
from wherein.index.vector_tables import embedding_text
from wherein.ranking.tokens import document_terms
from wherein.storage.lexical import joined_terms
from wherein.workspace import SKIPPED_DIRS, FileEntry, SourceSkipped, read_source

__all__ = ["DEFAULT_WORKERS", "PreparedFile", "prepare_file", "prepare_files", "uses_pool"]

# Two workers on the usual 2-core machine: the main process mostly waits on
# SQLite I/O and unpickling, and the OS shares the cores among the three. One
# core gains nothing from a pool, so it prepares in-process.
DEFAULT_WORKERS = min(2, os.cpu_count() or 1) if (os.cpu_count() or 1) >= 2 else 0
# Below both bounds a batch is prepared in-process. Two spawned workers took
# 0.86 s to the first result on a loaded 2-core machine (interpreter, imports
# including numpy via the package inits, first grammar load), while in-process
# the stdlib took ~11 ms a file: the pool pays for itself from ~80 files
# (scripts/bench_prepare.py).
POOL_MIN_FILES = 64
POOL_MIN_BYTES = 1 << 20
# Files per task: enough to amortise the pickling round trip, few enough that
# the ordered stream does not wait long behind one slow task.
TASK_FILES = 8
# Files submitted ahead of the one the caller is consuming. It must cover the
# time the caller spends committing a batch (refresh commits every 200 files at most;
# writing them took ~1 s on the stdlib), or the workers idle while it writes:
# with 64 files in flight the pooled refresh was slower than in-process. It also
# bounds memory: ~20 chunks a file, so ~10k chunks (tens of MB) at most.
FILES_IN_FLIGHT = 512
PARENT_POLL_S = 0.5
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
# None: `start_method()` chooses; a name forces it (scripts/bench_prepare.py compares them).
START_METHOD: str | None = None
# What the fork server of `start_fork_server` imports before it forks anything.
WORKER_PRELOAD = "wherein.index.worker_preload"
# Names the folder whose languages the fork server compiles queries for (its environment
# is the only thing it is handed), and the most names it reads there to find them.
PRELOAD_FOLDER_ENV = "WHEREIN_PRELOAD_FOLDER"
PRELOAD_NAMES_READ = 20_000
_fork_server_started = False


@dataclass(frozen=True)
class PreparedFile:
    """One changed file, read and cut into chunks, or the reason it was not.

    `outcome` is "ok" (write it: `skipped` may still name a reason such as
    "binary" or "generated", with no chunks), "unchanged" (same sha256 as the
    index holds: only refresh its size and mtime), "vanished", or
    "unreadable" (write nothing; `why` says what the system said).
    """

    entry: FileEntry
    outcome: str
    size: int = 0
    mtime_ns: int = 0
    sha256: str = ""
    language: str = ""
    skipped: str | None = None
    chunks: tuple[NewChunk, ...] = ()
    why: str = ""


def prepare_file(
    entry: FileEntry,
    max_file_bytes: int,
    known_sha256: str | None,
    fast: Embedder | None = None,
) -> PreparedFile:
    """Prepare one file in this process; with `fast`, each chunk gets its fast-tier vector."""
    source = read_source(entry, max_file_bytes)
    if isinstance(source, SourceSkipped):
        if not source.remembered:  # "vanished", "unreadable"
            return PreparedFile(entry, source.reason, why=source.detail)
        # "binary", "too_large": remembered as skipped, so the stat fast path applies.
        return PreparedFile(entry, "ok", entry.size, entry.mtime_ns, skipped=source.reason)
    if known_sha256 is not None and known_sha256 == source.sha256:
        return PreparedFile(entry, "unchanged", source.size, source.mtime_ns, source.sha256)
    skipped = skip_reason(entry.rel, source.text)
    language = ""
    chunks: list[NewChunk] = []
    if skipped is None:
        language, pieces = chunk_source(entry.rel, source.text)
        path = entry.display_path
        texts = [embedding_text(path, p.symbols, p.header, p.text) for p in pieces]
        vectors = fast.embed(texts) if fast is not None and texts else None
        for number, (piece, embedded) in enumerate(zip(pieces, texts, strict=True)):
            terms = document_terms(path, piece.header, piece.text)
            chunks.append(
                NewChunk(
                    start_line=piece.start_line,
                    end_line=piece.end_line,
                    symbols=piece.symbols,
                    kind=piece.kind,
                    header=piece.header,
                    text=piece.text,
                    text_hash=hashlib.sha256(embedded.encode("utf-8", "surrogatepass")).hexdigest(),
                    terms=joined_terms(terms),
                    term_count=len(terms),
                    fast_vector=None if vectors is None else vectors[number].tobytes(),
                    prototypes=piece.prototypes,
                )
            )
    return PreparedFile(
        entry,
        "ok",
        source.size,
        source.mtime_ns,
        source.sha256,
        language,
        skipped,
        tuple(chunks),
    )


def uses_pool(entries: Sequence[FileEntry], workers: int | None = None) -> bool:
    """Whether `prepare_files` would start worker processes for these entries."""
    if (DEFAULT_WORKERS if workers is None else workers) < 1:
        return False
    if len(entries) >= POOL_MIN_FILES:
        return True
    return sum(entry.size for entry in entries) >= POOL_MIN_BYTES


def prepare_files(
    entries: Iterable[FileEntry],
    *,
    max_file_bytes: int,
    known_sha256: Mapping[str, str],
    workers: int | None = None,
    fast: Embedder | None = None,
    learned: Callable[[dict[str, list[int]]], None] | None = None,
) -> Iterator[PreparedFile]:
    """Prepare `entries`, yielding one `PreparedFile` each, in input order, as they are done.

    `known_sha256` maps a display path to the sha256 the index holds for it.
    `workers` is the pool size (default `DEFAULT_WORKERS`); 0 forces in-process
    work, and a batch too small to pay for process start-up is always done
    in-process. Results stream: at most a few tasks' worth are held at once.
    Closing the iterator early (or an exception in the caller) shuts the pool down.

    With `fast`, every chunk comes with its fast-tier vector, computed beside the
    chunking: in the workers when `fast` is the fast tier's own static model (each
    worker loads it once: 0.1 s), in this process otherwise. `learned` is handed the
    query pieces that model tokenized for the first time (`StaticEmbedder.take_learned_pieces`).
    """
    entries = list(entries)
    if not uses_pool(entries, workers):
        for entry in entries:
            known = known_sha256.get(entry.display_path)
            yield prepare_file(entry, max_file_bytes, known, fast)
            _pass_learned(fast, learned)
        return
    in_workers = fast is not None and fast.identity == StaticEmbedder.identity
    count = DEFAULT_WORKERS if workers is None else workers
    tasks = (
        [(entry, known_sha256.get(entry.display_path)) for entry in entries[i : i + TASK_FILES]]
        for i in range(0, len(entries), TASK_FILES)
    )
    with _pool(count) as pool, _lent_to_forked_workers(fast if in_workers else None):
        window: collections.deque[Future] = collections.deque()
        limit = max(count, FILES_IN_FLIGHT // TASK_FILES)
        for submitted, task in enumerate(tasks):
            # The pool starts a worker on each of the first `count` submits.
            hide = _starting_workers() if submitted < count else contextlib.nullcontext()
            with hide:
                window.append(pool.submit(_prepare_task, task, max_file_bytes, in_workers))
            if len(window) >= limit:
                yield from _task_result(window.popleft(), fast, in_workers, learned)
        while window:
            yield from _task_result(window.popleft(), fast, in_workers, learned)


def start_method() -> str:
    """`fork` while this process runs no other thread (on Linux), else `forkserver` when this
    process started one (`start_fork_server`), else `spawn`.

    A forked worker starts in milliseconds with this process's imports, grammars and fast
    model; a spawned one starts an interpreter and imports them again: 0.86 s to its first
    result on a loaded 2-core machine, most of a first search of a 200-file repository.
    Fork is safe only while no other thread can hold a lock at that instant (SQLite,
    logging, a model's), for the child would find it held forever: the MCP server runs
    index jobs in threads, so its workers come from the fork server it started before any
    thread, which has already imported the chunker, loaded the fast model and compiled the
    queries of the languages it saw in the served folder. The workers run no model of their
    own that uses threads (`_worker_init` turns the tokenizer's off) and leave by
    `os._exit`, so no inherited SQLite handle is ever closed in them.
    """
    if START_METHOD is not None:
        return START_METHOD
    if not sys.platform.startswith("linux"):
        return "spawn"
    if threading.active_count() == 1:
        return "fork"
    return "forkserver" if _fork_server_started else "spawn"


def start_fork_server(folder: Path | None = None) -> bool:
    """Start the fork server this process's pools will fork their workers from; False where
    there is none to start (not Linux) or it could not start (then workers are spawned).

    For a process that will index from threads (`wherein serve`), called before it starts
    any: the fork server imports `WORKER_PRELOAD` once, beside this process's own start
    (0.3 s of the other core), where each spawned worker paid its imports and model on the
    first search's clock (0.3-0.5 s more than a forked one). With `folder`, it also compiles
    the declaration queries of the languages whose files it sees there (`preload_worker`).
    """
    global _fork_server_started
    if not sys.platform.startswith("linux"):
        return False
    from multiprocessing import forkserver

    forkserver.set_forkserver_preload([WORKER_PRELOAD])
    # The fork server inherits this environment when it starts, and reads it only then.
    previous = os.environ.pop(PRELOAD_FOLDER_ENV, None)
    if folder is not None:
        os.environ[PRELOAD_FOLDER_ENV] = str(folder)
    try:
        forkserver.ensure_running()
    except OSError:
        return False
    finally:
        os.environ.pop(PRELOAD_FOLDER_ENV, None)
        if previous is not None:
            os.environ[PRELOAD_FOLDER_ENV] = previous
    _fork_server_started = True
    return True


def preload_worker() -> None:
    """What `WORKER_PRELOAD` readies in the fork server, for every worker it forks: the
    chunker's and the fast tier's imports, the fast model (loading it fails quietly: each
    worker then meets the error, and reports it, as without the fork server), and the
    declaration queries of the languages seen in `PRELOAD_FOLDER_ENV`'s folder, which each
    worker would otherwise compile for itself (C++'s: 0.1 s).
    """
    os.environ["TOKENIZERS_PARALLELISM"] = "false"  # no thread pool in a process that forks
    _worker_fast_embedder()
    folder = os.environ.pop(PRELOAD_FOLDER_ENV, None)
    if folder:
        from wherein.chunking.languages import definition_query, parser_for

        for language in sorted(languages_seen(Path(folder), PRELOAD_NAMES_READ)):
            with contextlib.suppress(Exception):  # a grammar the pack lacks: the worker's to meet
                if parser_for(language) is not None:
                    definition_query(language)


def languages_seen(folder: Path, limit: int) -> set[str]:
    """The languages of the files named in `folder`, from their names alone, reading at most
    `limit` names: a guess at what indexing it will parse (no file is opened, no link
    followed, the folders indexing skips are skipped; ignore files are not read)."""
    from wherein.chunking.languages import language_for

    found: set[str] = set()
    read = 0
    pending = [folder]
    while pending and read < limit:
        try:
            with os.scandir(pending.pop()) as entries:
                for entry in entries:
                    read += 1
                    if read > limit:
                        break
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name not in SKIPPED_DIRS and not entry.name.startswith("."):
                            pending.append(Path(entry.path))
                    elif entry.is_file(follow_symlinks=False):
                        language = language_for(entry.name)
                        if language is not None:
                            found.add(language)
        except OSError:
            continue
    return found


def _task_result(
    done: Future,
    fast: Embedder | None,
    in_workers: bool,
    learned: Callable[[dict[str, list[int]]], None] | None,
) -> list[PreparedFile]:
    prepared, pieces = done.result()
    if pieces and learned is not None:
        learned(pieces)
    prepared = _with_fast(prepared, fast, in_workers)
    _pass_learned(None if in_workers else fast, learned)
    return prepared


def _pass_learned(
    fast: Embedder | None, learned: Callable[[dict[str, list[int]]], None] | None
) -> None:
    """Hand `learned` what this process's fast model tokenized for the first time."""
    take = getattr(fast, "take_learned_pieces", None)
    if take is not None and learned is not None:
        pieces = take()
        if pieces:
            learned(pieces)


def _with_fast(
    prepared: list[PreparedFile], fast: Embedder | None, done: bool
) -> list[PreparedFile]:
    """Add fast-tier vectors in this process to what the workers prepared without them."""
    if fast is None or done:
        return prepared
    out = []
    for item in prepared:
        if item.chunks:
            path = item.entry.display_path
            texts = [embedding_text(path, c.symbols, c.header, c.text) for c in item.chunks]
            vectors = fast.embed(texts)
            chunks = tuple(
                dataclasses.replace(c, fast_vector=v.tobytes())
                for c, v in zip(item.chunks, vectors, strict=True)
            )
            item = dataclasses.replace(item, chunks=chunks)
        out.append(item)
    return out


@contextlib.contextmanager
def _pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    # Forked and spawned workers are our children, started by the thread that submits
    # (PR_SET_PDEATHSIG fires when that *thread* ends, so the pool must not outlive the
    # thread iterating `prepare_files`; `_pool` guarantees it). A fork server's workers are
    # its children, not ours: they watch this process itself (`_worker_init`).
    method = start_method()
    context = multiprocessing.get_context(method)
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=_worker_init,
        initargs=(os.getpid(), method != "forkserver"),
    )
    try:
        yield pool
    finally:
        # Drop queued tasks; wait for the running ones so every pipe and
        # semaphore is closed here, not by the garbage collector.
        pool.shutdown(wait=True, cancel_futures=True)


@contextlib.contextmanager
def _lent_to_forked_workers(fast: Embedder | None) -> Iterator[None]:
    """Let forked workers inherit this process's loaded fast model (0.2 s each to load)."""
    if fast is None or _WORKER_FAST:
        yield
        return
    _WORKER_FAST.append(fast)
    try:
        yield
    finally:
        _WORKER_FAST.clear()


@contextlib.contextmanager
def _starting_workers() -> Iterator[None]:
    """Start workers that ignore Ctrl-C from birth and never re-run the caller's `__main__`.

    The terminal sends SIGINT to the whole process group. `_worker_init` ignores it, but
    only once the worker has imported this package; a Ctrl-C before that printed a
    worker's KeyboardInterrupt traceback. An ignored signal stays ignored across exec,
    and Python installs its SIGINT handler only where the signal is at its default, so
    a worker spawned while the parent ignores SIGINT ignores it from its first
    instruction. (Only the main thread may change a handler; elsewhere, as in the MCP
    server's job threads, there is no terminal to press Ctrl-C in.)

    `spawn` re-imports the main module in each child so that functions defined
    there can be unpickled; the workers run only this module's code. Without this,
    a script that calls `refresh_index` outside an `if __name__ == "__main__":`
    guard would start workers that run the script again (multiprocessing then
    refuses, and the pool breaks), and every worker would pay for importing the
    caller's main module (the CLI, the MCP server).
    """
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")  # no __file__, no __spec__
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if in_main_thread else None
    try:
        yield
    finally:
        if in_main_thread:
            signal.signal(signal.SIGINT, previous)
        if main is None:
            del sys.modules["__main__"]
        else:
            sys.modules["__main__"] = main


def _prepare_task(
    task: list[tuple[FileEntry, str | None]], max_file_bytes: int, fast_tier: bool
) -> tuple[list[PreparedFile], dict[str, list[int]]]:
    """The task's files, and the query pieces this worker tokenized first in them."""
    fast = _worker_fast_embedder() if fast_tier else None
    if fast is not None:
        fast.expect_indexing()
    prepared = [prepare_file(entry, max_file_bytes, known, fast) for entry, known in task]
    return prepared, ({} if fast is None else fast.take_learned_pieces())


_WORKER_FAST: list[StaticEmbedder | None] = []


def _worker_fast_embedder() -> StaticEmbedder | None:
    """The fast tier's model in this worker, loaded at its first task that needs it.

    None when it cannot load: the chunks go without vectors, and the caller's own
    fill of the fast tier reports the error.
    """
    if not _WORKER_FAST:
        try:
            _WORKER_FAST.append(StaticEmbedder())
        except EmbedderError:
            _WORKER_FAST.append(None)
    return _WORKER_FAST[0]


def _worker_init(owner_pid: int, owner_is_parent: bool) -> None:
    """Tie this worker's life to the process it works for, and leave Ctrl-C to that one."""
    # The terminal sends SIGINT to the whole process group; the parent decides
    # what to do (it shuts the pool down), the worker finishes its task quietly.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Two workers already share two cores; and a forked child of a process whose
    # tokenizer ran its thread pool would otherwise warn about it on stderr.
    os.environ["TOKENIZERS_PARALLELISM"] = "false"
    if sys.platform.startswith("linux"):
        _set_parent_death_signal(signal.SIGKILL)
    if owner_is_parent:
        # The parent may have died before the line above took effect.
        if os.getppid() != owner_pid:
            os._exit(1)
        watch, target = _exit_when, (lambda: os.getppid() != owner_pid)
    else:
        # A fork server's child: its parent outlives the owner while any worker holds
        # the server's pipe, so the owner itself is watched, through a pidfd (opened
        # while the owner that just asked for this worker is alive: no reused pid).
        try:
            target = os.pidfd_open(owner_pid)
        except ProcessLookupError:
            os._exit(1)
        except (AttributeError, OSError):  # no pidfd (an old kernel): poll the pid
            watch, target = _exit_when, (lambda: not _exists(owner_pid))
        else:
            watch = _exit_when_readable
    threading.Thread(target=watch, args=(target,), name="wherein-parent-watch", daemon=True).start()


def _set_parent_death_signal(signum: int) -> None:
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, int(signum), 0, 0, 0)


def _exit_when(gone: Callable[[], bool]) -> None:
    """Exit once `gone()` says the process worked for is gone, asked every PARENT_POLL_S:
    the parent (the worker is re-parented), or a pid without a pidfd to wait on."""
    stop = threading.Event()
    while not stop.wait(PARENT_POLL_S):
        if gone():
            os._exit(1)


def _exit_when_readable(pidfd: int) -> None:
    """Exit once the process `pidfd` names has ended (the descriptor becomes readable)."""
    ended = select.poll()
    ended.register(pidfd, select.POLLIN)
    ended.poll()
    os._exit(1)


def _exists(pid: int) -> bool:
    """Whether a process of ours has `pid` (a reused pid goes unnoticed)."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):  # gone, or another user's since
        return False
    return True
