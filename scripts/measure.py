"""Scale benchmark: index and search the CPython standard library, against same-run baselines.

A shared 2-core machine is noisy, so every figure is printed beside a baseline measured in the
same run (and CPU seconds beside wall seconds). The targets:

1. walk + hash + chunk + BM25 write, no embedding: <= 30 s (baseline: plain os.walk + read +
   sha256 of the same tree). `wherein index` has no switch to skip embedding, so this runs the
   first half of `build_index` (lock, open_store, refresh_index) in a fresh process.
2. embedding throughput of the index pipeline (`embed_pending`) within 15% of the raw model
   (`MiniLMEmbedder().embed` on the same texts, in the same batches, bracketing the pipeline).
   `--embed-sample N` measures both on N chunks spread over the index (the other chunks get
   placeholder unit vectors so nothing else is pending); `--embed-sample 0` embeds everything.
3. a no-op `wherein index`: <= 1.5 s (baseline: os.walk + lstat of the same tree).
4. `wherein search` as a fresh process: p50 <= 500 ms (baselines: `python -c "import wherein"`
   and the model load alone).
5. peak RSS of `wherein index` from scratch: <= 1 GB (stopped by SIGINT once it has embedded a
   few batches, after which RSS is flat; the time series is in the JSON).

Run: python scripts/measure.py [--corpus DIR] [--embed-sample N | --skip-embed] [--out FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import platform
import shutil
import signal
import sqlite3
import stat
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

TARGET_INDEX_S = 30.0
TARGET_EMBED_RATIO = 0.85  # the pipeline within 15% of the raw model
TARGET_NOOP_S = 1.5
TARGET_SEARCH_P50_S = 0.5
TARGET_RSS_MB = 1024.0
DEFAULT_EMBED_SAMPLE = 2000
# Repeats for the cheap baselines and the no-op refresh; medians are reported.
REPEATS = 3
# The RSS run stops after this many embedded chunks: the embed loop holds one batch at a time,
# so RSS is flat after the first few batches (the JSON keeps the time series to show it).
RSS_RUN_CHUNKS = 640
RSS_POLL_S = 0.25
SIGINT_GRACE_S = 60.0
# Varied: natural-language questions and bare identifiers, across the library.
QUERIES = (
    "how are HTTP redirects followed",
    "parse email message headers",
    "SSL certificate hostname verification",
    "thread pool executor shutdown wait",
    "json encoder for floats and infinity",
    "walk a directory tree recursively",
    "run_until_complete",
    "TarFile extractall",
    "decimal rounding modes",
    "compile a regular expression pattern cache",
    "urlopen timeout",
    "pickle protocol version",
    "Popen communicate",
    "zipfile deflate compression",
    "rotating log file handler",
)
WARMUP_QUERY = "where is the garbage collector tuned"
# Never copied: third-party packages are not the standard library, and __pycache__ is skipped
# by the walk anyway.
COPY_IGNORED_TOP = frozenset({"site-packages"})
COPY_IGNORED_ANYWHERE = frozenset({"__pycache__"})
# The model-load baseline runs as a bare snippet, so no import of this script counts against it.
MODEL_LOAD_SNIPPET = (
    "import json, time; t = time.perf_counter(); "
    "from wherein.embedding.minilm import MiniLMEmbedder; i = time.perf_counter(); "
    "MiniLMEmbedder(); "
    "print(json.dumps({'import_s': i - t, 'load_s': time.perf_counter() - i}))"
)


def _embed_batch() -> int:
    from wherein.index.refresh import EMBED_BATCH

    return EMBED_BATCH


def _index_db(workspace: Path, home: str | None = None) -> Path:
    from wherein.index.location import INDEX_FILE_NAME, index_dir

    return index_dir(workspace, {"WHEREIN_HOME": home} if home else None) / INDEX_FILE_NAME


def _skipped_dirs() -> frozenset[str]:
    from wherein.workspace import SKIPPED_DIRS

    return SKIPPED_DIRS


@dataclass
class Run:
    """One finished subprocess: wall and CPU seconds, peak RSS, exit code, output."""

    wall_s: float
    cpu_s: float
    maxrss_mb: float
    returncode: int
    stdout: str
    stderr: str

    def json_tail(self) -> dict:
        """The last stdout line as JSON (drivers print one object there)."""
        lines = [line for line in self.stdout.splitlines() if line.strip()]
        if self.returncode != 0 or not lines:
            raise RuntimeError(f"subprocess failed ({self.returncode}): {self.stderr[-2000:]}")
        return json.loads(lines[-1])


def run(cmd: list[str], env: dict[str, str], on_poll=None, cwd: Path | None = None) -> Run:
    """Run `cmd` and collect its own rusage with wait4 (RUSAGE_CHILDREN would mix children).

    `on_poll(proc, elapsed)` is called every RSS_POLL_S while the process runs. `cwd`
    matters to `python -m`, which puts it first on the path, before PYTHONPATH.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(
            cmd,
            env=env,
            cwd=cwd,
            stdout=out,
            stderr=err,
            stdin=subprocess.DEVNULL,
            # A shell without job control starts background jobs with SIGINT ignored, and the
            # child would inherit that: restore the default so the RSS run can be interrupted.
            preexec_fn=_default_sigint if on_poll else None,
        )
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG if on_poll else 0)
            if pid:
                break
            on_poll(proc, time.perf_counter() - started)
            time.sleep(RSS_POLL_S)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        return Run(
            wall_s=wall,
            cpu_s=usage.ru_utime + usage.ru_stime,
            maxrss_mb=usage.ru_maxrss / 1024,  # KiB on Linux
            returncode=proc.returncode,
            stdout=out.read().decode("utf-8", "replace"),
            stderr=err.read().decode("utf-8", "replace"),
        )


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def median_run(runs: list[Run]) -> dict:
    return {
        "wall_s": statistics.median(r.wall_s for r in runs),
        "cpu_s": statistics.median(r.cpu_s for r in runs),
        "maxrss_mb": max(r.maxrss_mb for r in runs),
        "walls": [round(r.wall_s, 3) for r in runs],
    }


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile: with 15 samples p50 is the 8th, p90 the 14th."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * share // 1))
    return ordered[int(rank) - 1]


