"""Which grammar parses which file, and the per-language declaration queries.

The queries are data (`queries/<language>.scm`), loaded with importlib.resources,
as aider keeps its tag queries. A grammar without a query file still chunks by
structure; its chunks just carry no symbol names. Besides tree-sitter's own predicates a
query may test a capture's parent, `(#parent-type? @capture type ...)`, and the types of its
children, `#holds-only?` and `#holds-none?` (`chunker._predicate`).
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from pathlib import PurePosixPath

__all__ = [
    "CODE_LANGUAGES",
    "EXTENSIONS",
    "INTERPRETERS",
    "definition_query",
    "grammar_of",
    "language_for",
    "language_of",
    "parser_for",
]

# Extension (lower case, without the dot) to the tree-sitter-language-pack name.
EXTENSIONS: dict[str, str] = {
    "py": "python",
    "pyi": "python",
    "pyx": "python",
    "js": "javascript",
    "mjs": "javascript",
    "cjs": "javascript",
    "jsx": "javascript",
    "ts": "typescript",
    "mts": "typescript",
    "cts": "typescript",
    "tsx": "tsx",
    "go": "go",
    "rs": "rust",
    "java": "java",
    "c": "c",
    "h": "c",
    "m": "objc",
    "mm": "objc",
    "cc": "cpp",
    "cpp": "cpp",
    "cxx": "cpp",
    "c++": "cpp",
    "hpp": "cpp",
    "hh": "cpp",
    "hxx": "cpp",
    "ipp": "cpp",
    "inl": "cpp",
    "tpp": "cpp",
    "cu": "cpp",  # CUDA is C++ with kernel launches and qualifiers
    "cuh": "cpp",
    "cs": "csharp",
    "rb": "ruby",
    "rake": "ruby",
    "gemspec": "ruby",
    "ru": "ruby",  # Rack's config.ru
    "podspec": "ruby",
    "jbuilder": "ruby",
    "thor": "ruby",
    "php": "php",
    "phtml": "php",
    "kt": "kotlin",
    "kts": "kotlin",
    "swift": "swift",
    "scala": "scala",
    "sc": "scala",
    "sbt": "scala",
    "sh": "bash",
    "bash": "bash",
    "zsh": "bash",
    "ksh": "bash",
    # Bats tests are bash but for their `@test "name" {` lines, which the grammar reads as
    # commands (a test's statements then look top-level); their functions are still named.
    "bats": "bash",
    "lua": "lua",
    "rockspec": "lua",
    "ex": "elixir",
    "exs": "elixir",
    "hs": "haskell",
    "hsc": "haskell",
    "zig": "zig",
    "dart": "dart",
    "jl": "julia",
    "r": "r",
    "ml": "ocaml",
    # An interface is written in OCaml's signature language, which the implementation
    # grammar misreads: `val find : t -> int` is an error there (Stdlib's 67 `.mli` files).
    "mli": "ocaml_interface",
    "erl": "erlang",
    "hrl": "erlang",
    "clj": "clojure",
    "cljs": "clojure",
    "cljc": "clojure",
    "nim": "nim",
    "nims": "nim",
    "nimble": "nim",
    "pl": "perl",
    "pm": "perl",
    "vue": "vue",
    "svelte": "svelte",
    "md": "markdown",
    "markdown": "markdown",
    "mdx": "markdown",
}
# Files known by their whole name: shell start-up files, Arch's build scripts, and the
# Ruby DSLs of Bundler, Rake, CocoaPods, Vagrant, fastlane, Homebrew, Guard, Capistrano
# and Danger.
FILENAMES: dict[str, str] = {
    ".bashrc": "bash",
    ".bash_profile": "bash",
    ".bash_login": "bash",
    ".bash_logout": "bash",
    ".bash_aliases": "bash",
    ".profile": "bash",
    ".zshrc": "bash",
    ".zshenv": "bash",
    ".zprofile": "bash",
    ".zlogin": "bash",
    ".zlogout": "bash",
    ".kshrc": "bash",
    "PKGBUILD": "bash",
    "Gemfile": "ruby",
    "Rakefile": "ruby",
    "Podfile": "ruby",
    "Vagrantfile": "ruby",
    "Fastfile": "ruby",
    "Brewfile": "ruby",
    "Guardfile": "ruby",
    "Capfile": "ruby",
    "Dangerfile": "ruby",
    "Dockerfile": "dockerfile",
    "Makefile": "make",
}
CODE_LANGUAGES = frozenset(EXTENSIONS.values()) - {"markdown"}


def language_for(path: str) -> str | None:
    """The grammar name for a path, or None for plain text."""
    pure = PurePosixPath(path)
    if pure.name in FILENAMES:
        return FILENAMES[pure.name]
    return EXTENSIONS.get(pure.suffix[1:].lower()) if pure.suffix else None


# A line only C++ starts this way: C++ headers are often named `.h`, and the C grammar
# parsed 885 of 886 such headers (React Native's, Expo's) with errors, the C++ grammar
# 84, naming `namespace` and `class` where it should have named the classes. `::` alone is
# no sign: C headers write `std::slice` in comments. No two quantifiers side by side here
# take the same characters: `namespace\s+[\w:]*\s*\{` took time quadratic in a run of
# spaces with no brace after it (8,000 spaces 0.2 s; a hostile megabyte, an hour).
CPP_LINE = re.compile(
    r"^[ \t]*(?:namespace(?:\s+[\w:]+)?\s*\{|template\s*<|class\s+\w+|"
    r"(?:public|private|protected)\s*:|using\s+namespace\b)",
    re.MULTILINE,
)

# A line only Objective-C starts this way. Its headers are named `.h` too: over 450 such
# headers (React Native's, Expo's) the C grammar met errors in 445 and named 1,197
# declarations, the Objective-C grammar errors in 247 and 2,860 names. It is also the sign
# that a `.m` file is Objective-C, not MATLAB or Octave (plain text here).
OBJC_LINE = re.compile(
    r"^[ \t]*(?:@(?:interface|implementation|protocol)\b|#import\b)", re.MULTILINE
)


# A script with no extension (`bin/deploy`, `configure`) says its language on its first line:
# `#!/bin/sh`, `#!/usr/bin/env -S python3 -u`. The interpreter's name, version digits cut
# (`python3.12`, `pypy3`), to the grammar that parses it.
INTERPRETERS: dict[str, str] = {
    "ash": "bash",
    "bash": "bash",
    "dash": "bash",
    "elixir": "elixir",
    "ksh": "bash",
    "lua": "lua",
    "luajit": "lua",
    "node": "javascript",
    "nodejs": "javascript",
    "perl": "perl",
    "php": "php",
    "pypy": "python",
    "python": "python",
    "ruby": "ruby",
    "sh": "bash",
    "zsh": "bash",
}
# The most of a first line read for its interpreter.
SHEBANG_CHARS = 200
_INTERPRETER_NAME = re.compile(r"[a-z]+")


# A file whose name says nothing may say its language in an editor's mode line, as 468 of
# bash-completion's 471 files do (no `#!`, mostly no extension, `-*- shell-script -*-` on
# the first line and `# ex: filetype=sh` on the last). Emacs reads `-*- mode: sh -*-` or
# `-*- sh -*-` on the first line, or on the second after a `#!` line (GNU Emacs manual,
# "Specifying File Variables"); Vim reads `vim: ft=sh` or `vim: set ft=ruby:` in the first
# and last five lines (`:help modeline`, 'modelines' 5). Both editors let it overrule `#!`.
MODE_LINES = 5
# The most of a file's start, and of its end, read for mode lines.
MODE_LINE_CHARS = 1000
# Emacs mode and Vim file type names, lower-cased, that are not the grammar's own name.
MODE_NAMES: dict[str, str] = {
    "sh": "bash",
    "shell-script": "bash",
    "zsh": "bash",
    "ksh": "bash",
    "enh-ruby": "ruby",
    "cperl": "perl",
    "js": "javascript",
    "js2": "javascript",
    "javascriptreact": "javascript",
    "typescriptreact": "tsx",
    "c++": "cpp",
    "cs": "csharp",
    "tuareg": "ocaml",
}
_EMACS_MODE_LINE = re.compile(r"-\*-(.*?)-\*-")
_VIM_MODE_LINE = re.compile(r"(?:^|\s)(?:vi|vim|Vim|ex):(.*)")
_VIM_FILETYPE = re.compile(r"(?:^|[\s:])(?:ft|filetype)=([\w+-]+)")


# JavaScript with Flow's types (`export type Props = {...}`, `class A { x: number }`) is
# parsed by the TSX grammar, whose TypeScript reads most of Flow: over React Native's 662 files
# marked `@flow`, the JavaScript grammar met errors in 536 and named 2,215 declarations, the
# TSX grammar errors in 303 and 4,701 declarations. The mark sits in the file's first comment.
FLOW_MARK = "@flow"
FLOW_MARK_CHARS = 2000


def grammar_of(language: str, text: str) -> str:
    """The grammar (and declaration query) that parses `language`'s `text`: its own, but
    TSX's for JavaScript marked `@flow`. Results keep the file's language."""
    if language == "javascript" and FLOW_MARK in text[:FLOW_MARK_CHARS]:
        return "tsx"
    return language


def language_of(path: str, text: str) -> str | None:
    """`language_for(path)`, except that a `.h` file written in Objective-C or C++ is in that
    language, a `.m` file that shows no sign of Objective-C is plain text, a file whose name
    the chunker does not know is in the language its editor mode line names, and a script
    with no extension in the language its `#!` line names."""
    language = language_for(path)
    if language is None:
        language = _mode_line_language(text)
    if language == "c" and path[-2:].lower() == ".h":
        if OBJC_LINE.search(text):
            return "objc"
        if CPP_LINE.search(text):
            return "cpp"
    if language == "objc" and path[-2:].lower() == ".m" and not OBJC_LINE.search(text):
        return None
    if language is None and text.startswith("#!") and not PurePosixPath(path).suffix:
        return _interpreted(text[2:SHEBANG_CHARS].split("\n", 1)[0])
    return language


def _mode_line_language(text: str) -> str | None:
    """The language an Emacs or Vim mode line in the text's first or last lines names."""
    head = text[:MODE_LINE_CHARS].split("\n", MODE_LINES)[:MODE_LINES]
    for line in head[1:2] if head[0].startswith("#!") else head[:1]:
        if language := _named_mode(_emacs_mode(line)):
            return language
    tail = text[-MODE_LINE_CHARS:].rstrip("\n").split("\n")[-MODE_LINES:]
    for line in (*head, *reversed(tail)):
        if language := _named_mode(_vim_filetype(line)):
            return language
    return None


