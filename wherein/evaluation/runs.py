"""Running wherein on the questions: the user's settings on the user's index, or other
settings (`--compare KEY=VALUE`) each in a temporary index.

A comparison must leave the user's index as it was and write nothing into the repository,
so its index lives in a fresh folder under the system's temporary directory (refused if that
lies inside the workspace), seeded with a copy of the user's index so that only what the new
settings change is rebuilt, and removed afterwards. The index API finds its data folder in
`WHEREIN_HOME`, so the comparison points that variable at the folder while it runs.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from wherein.config import KEYS, Settings, load_settings
from wherein.errors import EmbedderError, UsageError, WhereinError
from wherein.evaluation.corpus import Corpus
from wherein.evaluation.questions import Question
from wherein.evaluation.scoring import RESULTS_ASKED, Answer, score_answer
from wherein.index.location import INDEX_FILE_NAME, data_home, index_dir
from wherein.index.tiers import FAST, FULL, TIERS
from wherein.storage.database import open_read_only

__all__ = [
    "TIER_VARIANTS",
    "Variant",
    "WhereinRun",
    "index_workspace",
    "parse_compare",
    "run_variant",
    "temporary_base",
    "temporary_data_home",
    "variant_settings",
]

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Variant:
    """One way of running wherein: the user's settings, with some keys or tiers changed."""

    name: str
    overrides: tuple[tuple[str, str], ...] = ()
    tiers: frozenset[str] = frozenset(TIERS)  # the vector tiers that may rank

    @property
    def temporary(self) -> bool:
        """Whether it needs its own index (changed settings may change what is indexed)."""
        return bool(self.overrides)


# `--tiers`: the same index ranked by each vector tier alone, and by BM25 with no vectors.
TIER_VARIANTS = (
    Variant("wherein, fast tier only", tiers=frozenset({FAST.name})),
    Variant("wherein, configured model only", tiers=frozenset({FULL.name})),
    Variant("wherein, BM25 and signals only", tiers=frozenset()),
)


@dataclass(frozen=True)
class WhereinRun:
    """What one variant answered, and what it said on the way."""

    variant: Variant
    answers: tuple[Answer, ...]
    index_line: str | None  # the `wherein index` summary line, when this run indexed
    notices: tuple[str, ...] = field(default=())


def parse_compare(text: str) -> Variant:
    """`KEY=VALUE` (several separated by spaces) as a variant.

    Raises:
        UsageError: not KEY=VALUE, or an unknown key.
    """
    overrides = []
    for pair in text.split():
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(
                f"--compare {text!r} is not KEY=VALUE: write, for example, "
                "--compare embedding.provider=static."
            )
        if key not in KEYS:
            raise UsageError(
                f"--compare names an unknown setting '{key}'. "
                f"Known keys: {', '.join(sorted(KEYS))}."
            )
        overrides.append((key, value))
    if not overrides:
        raise UsageError("--compare needs KEY=VALUE, for example embedding.provider=static.")
    return Variant(" ".join(f"{k}={v}" for k, v in overrides), tuple(overrides))


def variant_settings(workspace: Path, variant: Variant) -> Settings:
    """The user's settings with the variant's keys set as the environment would set them.

    Raises:
        UsageError: a key the environment may not set (it would be silently ignored).
        ConfigError: a value the key does not accept.
    """
    environ = dict(os.environ)
    for key, value in variant.overrides:
        environ["WHEREIN_" + key.replace(".", "_").upper()] = value
    settings = load_settings(workspace, environ)
    for key, _ in variant.overrides:
        if settings.sources[key] != "env":
            raise UsageError(
                f"--compare cannot set '{key}': it is honoured only from your own config file. "
                "Set it there and compare the other keys."
            )
    return settings


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def temporary_base(workspace: Path) -> Path:
    """The system's temporary directory, where comparison indexes go.

    Raises:
        UsageError: it lies inside the workspace (TMPDIR pointing into the repository).
    """
    base = Path(tempfile.gettempdir()).resolve()
    if _inside(base, workspace.resolve()):
        raise UsageError(
            f"The temporary directory {base} is inside the workspace {workspace}, and a "
            "comparison index must not be written there. Set TMPDIR to a folder outside it."
        )
    return base


@contextlib.contextmanager
def temporary_data_home(workspace: Path) -> Iterator[Path]:
    """A fresh data folder outside the workspace, as `WHEREIN_HOME` while the block runs.

    Raises:
        UsageError: the system's temporary directory lies inside the workspace.
    """
    base = temporary_base(workspace)
    folder = Path(tempfile.mkdtemp(prefix="wherein-eval-", dir=base))
    before = os.environ.get("WHEREIN_HOME")
    os.environ["WHEREIN_HOME"] = str(folder)
    try:
        yield folder
    finally:
        if before is None:
            os.environ.pop("WHEREIN_HOME", None)
        else:
            os.environ["WHEREIN_HOME"] = before
        shutil.rmtree(folder, ignore_errors=True)