# -- drivers: run in fresh processes as `measure.py --driver NAME ...` -----------------------


def driver_baseline(corpus: str, mode: str, max_bytes: int, skip_dirs: str) -> dict:
    """Plain os.walk over the same tree, pruning the same directories; read+sha256 or lstat.

    Only the standard library is imported in this process, so the baseline carries no
    import cost of wherein.
    """
    skipped = frozenset(skip_dirs.split(","))
    files = total = 0
    started = time.perf_counter()
    for directory, dirs, names in os.walk(corpus):
        dirs[:] = sorted(d for d in dirs if d not in skipped)
        for name in sorted(names):
            path = os.path.join(directory, name)
            info = os.lstat(path)
            if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
                continue
            files += 1
            if mode == "read":
                with open(path, "rb") as handle:
                    data = handle.read()
                hashlib.sha256(data).hexdigest()
                total += len(data)
    return {"files": files, "bytes": total, "seconds": time.perf_counter() - started}


def driver_refresh(corpus: str) -> dict:
    """build_index without the embedder: lock, open the store, refresh_index."""
    started = time.perf_counter()
    from wherein.config import load_settings
    from wherein.index.refresh import index_lock, refresh_index
    from wherein.index.store import open_store
    from wherein.roots import workspace_roots
    from wherein.workspace import resolve_workspace

    imported = time.perf_counter()
    workspace = resolve_workspace(corpus)
    settings = load_settings(workspace)
    db = _index_db(workspace)
    with index_lock(db.parent, wait=True):
        store = open_store(db)
        try:
            report = refresh_index(
                store,
                workspace_roots(workspace, settings),
                max_file_bytes=settings["walk.max_file_bytes"],
            )
            counts = store.counts()
        finally:
            store.close()
    return {
        "import_s": imported - started,
        "refresh_s": report.seconds,
        "files_seen": report.files_seen,
        "files_changed": report.files_changed,
        "chunks_written": report.chunks_written,
        "skipped": dict(report.skipped),
        "counts": counts,
        "index_bytes": db.stat().st_size,
    }