def _emacs_mode(line: str) -> str:
    """The mode an Emacs `-*-` line names: `-*- sh -*-`, `-*- mode: sh; coding: utf-8 -*-`."""
    found = _EMACS_MODE_LINE.search(line)
    if found is None:
        return ""
    if ":" not in found[1]:
        return found[1].strip()
    for variable in found[1].split(";"):
        name, _, value = variable.partition(":")
        if name.strip().lower() == "mode":
            return value.strip()
    return ""


def _vim_filetype(line: str) -> str:
    """The file type a Vim mode line names: `vim: ft=sh`, `# vim: set filetype=ruby:`."""
    found = _VIM_MODE_LINE.search(line)
    kind = _VIM_FILETYPE.search(found[1]) if found else None
    return kind[1] if kind else ""


def _named_mode(name: str) -> str | None:
    """The grammar an Emacs mode or Vim file type name names, if the chunker has it."""
    name = name.lower()
    if name in MODE_NAMES:
        return MODE_NAMES[name]
    return name if name in CODE_LANGUAGES else None


def _interpreted(command: str) -> str | None:
    """The language of a `#!` line's command (what follows the `#!`), if one is known."""
    words = command.split()
    if words and words[0].rsplit("/", 1)[-1] == "env":  # `env [-S] [NAME=value] python3`
        words = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
    if not words:
        return None
    name = _INTERPRETER_NAME.match(words[0].rsplit("/", 1)[-1])
    return INTERPRETERS.get(name.group()) if name else None


@cache
def parser_for(language: str):  # -> tree_sitter.Parser | None
    """A parser for the grammar, or None when the pack does not bundle it."""
    from tree_sitter_language_pack import get_parser

    try:
        return get_parser(language)  # type: ignore[arg-type]
    except (LookupError, ValueError, RuntimeError):
        return None


# Grammars whose declaration nodes are another's: TSX is TypeScript plus JSX, so it
# compiles typescript.scm against its own grammar rather than keeping a copy; OCaml's
# interface grammar shares the implementation grammar's declaration nodes.
QUERY_SOURCES: dict[str, str] = {"tsx": "typescript", "ocaml_interface": "ocaml"}


@cache
def definition_query(language: str):  # -> tree_sitter.Query | None
    """The compiled declaration query of a language, if it ships one."""
    source = QUERY_SOURCES.get(language, language)
    resource = resources.files("wherein.chunking").joinpath("queries", f"{source}.scm")
    if not resource.is_file():
        return None
    from tree_sitter import Query
    from tree_sitter_language_pack import get_language

    return Query(get_language(language), resource.read_text(encoding="utf-8"))  # type: ignore[arg-type]
