"""The command line's grammar built for one command parses and helps as the whole one does."""

from __future__ import annotations

import argparse

import pytest

from wherein.cli.parser import COMMAND_NAMES, build_parser, command_word

RUNS = [
    ["search", "retry policy", "--json", "--limit", "3", "--lang", "python"],
    ["related", "src/app.py:12", "--jsonl"],
    ["index", "--focus", "src"],
    ["config", "set", "search.limit", "5", "--workspace-file"],
    ["list", "--json"],
    ["uninstall", "claude", "--project"],
    ["history", "search", "the flaky test"],
    ["eval", "--compare", "search.fusion=rrf", "--tiers"],
    ["completion", "zsh"],
]


def test_every_command_of_the_whole_grammar_can_be_built_alone():
    whole = build_parser()
    commands = next(a for a in whole._actions if isinstance(a, argparse._SubParsersAction))
    assert set(commands.choices) == COMMAND_NAMES
    for name in COMMAND_NAMES:
        alone = build_parser(name)
        built = next(a for a in alone._actions if isinstance(a, argparse._SubParsersAction))
        assert name in built.choices and len(built.choices) < len(commands.choices)


@pytest.mark.parametrize("argv", RUNS, ids=lambda argv: argv[0])
def test_a_command_alone_parses_as_the_whole_grammar_does(argv):
    assert command_word(argv) == argv[0]
    alone = build_parser(command_word(argv)).parse_args(argv)
    assert vars(alone) == vars(build_parser().parse_args(argv))


@pytest.mark.parametrize("argv", [["search", "--help"], ["config", "set", "--help"]])
def test_a_command_alone_prints_the_same_help(argv, capsys):
    outputs = []
    for parser in (build_parser(command_word(argv)), build_parser()):
        with pytest.raises(SystemExit):
            parser.parse_args(argv)
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] and "usage: wherein" in outputs[0]


@pytest.mark.parametrize("argv", [[], ["--help"], ["--version"], ["serach", "x"], ["-h", "search"]])
def test_anything_but_a_command_first_gets_the_whole_grammar(argv):
    assert command_word(argv) is None
