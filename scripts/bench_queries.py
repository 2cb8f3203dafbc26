"""The declaration queries, old against new: what each costs to compile, and what each finds.

Every indexing worker compiles the query of each language it meets (C++'s took 0.1-0.2 s,
Elixir's 0.1 s), so a query's compile time is part of every first index; and its patterns
decide which declarations name the chunks. This script compares the queries at a git
revision (`--old`) with this checkout's:

- compile cost per language: the best of `--repeats` wall times each, and with
  `--instructions` the instructions tree-sitter's `ts_query_new` executes under valgrind's
  callgrind (the same count every run, where the wall time drifts with the machine; about
  2 s a run);
- the declarations found in the files under each `--samples` folder, by both queries: each
  file where they differ is listed with what only one of them found. Real code in many
  languages lies in Pygments' sdist (`pip download --no-binary :all: --no-deps pygments`,
  its `tests/examplefiles`) and in npm packages (`npm pack react-native expo-modules-core`
  hold Kotlin, Swift, C, C++ and TypeScript).

    python scripts/bench_queries.py --old HEAD~1 --samples /tmp/pygments-2.21.0/tests
    python scripts/bench_queries.py --old HEAD --language zig --language ruby --instructions
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
QUERIES = "wherein/chunking/queries"
MAX_FILE_BYTES = 1_048_576
# Compiles one query file under callgrind, counting only inside `ts_query_new`.
COMPILE_ONE = (
    "import sys\n"
    "from tree_sitter import Query\n"
    "from tree_sitter_language_pack import get_language\n"
    "Query(get_language(sys.argv[1]), open(sys.argv[2], encoding='utf-8').read())\n"
)


def languages() -> list[str]:
    """Every language whose declaration query this checkout compiles (TSX borrows one)."""
    from wherein.chunking.languages import QUERY_SOURCES

    own = {path.stem for path in (REPO / QUERIES).glob("*.scm")}
    return sorted(own | {name for name, source in QUERY_SOURCES.items() if source in own})


def new_queries(names: Sequence[str]) -> dict[str, str]:
    """This checkout's query text for each language of `names`."""
    from wherein.chunking.languages import QUERY_SOURCES

    folder = REPO / QUERIES
    return {
        name: (folder / f"{QUERY_SOURCES.get(name, name)}.scm").read_text(encoding="utf-8")
        for name in names
    }


def old_queries(revision: str, names: Sequence[str]) -> dict[str, str | None]:
    """The query text of each language at `revision` (None where it had none).

    Raises:
        SystemExit: `revision` is not a commit of this repository.
    """
    from wherein.chunking.languages import QUERY_SOURCES

    check = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    if check.returncode != 0:
        raise SystemExit(f"--old {revision!r} is not a commit of {REPO}.")
    found: dict[str, str | None] = {}
    for name in names:
        path = f"{QUERIES}/{QUERY_SOURCES.get(name, name)}.scm"
        shown = subprocess.run(
            ["git", "-C", str(REPO), "show", f"{revision}:{path}"],
            capture_output=True,
            text=True,
        )
        found[name] = shown.stdout if shown.returncode == 0 else None
    return found


def compile_seconds(language: str, text: str, repeats: int) -> float:
    """The best of `repeats` wall times to compile `text` for `language`."""
    from tree_sitter import Query
    from tree_sitter_language_pack import get_language

    grammar = get_language(language)  # type: ignore[arg-type]
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        Query(grammar, text)
        best = min(best, time.perf_counter() - started)
    return best


def compile_instructions(language: str, text: str) -> int:
    """Instructions `ts_query_new` executes compiling `text`, counted by callgrind."""
    from bench_instructions import collected

    with tempfile.TemporaryDirectory() as scratch:
        query = Path(scratch, "query.scm")
        query.write_text(text, encoding="utf-8")
        run = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--toggle-collect=ts_query_new",
                f"--callgrind-out-file={scratch}/callgrind.out",
                sys.executable,
                "-c",
                COMPILE_ONE,
                language,
                str(query),
            ],
            capture_output=True,
            text=True,
        )
    return collected(run.stderr)