def _seed(workspace: Path, source_home: Path, target_home: Path) -> None:
    """Copy the user's index into the temporary home (SQLite's backup: a consistent copy,
    read-only on the source), so unchanged files are not chunked and embedded again."""
    env = {"WHEREIN_HOME": str(source_home)}
    source = index_dir(workspace, env) / INDEX_FILE_NAME
    if not source.is_file():
        return
    target = index_dir(workspace, {"WHEREIN_HOME": str(target_home)}) / INDEX_FILE_NAME
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        reader = open_read_only(source)
    except sqlite3.Error:
        return
    try:
        writer = sqlite3.connect(target)
        try:
            reader.backup(writer)
        finally:
            writer.close()
    except sqlite3.Error:
        target.unlink(missing_ok=True)  # start empty: the index is built from scratch
    finally:
        reader.close()


def index_workspace(
    workspace: Path, settings: Settings, progress: Progress | None = None
) -> tuple[str, tuple[str, ...]]:
    """Build or refresh the workspace's index as `wherein index` does: its summary line and
    notices."""
    from wherein.indexing import build_index

    summary = build_index(workspace, settings, progress=progress)
    notices = [*summary.notices]
    notices += [f"unreadable, skipped: {item}" for item in summary.report.unreadable[:20]]
    return summary.line(), tuple(notices)


def run_variant(
    workspace: Path,
    variant: Variant,
    settings: Settings,
    questions: Sequence[Question],
    corpus: Corpus,
    *,
    progress: Progress | None = None,
) -> WhereinRun:
    """Answer every question with one variant.

    A variant with overrides (its `settings` from `variant_settings`) runs in a temporary
    index, built first; the others search the user's index as it is (`index_workspace`).
    """
    if not variant.temporary:
        return _run(workspace, variant, settings, questions, corpus, False, progress)
    user_home = data_home()
    with temporary_data_home(workspace) as home:
        _seed(workspace, user_home, home)
        return _run(workspace, variant, settings, questions, corpus, True, progress)


def _run(
    workspace: Path,
    variant: Variant,
    settings: Settings,
    questions: Sequence[Question],
    corpus: Corpus,
    index: bool,
    progress: Progress | None,
) -> WhereinRun:
    from wherein.embedding.registry import create_embedder, create_fast_embedder
    from wherein.resident import ResidentIndex
    from wherein.search import run_search

    notices: list[str] = []
    line = None
    if index:
        line, built = index_workspace(workspace, settings, progress)
        # Said of a copy under a temporary home ("discarded N vectors" when the variant
        # changes the model): the user's own index is untouched, which the notice must say.
        notices.extend(f"In this variant's temporary copy of the index: {n}" for n in built)
    tiers = variant.tiers
    embedder = fast = None
    try:
        embedder = create_embedder(settings) if FULL.name in tiers else None
    except EmbedderError as err:
        notices.append(f"{err} Ranked without the configured model's vectors.")
        tiers = tiers - {FULL.name}
    try:
        fast = create_fast_embedder(settings) if FAST.name in tiers else None
    except EmbedderError as err:
        notices.append(f"{err} Ranked without the fast tier's vectors.")
        tiers = tiers - {FAST.name}
    resident = ResidentIndex()
    answers = []
    failures: dict[str, int] = {}
    label = f"Questions: {variant.name}"
    try:
        for done, question in enumerate(questions):
            if progress:
                progress(label, done, len(questions))
            started = time.perf_counter()
            try:
                result = run_search(
                    question.text,
                    workspace=workspace,
                    settings=settings,
                    limit=RESULTS_ASKED,
                    cold_budget_s=0.0,
                    embedder=embedder,
                    fast_embedder=fast,
                    tiers=frozenset(tiers),
                    resident=resident,
                )
                results = [(hit.path, len(hit.excerpt)) for hit in result.hits]
                sources = {hit.path: hit.source_path for hit in result.hits}
            except WhereinError as err:  # one failed search scores as an empty answer
                failures[str(err)] = failures.get(str(err), 0) + 1
                results, sources = [], {}
            ms = (time.perf_counter() - started) * 1000
            answers.append(
                score_answer(
                    results,
                    question.gold,
                    lambda path, s=sources: corpus.chars(path, s.get(path)),
                    ms,
                )
            )
        if progress:
            progress(label, len(questions), len(questions))
    finally:
        resident.drop_store()
    for message, count in failures.items():
        notices.append(f"{count} search(es) failed and scored as empty answers: {message}")
    return WhereinRun(variant, tuple(answers), line, tuple(notices))