def _timed(fn) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def driver_embed(corpus: str, sample: int, skip_model: bool) -> dict:
    """Compare embed_pending with the raw model on the same pending texts, same batches."""
    import numpy as np

    from wherein.embedding.minilm import MiniLMEmbedder
    from wherein.index.refresh import embed_pending
    from wherein.index.store import open_store

    store = open_store(_index_db(Path(corpus).resolve()))
    batch = _embed_batch()
    identity = MiniLMEmbedder.identity
    rows = store.conn.execute("SELECT id, text_hash FROM chunks ORDER BY id").fetchall()
    if skip_model:
        chosen = set()
    elif sample and sample < len(rows):
        step = len(rows) / sample
        chosen = {rows[int(i * step)][1] for i in range(sample)}
    else:
        chosen = {h for _, h in rows}
    placeholders = sorted({h for _, h in rows} - chosen)
    rng = np.random.default_rng(0)
    with store.transaction() as conn:
        store.set_meta(conn, "embedder", identity.key())
        for start in range(0, len(placeholders), 4096):
            part = placeholders[start : start + 4096]
            matrix = rng.standard_normal((len(part), identity.dimension)).astype(np.float32)
            matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
            store.put_vectors(conn, list(zip(part, matrix, strict=True)))
    result: dict = {"chunks": len(rows), "placeholder_vectors": len(placeholders)}
    if skip_model:
        store.close()
        return result
    pending = store.pending_texts(len(rows) + 1)
    texts = [text for _, text in pending]
    started = time.perf_counter()
    embedder = MiniLMEmbedder()
    result["model_load_s"] = time.perf_counter() - started
    lengths = [len(e.ids) for e in embedder.tokenizer.encode_batch(texts)]
    result["sample"] = len(texts)
    result["mean_tokens"] = statistics.fmean(lengths) if lengths else 0.0
    result["at_token_cap"] = sum(n >= 128 for n in lengths)
    embedder.embed(texts[:batch])  # warm-up: onnxruntime's first runs are slower

    def raw_batches() -> None:
        for start in range(0, len(texts), batch):
            embedder.embed(texts[start : start + batch])

    done: list[int] = []
    result["raw_before_s"], result["raw_before_cpu_s"] = _timed(raw_batches)
    result["pipeline_s"], result["pipeline_cpu_s"] = _timed(
        lambda: done.append(embed_pending(store, embedder, budget_s=None))
    )
    result["pipeline_chunks"] = done[0]
    # embed_pending re-runs the pending query per batch, and that query scans from the first
    # chunk: time one scan over the now fully embedded index to project the full-index cost.
    result["pending_scan_s"], _ = _timed(lambda: store.pending_texts(batch))
    if sample:  # bracket the pipeline, and show what one length-sorted pass would cost
        result["raw_after_s"], result["raw_after_cpu_s"] = _timed(raw_batches)
        result["raw_sorted_s"], result["raw_sorted_cpu_s"] = _timed(lambda: embedder.embed(texts))
    store.close()
    return result


DRIVERS = {"baseline", "refresh", "embed"}


def run_driver(args: argparse.Namespace) -> int:
    name = args.driver
    if name == "baseline":
        out = driver_baseline(args.corpus, args.mode, args.max_bytes, args.skip_dirs)
    elif name == "refresh":
        out = driver_refresh(args.corpus)
    else:
        out = driver_embed(args.corpus, args.embed_sample, args.skip_embed)
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


# -- the benchmark --------------------------------------------------------------------------