def sample_files(folders: Sequence[Path]) -> Iterator[tuple[Path, str, str]]:
    """(path, language, text) of each readable file under `folders` that a query serves;
    no link is followed and nothing over 1 MB is read."""
    from wherein.chunking.languages import language_of

    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            language = language_of(str(path), text)
            if language is not None:
                yield path, language, text


def differences(
    folders: Sequence[Path], old: Mapping[str, str | None], new: Mapping[str, str]
) -> tuple[int, int, list[tuple[Path, list[str], list[str]]]]:
    """(files compared, declarations the new queries found, [(file, declarations only the old
    found, only the new)]) over the files under `folders` whose language both have a query
    for."""
    from tree_sitter import Query
    from tree_sitter_language_pack import get_language

    from wherein.chunking.chunker import declarations
    from wherein.chunking.languages import parser_for

    compiled: dict[tuple[str, str], object] = {}

    def query(language: str, text: str):
        key = (language, text)
        if key not in compiled:
            compiled[key] = Query(get_language(language), text)  # type: ignore[arg-type]
        return compiled[key]

    files = found = 0
    differing = []
    for path, language, text in sample_files(folders):
        old_text, new_text = old.get(language), new.get(language)
        parser = parser_for(language)
        if old_text is None or new_text is None or parser is None:
            continue
        root = parser.parse(text.encode("utf-8", errors="surrogatepass")).root_node
        before = declarations(root, query(language, old_text))
        after = declarations(root, query(language, new_text))
        files += 1
        found += len(after)
        if before != after:
            kept_before, kept_after = set(before), set(after)
            only_old = [d for d in before if d not in kept_after]
            only_new = [d for d in after if d not in kept_before]
            differing.append((path, only_old, only_new))
    return files, found, differing


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", help="the git revision whose queries to compare with")
    parser.add_argument("--language", action="append", help="only this language (repeatable)")
    parser.add_argument("--samples", type=Path, action="append", default=[], help="a folder")
    parser.add_argument("--repeats", type=int, default=5, help="compiles timed per query [5]")
    parser.add_argument("--instructions", action="store_true", help="count under callgrind")
    args = parser.parse_args(argv)
    if not args.old:
        parser.error(
            "--old is required: the revision whose queries the checkout's are compared with"
        )
    if args.repeats < 1:
        parser.error("--repeats must be 1 or more")
    known = languages()
    names = args.language or known
    unknown = sorted(set(names) - set(known))
    if unknown:
        parser.error(f"no query for {', '.join(unknown)}; these have one: {', '.join(known)}")
    for folder in args.samples:
        if not folder.is_dir():
            parser.error(f"--samples {folder} is not a folder")

    old = old_queries(args.old, names)
    new = new_queries(names)
    counted = " | old instructions | new | ratio" if args.instructions else ""
    print(f"language | old ms | new ms | ratio{counted}")
    for name in names:
        before = old[name]
        if before is None:
            alone = compile_seconds(name, new[name], args.repeats)
            print(f"{name} | (none at {args.old}) | {1000 * alone:.1f} |")
            continue
        old_s = compile_seconds(name, before, args.repeats)
        new_s = compile_seconds(name, new[name], args.repeats)
        row = f"{name} | {1000 * old_s:.1f} | {1000 * new_s:.1f} | {new_s / old_s:.2f}"
        if args.instructions:
            old_count = compile_instructions(name, before)
            new_count = compile_instructions(name, new[name])
            row += f" | {old_count:,} | {new_count:,} | {new_count / old_count:.3f}"
        print(row, flush=True)
    if args.samples:
        files, found, differing = differences(args.samples, old, new)
        for path, only_old, only_new in differing:
            print(f"differs: {path}")
            for label, shown in (("only old", only_old), ("only new", only_new)):
                listed = ", ".join(f"{d.qualified} (line {d.row + 1})" for d in shown[:5])
                print(f"  {label}: {listed or 'none'}{' ...' if len(shown) > 5 else ''}")
        print(f"{files} files compared, {found} declarations found, {len(differing)} differ")
    return 0


if __name__ == "__main__":
    sys.exit(main())
