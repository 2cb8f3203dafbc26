"""One function's old and new code, timed query by query in one warm process.

On a shared machine the speed of the same code drifts by half within minutes, so two
processes run one after the other (`bench_warm.py`, alternating) cannot see a change of a
tenth. Here one resident session searches each query twice, once with the function as it
was at REV and once as it is now, in alternating order, and reports the median of the
per-query ratios: the drift is the same for both halves of a pair.

    python scripts/bench_swap.py --workspace DIR --home DIR \\
        --old REV --function wherein.retrieval.selection:at_or_above_floor

The old function is the one defined in the module's file at REV (`git show`), executed
as a module of its own beside today's package. Every binding of today's function in a
loaded `wherein` module (its own module's, and each `from ... import` of it) is swapped;
one held elsewhere (in a dict, a default argument) is not.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from bench_warm import DEFAULT_BENCH_DIR, _wait_for_memory, timed_searcher
from measure import QUERIES

REPO = Path(__file__).resolve().parents[1]


def old_function(module_name: str, name: str, source: str) -> Callable:
    """`name` as defined by `source`, a version of `module_name`'s file, run as a module."""
    module = types.ModuleType(f"{module_name}__old")
    module.__file__ = f"<{module_name} as it was>"
    # Registered while it runs: a dataclass looks its module up by name.
    sys.modules[module.__name__] = module
    try:
        exec(compile(source, module.__file__, "exec"), module.__dict__)
    finally:
        del sys.modules[module.__name__]
    return getattr(module, name)


def bindings_of(current: Callable) -> list[tuple[types.ModuleType, str]]:
    """(module, attribute) of every loaded `wherein` module that binds `current`."""
    return [
        (module, attr)
        for module_name, module in list(sys.modules.items())
        if module_name.split(".")[0] == "wherein" and module is not None
        for attr, value in list(vars(module).items())
        if value is current
    ]


@contextmanager
def swapped(current: Callable, replacement: Callable) -> Iterator[None]:
    """Within it, every loaded `wherein` module's binding of `current` is `replacement`."""
    bindings = bindings_of(current)
    for module, attr in bindings:
        setattr(module, attr, replacement)
    try:
        yield
    finally:
        for module, attr in bindings:
            setattr(module, attr, current)


def _queries(bench_dir: Path) -> list[str]:
    lines = (bench_dir / "semble_python.jsonl").read_text().splitlines()
    semble = [json.loads(line)["query"] for line in lines if line.strip()]
    return list(dict.fromkeys([*QUERIES, *semble]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", type=Path, required=True, help="an indexed folder")
    parser.add_argument("--home", required=True, help="the WHEREIN_HOME holding its index")
    parser.add_argument("--old", required=True, help="the git revision of the old code")
    parser.add_argument("--function", required=True, help="MODULE:NAME, today's module")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bench-dir", type=Path, default=DEFAULT_BENCH_DIR)
    args = parser.parse_args(argv)
    os.environ["WHEREIN_HOME"] = args.home
    from wherein.config import load_settings
    from wherein.embedding.registry import create_fast_embedder

    module_name, _, name = args.function.partition(":")
    module = importlib.import_module(module_name)
    current = getattr(module, name)
    path = Path(module.__file__).resolve().relative_to(REPO)
    source = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{args.old}:{path}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    old = old_function(module_name, name, source)

    workspace = args.workspace.resolve()
    settings = load_settings(workspace)
    search, resident = timed_searcher(
        workspace, settings, None, create_fast_embedder(settings), frozenset({"fast"})
    )
    search("the first search of a session")
    _wait_for_memory()
    queries = _queries(args.bench_dir)
    if not bindings_of(current):
        raise SystemExit(f"No loaded wherein module binds {args.function}.")
    ratios, before, after = [], [], []
    for query in queries:  # every query's vector and rows once, as a session would hold them
        search(query)
    for round_number in range(args.rounds):
        for position, query in enumerate(queries):
            times = {}
            for which in ("old", "new") if (position + round_number) % 2 else ("new", "old"):
                with swapped(current, old if which == "old" else current):
                    times[which] = search(query)
            before.append(times["old"])
            after.append(times["new"])
            ratios.append(times["new"] / times["old"])
    resident.drop_store()
    print(
        json.dumps(
            {
                "function": args.function,
                "old": args.old,
                "searches": len(ratios),
                "old_p50_ms": round(1000 * statistics.median(before), 3),
                "new_p50_ms": round(1000 * statistics.median(after), 3),
                "median_ratio": round(statistics.median(ratios), 3),
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