class Bench:
    """Holds the paths and environment of one run and the measurements taken so far."""

    def __init__(self, args: argparse.Namespace, scratch: Path) -> None:
        self.args = args
        self.scratch = scratch
        self.wherein = args.wherein
        self.python = args.python
        self.corpus = args.corpus
        self.results: dict = {}

    def env(self, home: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("WHEREIN_")}
        env["WHEREIN_HOME"] = str(self.scratch / home)
        env["XDG_CONFIG_HOME"] = str(self.scratch / "config")  # no user config applies
        return env

    def driver(self, name: str, home: str, *extra: str) -> Run:
        cmd = [self.python, str(Path(__file__).resolve()), "--driver", name]
        return run([*cmd, "--corpus", str(self.corpus), *extra], self.env(home))

    def cli(self, home: str, *argv: str, on_poll=None) -> Run:
        return run([self.wherein, *argv], self.env(home), on_poll=on_poll)

    def note(self, text: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)

    # 1 -----------------------------------------------------------------------------------
    def index_no_embed(self) -> None:
        max_bytes = str(self.args.max_bytes)
        skip = ["--skip-dirs", ",".join(sorted(_skipped_dirs()))]
        self.note("baseline: os.walk + read + sha256, os.walk + lstat")
        read = [
            self.driver("baseline", "unused", "--mode", "read", "--max-bytes", max_bytes, *skip)
            for _ in range(REPEATS)
        ]
        stat = [
            self.driver("baseline", "unused", "--mode", "stat", "--max-bytes", max_bytes, *skip)
            for _ in range(REPEATS)
        ]
        self.results["baseline_walk_read_sha256"] = median_run(read) | read[0].json_tail()
        self.results["baseline_walk_lstat"] = median_run(stat) | stat[0].json_tail()
        self.note("index without embedding (fresh process, empty index)")
        first = self.driver("refresh", "home")
        self.results["index_no_embed"] = asdict_run(first) | first.json_tail()
        self.note("no-op refresh_index (no model)")
        noop = [self.driver("refresh", "home") for _ in range(REPEATS)]
        self.results["noop_refresh_only"] = median_run(noop) | noop[-1].json_tail()

    # 2 -----------------------------------------------------------------------------------
    def embedding(self) -> None:
        sample = self.args.embed_sample
        skip = self.args.skip_embed
        self.note("placeholder vectors" if skip else f"embedding sample={sample or 'all'}")
        extra = ["--embed-sample", str(sample)] + (["--skip-embed"] if skip else [])
        result = self.driver("embed", "home", *extra)
        emb = asdict_run(result) | result.json_tail()
        if "pending_scan_s" in emb:
            emb["projected_full"] = project_full_index(emb)
        self.results["embedding"] = emb

    # 3 -----------------------------------------------------------------------------------
    def noop_index_cli(self) -> None:
        self.note("no-op `wherein index`")
        runs = [self.cli("home", "index", "--workspace", str(self.corpus)) for _ in range(REPEATS)]
        for r in runs:
            if r.returncode != 0:
                raise RuntimeError(f"wherein index failed: {r.stderr[-2000:]}")
        self.results["noop_index_cli"] = median_run(runs) | {"summary": runs[-1].stdout.strip()}

    # 4 -----------------------------------------------------------------------------------
    def search(self) -> None:
        self.note("search baselines: interpreter, import wherein, model load")
        env = self.env("home")
        bare = [run([self.python, "-c", "pass"], env) for _ in range(REPEATS)]
        imp = [run([self.python, "-c", "import wherein"], env) for _ in range(REPEATS)]
        imp_cli = [run([self.python, "-c", "import wherein.cli"], env) for _ in range(REPEATS)]
        load = [run([self.python, "-c", MODEL_LOAD_SNIPPET], env) for _ in range(REPEATS)]
        self.results["baseline_python"] = median_run(bare)
        self.results["baseline_import_wherein"] = median_run(imp)
        self.results["baseline_import_wherein_cli"] = median_run(imp_cli)
        tails = [r.json_tail() for r in load]
        self.results["baseline_model_load"] = median_run(load) | {
            "import_s": statistics.median(t["import_s"] for t in tails),
            "load_s": statistics.median(t["load_s"] for t in tails),
        }
        self.note("searches (fresh process each)")
        warm = self.one_search(WARMUP_QUERY)
        self.results["search_first"] = warm
        searches = [self.one_search(q) for q in QUERIES]
        walls = [s["wall_s"] for s in searches]
        self.results["search"] = {
            "p50_s": percentile(walls, 0.5),
            "p90_s": percentile(walls, 0.9),
            "max_s": max(walls),
            "cpu_p50_s": percentile([s["cpu_s"] for s in searches], 0.5),
            "maxrss_mb": max(s["maxrss_mb"] for s in searches),
            "runs": searches,
        }

    def one_search(self, query: str) -> dict:
        r = self.cli("home", "search", query, "--workspace", str(self.corpus), "--json")
        out = r.json_tail()
        return {
            "query": query,
            "wall_s": r.wall_s,
            "cpu_s": r.cpu_s,
            "maxrss_mb": r.maxrss_mb,
            "results": len(out["results"]),
            "top": out["results"][0]["path"] if out["results"] else None,
            "pending": out["pending"],
            "warnings": out["warnings"],
        }

    # 5 -----------------------------------------------------------------------------------
    def rss_run(self) -> None:
        stop_at = min(self.args.embed_sample or RSS_RUN_CHUNKS, RSS_RUN_CHUNKS)
        self.note(f"peak RSS: `wherein index` from scratch, stopped after {stop_at} vectors")
        db = _index_db(self.corpus.resolve(), str(self.scratch / "rss"))
        series: list[tuple[float, int, float]] = []
        state = {"interrupted_at": None}

        def poll(proc: subprocess.Popen, elapsed: float) -> bool:
            rss = _vm_kib(proc.pid, "VmRSS") / 1024
            vectors = _vector_count(db)
            series.append((round(elapsed, 2), vectors, round(rss, 1)))
            if vectors >= stop_at and state["interrupted_at"] is None:
                state["interrupted_at"] = elapsed
                proc.send_signal(signal.SIGINT)
            elif state["interrupted_at"] and elapsed - state["interrupted_at"] > SIGINT_GRACE_S:
                proc.kill()

        r = self.cli("rss", "index", "--workspace", str(self.corpus), on_poll=poll)
        first = next((s for s in series if s[1] > 0), None)
        last = series[-1] if series else None
        rate = None
        if first and last and last[0] > first[0]:
            rate = (last[1] - first[1]) / (last[0] - first[0])
        self.results["rss_index_cli"] = asdict_run(r) | {
            "stopped_after_vectors": series[-1][1] if series else 0,
            "rss_mb_at_first_vector": first[2] if first else None,
            "embed_rate_estimate": rate,
            "series": series,
        }


