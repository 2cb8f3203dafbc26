"""`wherein eval`: mine the questions, index, answer them with wherein and the baselines.

The order matters: every comparison's settings are checked before anything runs (a typo in
`--compare` must not cost an indexing), the user's index is built before the questions are
final (a gold file the index does not hold cannot be found, so its question is dropped and
counted), and the baselines rank the same files the index holds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TextIO

from wherein.config import Settings
from wherein.evaluation.baselines import BASELINES
from wherein.evaluation.corpus import Corpus, indexed_paths
from wherein.evaluation.mining import parse_since, read_history
from wherein.evaluation.questions import Question, classify, select_questions
from wherein.evaluation.report import EvalReport, RetrieverResult, few_queries_warning
from wherein.evaluation.runs import (
    TIER_VARIANTS,
    Variant,
    index_workspace,
    parse_compare,
    run_variant,
    temporary_base,
    variant_settings,
)
from wherein.evaluation.scoring import RESULTS_ASKED, Answer, score_answer
from wherein.untrusted import one_line

__all__ = ["DEFAULT_COMMITS", "EvalOptions", "evaluate"]

# Enough for a few hundred questions on a typical history (about a third of commits survive
# the filters), and mined in well under a second.
DEFAULT_COMMITS = 1000
WHEREIN = Variant("wherein")
WHEREIN_LABEL = "wherein (your settings)"


@dataclass(frozen=True)
class EvalOptions:
    """What `wherein eval` was asked for."""

    commits: int = DEFAULT_COMMITS
    since: str | None = None
    compare: tuple[str, ...] = ()
    tiers: bool = False


def evaluate(
    workspace: Path,
    settings: Settings,
    options: EvalOptions,
    stderr: TextIO,
    say: Callable[[str], None] | None = None,
) -> EvalReport:
    """Run the whole evaluation; progress bars go to `stderr` when it is a terminal.

    `say` hears each notice as it happens (another process indexing, an unreadable file).

    Raises:
        UsageError: a bad option (`--commits`, `--since`, `--compare`).
        WorkspaceError: not a git repository, git missing or refusing it, no commit yet.
    """
    from wherein.progress import ProgressDisplay

    since = parse_since(options.since)
    compared = [parse_compare(text) for text in options.compare]
    compared_settings = [variant_settings(workspace, variant) for variant in compared]
    for variant, chosen in zip(compared, compared_settings, strict=True):
        new = [w for w in chosen.warnings if w not in settings.warnings]
        _tell(say, [f"--compare {variant.name}: {warning}" for warning in new])
    if compared:
        temporary_base(workspace)
    history = read_history(workspace, commits=options.commits, since=since)
    selection = select_questions(history)
    warnings: list[str] = []
    if history.shallow:
        warnings.append(
            f"{history.top} is a shallow clone: git holds only part of its history "
            f"({selection.considered} commit(s) read). 'git fetch --unshallow' gives eval more "
            "to mine."
        )
    if history.branch is None:
        warnings.append(f"HEAD is detached at {history.head[:12]}; its history is what is mined.")
    if not history.git_dir.resolve().is_relative_to(history.top.resolve()):
        # A worktree's or a submodule's, or a `.git` file a copied repository planted.
        warnings.append(
            f"The history mined is kept in {one_line(str(history.git_dir))}, outside "
            f"{history.top}: the questions are that repository's commits."
        )
    retrievers: list[RetrieverResult] = []
    if selection.questions:
        with ProgressDisplay(stderr) as display:
            line, notices = index_workspace(workspace, settings, display.update)
        _tell(say, notices)
        corpus = Corpus(workspace, indexed_paths(workspace), settings["walk.max_file_bytes"])
        indexed = set(corpus.paths)
        selection = selection.without(
            "not_indexed",
            lambda q: classify(q, corpus.text) if q.gold <= indexed else None,
        )
        questions = selection.questions
        variants: list[tuple[Variant, Settings]] = [(WHEREIN, settings)]
        if options.tiers:
            variants += [(variant, settings) for variant in TIER_VARIANTS]
        variants += list(zip(compared, compared_settings, strict=True))
        for variant, chosen in variants:
            with ProgressDisplay(stderr) as display:
                run = run_variant(
                    workspace, variant, chosen, questions, corpus, progress=display.update
                )
            _tell(say, run.notices)
            retrievers.append(
                RetrieverResult(
                    variant.name,
                    WHEREIN_LABEL if variant is WHEREIN else variant.name,
                    "wherein",
                    run.answers,
                    variant.overrides,
                    run.index_line or (line if variant is WHEREIN else None),
                    run.notices + (notices if variant is WHEREIN else ()),
                )
            )
        for baseline in BASELINES:
            with ProgressDisplay(stderr) as display:
                answers = _baseline_answers(baseline, questions, corpus, display.update)
            retrievers.append(RetrieverResult(baseline.name, baseline.label, "baseline", answers))
    few = few_queries_warning(len(selection.questions))
    if few:
        warnings.append(few)
    return EvalReport(
        workspace=str(workspace),
        head=history.head,
        branch=history.branch,
        shallow=history.shallow,
        commits_asked=options.commits,
        since=since,
        selection=selection,
        retrievers=tuple(retrievers),
        generated=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        warnings=tuple(warnings),
    )


def _baseline_answers(
    kind, questions: Sequence[Question], corpus: Corpus, progress
) -> tuple[Answer, ...]:
    label = f"Questions: {kind.label}"
    progress(label, 0, len(questions))
    baseline = kind(corpus)
    answers = []
    try:
        for done, question in enumerate(questions, start=1):
            started = time.perf_counter()
            paths = baseline.search(question.text, RESULTS_ASKED)
            ms = (time.perf_counter() - started) * 1000
            results = [(path, corpus.chars(path)) for path in paths]
            answers.append(score_answer(results, question.gold, corpus.chars, ms))
            progress(label, done, len(questions))
    finally:
        baseline.close()
    return tuple(answers)


def _tell(say: Callable[[str], None] | None, notices: Sequence[str]) -> None:
    if say is not None:
        for notice in notices:
            say(notice)
