"""Which language a file is read in: its name, its extension, its editor mode line."""

from __future__ import annotations

import pytest

from wherein.chunking import chunk_source
from wherein.chunking.languages import (
    EXTENSIONS,
    FILENAMES,
    MODE_LINE_CHARS,
    language_for,
    language_of,
    parser_for,
)

BASH_COMPLETION = """\
# bash completion for gzip                                 -*- shell-script -*-

_gzip()
{
    local cur prev words cword
    _init_completion || return
} &&
    complete -F _gzip gzip pigz

# ex: filetype=sh
"""


def test_a_completion_script_with_no_extension_is_read_by_its_mode_lines():
    language, chunks = chunk_source("completions/gzip", BASH_COMPLETION)
    assert language == "bash"
    assert [s for c in chunks for s in c.symbols] == ["_gzip"]
    # Either line alone says it.
    emacs_only = BASH_COMPLETION.replace("# ex: filetype=sh", "")
    vim_only = BASH_COMPLETION.replace("-*- shell-script -*-", "")
    assert language_of("completions/gzip", emacs_only) == "bash"
    assert language_of("completions/gzip", vim_only) == "bash"


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("# -*- mode: sh -*-\nx=1\n", "bash"),
        ("# -*- Shell-script -*-\nx=1\n", "bash"),
        ("# -*- coding: utf-8; mode: ruby -*-\nputs 1\n", "ruby"),
        ("// -*- mode: c++; c-basic-offset: 4 -*-\nint x;\n", "cpp"),
        # Emacs reads the second line after a `#!` line, and the mode line overrules it.
        ('#!/bin/sh\n# -*- mode: ruby -*-\nexec ruby -x "$0"\n', "ruby"),
        ("x=1\n# vim: set ft=ruby:\n", "ruby"),
        ("x=1\n# vim: ft=sh\n", "bash"),
        ("x=1\n# vim:ts=4:sw=4:filetype=python:\n", "python"),
        ("/* vi: set ft=c: */\nint x;\n", "c"),
        # A `-*-` line naming no mode leaves the Vim line to say it.
        ("# -*- coding: utf-8 -*-\nputs 1\n# vim: set ft=ruby:\n", "ruby"),
    ],
)
def test_emacs_and_vim_mode_lines_name_the_language(text, language):
    assert language_of("bin/tool", text) == language
    assert language_of("etc/tool.conf", text) == language  # an extension the chunker lacks


@pytest.mark.parametrize(
    "text",
    [
        "first\nsecond\n# -*- mode: sh -*-\n",  # Emacs reads only the first line
        "# vim: ft=help\n",  # a file type no grammar here parses
        "# -*- mode: org -*-\n",
        "The index: ft=sh is an option.\n",  # `ex:` must stand after a space
        "".join(f"line {n}\n" for n in range(6)) + "# vim: ft=sh\n" + "more\n" * 5,
        "x" * MODE_LINE_CHARS + " -*- sh -*-\n" + "body\n" * 10,  # past the bound
    ],
)
def test_what_is_no_mode_line_names_nothing(text):
    assert language_of("bin/tool", text) is None


def test_a_mode_line_never_overrules_a_name_or_extension_the_chunker_knows():
    assert language_of("tool.py", "# vim: ft=ruby\n") == "python"
    assert language_of("Gemfile", "# -*- mode: sh -*-\n") == "ruby"


@pytest.mark.parametrize(
    ("name", "language"),
    [
        (".bashrc", "bash"),
        (".bash_profile", "bash"),
        (".profile", "bash"),
        (".zshrc", "bash"),
        ("PKGBUILD", "bash"),
        ("Gemfile", "ruby"),
        ("Rakefile", "ruby"),
        ("Podfile", "ruby"),
        ("Vagrantfile", "ruby"),
        ("fastlane/Fastfile", "ruby"),
        ("Brewfile", "ruby"),
        ("Guardfile", "ruby"),
        ("Capfile", "ruby"),
        ("Dangerfile", "ruby"),
        ("config.ru", "ruby"),
        ("Widget.podspec", "ruby"),
        ("app/views/show.json.jbuilder", "ruby"),
        ("tasks/release.thor", "ruby"),
        ("wherein.gemspec", "ruby"),
        ("vector.inl", "cpp"),
        ("vector.tpp", "cpp"),
        ("kernels/add.cu", "cpp"),
        ("kernels/add.cuh", "cpp"),
        ("build.sbt", "scala"),
        ("Bindings.hsc", "haskell"),
        ("test/cli.bats", "bash"),
        ("install.ksh", "bash"),
        ("penlight-1.0-1.rockspec", "lua"),
        ("views/page.phtml", "php"),
        ("include/records.hrl", "erlang"),
    ],
)
def test_common_names_and_extensions_have_their_language(name, language):
    assert language_for(name) == language
    assert parser_for(language) is not None


def test_every_mapped_language_has_a_grammar():
    for language in {*EXTENSIONS.values(), *FILENAMES.values()} - {"markdown"}:
        assert parser_for(language) is not None, language