def project_full_index(emb: dict) -> dict:
    """What a from-scratch index of every chunk would cost, from the sample's figures.

    Batch k of a full index scans past the k * EMBED_BATCH chunks already embedded, so the
    pending queries add about (batches / 2) full scans on top of the model's own time.
    """
    raw_rate = emb["sample"] / statistics.fmean(
        [emb["raw_before_s"], emb.get("raw_after_s", emb["raw_before_s"])]
    )
    model_s = emb["chunks"] / raw_rate
    batches = emb["chunks"] / _embed_batch()
    query_s = batches / 2 * emb["pending_scan_s"]
    return {
        "model_s": model_s,
        "pending_queries_s": query_s,
        "ratio": model_s / (model_s + query_s),
    }


def _vm_kib(pid: int, field: str) -> float:
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return float(line.split()[1])
    return 0.0


def _vector_count(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)) as c:
            return c.execute("SELECT count(*) FROM vectors").fetchone()[0]
    except sqlite3.Error:
        return 0


def asdict_run(r: Run) -> dict:
    out = asdict(r)
    out.pop("stdout")
    out["stderr"] = r.stderr[-500:]
    return out


def copy_stdlib(destination: Path) -> Path:
    """Copy the standard library so nothing the benchmark does can write into it."""
    source = Path(sysconfig.get_paths()["stdlib"])

    def ignore(directory: str, names: list[str]) -> list[str]:
        top = Path(directory) == source
        return [n for n in names if n in COPY_IGNORED_ANYWHERE or (top and n in COPY_IGNORED_TOP)]

    target = destination / source.name
    shutil.copytree(source, target, symlinks=True, ignore=ignore)
    return target


def corpus_stats(corpus: Path) -> dict:
    files = py_files = py_lines = 0
    for directory, dirs, names in os.walk(corpus):
        dirs[:] = [d for d in dirs if d not in _skipped_dirs()]
        for name in names:
            files += 1
            if name.endswith(".py"):
                py_files += 1
                with open(os.path.join(directory, name), "rb") as handle:
                    py_lines += handle.read().count(b"\n")
    return {"files": files, "py_files": py_files, "py_lines": py_lines}


