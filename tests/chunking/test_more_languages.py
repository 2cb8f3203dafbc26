"""Which grammar reads OCaml interfaces, Nim and ClojureScript (declarations: test_declarations)."""

from __future__ import annotations

import pytest

from wherein.chunking import chunk_source


def test_an_ocaml_interface_parses_without_errors_in_its_own_grammar():
    from tree_sitter_language_pack import get_parser

    from wherein.chunking.languages import language_for

    source = b"type t\nval find : t -> int\nmodule M : sig val z : int end\n"
    assert language_for("stdlib/list.mli") == "ocaml_interface"
    assert not get_parser(language_for("stdlib/list.mli")).parse(source).root_node.has_error
    assert get_parser("ocaml").parse(source).root_node.has_error  # why .mli has its own


@pytest.mark.parametrize("path", ["src/pool.nim", "pool.nimble", "config.nims"])
def test_nim_sources_nimble_files_and_nimscript_are_nim(path):
    assert chunk_source(path, "x\n")[0] == "nim"


@pytest.mark.parametrize("path", ["src/app.cljs", "src/shared.cljc"])
def test_clojurescript_and_shared_clojure_are_clojure(path):
    assert chunk_source(path, "(defn f [] 1)\n")[1][0].symbols == ("f",)