def table(results: dict, args: argparse.Namespace) -> list[tuple[str, str, str, str, str]]:
    """Rows: what, figure, baseline, ratio, target (with pass/miss)."""
    r = results
    rows = []

    def verdict(ok: bool) -> str:
        return "ok" if ok else "MISS"

    idx = r["index_no_embed"]
    base = r["baseline_walk_read_sha256"]
    rows.append(
        (
            "1 index, no embedding",
            f"{idx['wall_s']:.1f} s wall, {idx['cpu_s']:.1f} s cpu, {idx['chunks_written']} chunks",
            f"walk+read+sha256 {base['wall_s']:.2f} s",
            f"{idx['wall_s'] / base['wall_s']:.0f}x",
            f"<= {TARGET_INDEX_S:.0f} s {verdict(idx['wall_s'] <= TARGET_INDEX_S)}",
        )
    )
    emb = r.get("embedding", {})
    if "pipeline_s" in emb:
        n = emb["pipeline_chunks"]
        pipe = n / emb["pipeline_s"]
        raw_s = statistics.fmean([emb["raw_before_s"], emb.get("raw_after_s", emb["raw_before_s"])])
        raw = emb["sample"] / raw_s
        label = f"sample of {emb['sample']}" if args.embed_sample else f"all {emb['sample']}"
        sorted_note = (
            f"; one sorted pass {emb['sample'] / emb['raw_sorted_s']:.1f}/s"
            if "raw_sorted_s" in emb
            else ""
        )
        rows.append(
            (
                f"2 embedding ({label})",
                f"{pipe:.1f} chunks/s (embed_pending)",
                f"raw embed x{_embed_batch()} {raw:.1f}/s{sorted_note}",
                f"{pipe / raw:.2f}",
                f">= {TARGET_EMBED_RATIO:.2f} {verdict(pipe / raw >= TARGET_EMBED_RATIO)}",
            )
        )
        full = emb["projected_full"]
        rows.append(
            (
                f"2b projected, all {emb['chunks']} chunks",
                f"+{full['pending_queries_s']:.0f} s of pending queries "
                f"(one scan {emb['pending_scan_s']:.2f} s)",
                f"model alone {full['model_s']:.0f} s",
                f"{full['ratio']:.2f}",
                f">= {TARGET_EMBED_RATIO:.2f} {verdict(full['ratio'] >= TARGET_EMBED_RATIO)}",
            )
        )
    else:
        rows.append(("2 embedding", "skipped (--skip-embed)", "-", "-", "-"))
    noop = r["noop_index_cli"]
    lstat = r["baseline_walk_lstat"]
    rows.append(
        (
            "3 no-op `wherein index`",
            f"{noop['wall_s']:.2f} s, {noop['cpu_s']:.2f} s cpu (refresh_index alone "
            f"{r['noop_refresh_only']['refresh_s']:.2f} s)",
            f"walk+lstat {lstat['wall_s']:.2f} s",
            f"{noop['wall_s'] / lstat['wall_s']:.1f}x",
            f"<= {TARGET_NOOP_S} s {verdict(noop['wall_s'] <= TARGET_NOOP_S)}",
        )
    )
    s = r["search"]
    imp = r["baseline_import_wherein"]
    load = r["baseline_model_load"]
    rows.append(
        (
            "4 `wherein search` p50",
            f"{s['p50_s'] * 1000:.0f} ms, cpu {s['cpu_p50_s'] * 1000:.0f} (p90 "
            f"{s['p90_s'] * 1000:.0f}, first {r['search_first']['wall_s'] * 1000:.0f})",
            f"import wherein {imp['wall_s'] * 1000:.0f} ms; model load {load['load_s'] * 1000:.0f} "
            f"ms in a {load['wall_s'] * 1000:.0f} ms process",
            f"{s['p50_s'] / imp['wall_s']:.1f}x import",
            f"<= {TARGET_SEARCH_P50_S * 1000:.0f} ms {verdict(s['p50_s'] <= TARGET_SEARCH_P50_S)}",
        )
    )
    if "rss_index_cli" in r:
        rss = r["rss_index_cli"]["maxrss_mb"]
        what = f"{rss:.0f} MB (`wherein index`, {r['rss_index_cli']['stopped_after_vectors']} vec)"
    else:
        rss = max(idx["maxrss_mb"], noop["maxrss_mb"])
        what = f"{rss:.0f} MB (refresh process / no-op index; --skip-embed)"
    rows.append(
        (
            "5 peak RSS, index",
            what,
            f"model load alone {load['maxrss_mb']:.0f} MB",
            f"{rss / load['maxrss_mb']:.1f}x",
            f"<= {TARGET_RSS_MB:.0f} MB {verdict(rss <= TARGET_RSS_MB)}",
        )
    )
    return rows


def print_table(rows) -> None:
    headers = ("target", "figure", "same-run baseline", "ratio", "bar")
    widths = [max(len(str(row[i])) for row in (headers, *rows)) for i in range(len(headers))]
    for row in (headers, tuple("-" * w for w in widths), *rows):
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())


def _git_state() -> dict:
    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "wherein"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    return {"head": head, "wherein_dirty_files": len(dirty.splitlines())}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, help="the tree to index (default: a stdlib copy)")
    parser.add_argument(
        "--embed-sample",
        type=int,
        default=DEFAULT_EMBED_SAMPLE,
        help="chunks to embed for the throughput ratio; 0 = all (slow)",
    )
    parser.add_argument(
        "--skip-embed",
        action="store_true",
        help="no model runs for target 2 (placeholder vectors only)",
    )
    parser.add_argument("--out", type=Path, help="write the measurements as JSON here")
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    here = Path(sys.executable).parent
    parser.add_argument(
        "--wherein",
        default=str(here / "wherein") if (here / "wherein").exists() else shutil.which("wherein"),
        help="the wherein executable",
    )
    parser.add_argument("--python", default=sys.executable, help="the interpreter for drivers")
    parser.add_argument("--max-bytes", type=int, default=1048576, help=argparse.SUPPRESS)
    parser.add_argument("--driver", choices=sorted(DRIVERS), help=argparse.SUPPRESS)
    parser.add_argument("--mode", choices=("read", "stat"), help=argparse.SUPPRESS)
    parser.add_argument("--skip-dirs", default="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.embed_sample < 0:
        parser.error("--embed-sample must be 0 (all chunks) or a positive count")
    if not args.driver and not args.wherein:
        parser.error("no `wherein` executable found: pass --wherein")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.driver:
        return run_driver(args)
    scratch = Path(tempfile.mkdtemp(prefix="wherein-measure-"))
    started = time.time()
    try:
        if args.corpus is None:
            args.corpus = copy_stdlib(scratch / "corpus")
        args.corpus = args.corpus.resolve()
        bench = Bench(args, scratch)
        load_before = os.getloadavg()
        bench.results["setup"] = {
            "corpus": str(args.corpus),
            "corpus_stats": corpus_stats(args.corpus),
            "embed_sample": None if args.skip_embed else (args.embed_sample or "all"),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "wherein": args.wherein,
            "git": _git_state(),
            "loadavg_before": load_before,
            "command": " ".join(
                [Path(sys.argv[0]).name, *(argv if argv is not None else sys.argv[1:])]
            ),
        }
        bench.index_no_embed()
        bench.embedding()
        bench.noop_index_cli()
        bench.search()
        if not args.skip_embed:
            bench.rss_run()
        bench.results["setup"]["loadavg_after"] = os.getloadavg()
        bench.results["setup"]["total_s"] = time.time() - started
        rows = table(bench.results, args)
        bench.results["table"] = [list(row) for row in rows]
        print_table(rows)
        print(
            f"load average before {load_before[0]:.1f}, after {os.getloadavg()[0]:.1f}; "
            f"{os.cpu_count()} CPUs; embedding: {bench.results['setup']['embed_sample']}"
        )
        if args.out:
            args.out.write_text(json.dumps(bench.results, indent=2) + "\n", encoding="utf-8")
    finally:
        if args.keep:
            print(f"scratch kept: {scratch}", file=sys.stderr)
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
