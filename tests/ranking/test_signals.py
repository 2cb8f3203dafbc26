"""The code-search signals: each one changes an order it should, and leaves others alone."""

from __future__ import annotations

from wherein.ranking.paths import TEST_PENALTY
from wherein.ranking.signals import (
    Candidate,
    apply_signals,
    copied_directories,
    is_symbol_query,
    path_penalty,
)


def _c(chunk_id, path, score, symbols=(), start=1, end=10, prototypes=()):
    return Candidate(chunk_id, path, start, end, tuple(symbols), score, tuple(prototypes))


def test_is_symbol_query_tells_identifiers_from_words():
    for query in ("Session", "parse_url", "getHTTPResponse", "a.b.c", "Foo::bar", "App\\Mail"):
        assert is_symbol_query(query), query
    for query in ("session", "how are routes registered", "retry on failure"):
        assert not is_symbol_query(query), query


def test_definition_beats_a_mere_use_for_a_symbol_query():
    use = _c(1, "app/client.py", 1.0, symbols=("send_all",))
    definition = _c(2, "app/models.py", 0.6, symbols=("Session", "Session.send"))
    ranked = apply_signals("Session", [use, definition])
    assert [c.chunk_id for c in ranked] == [2, 1]
    # Without the definition signal the fused order stands.
    ranked = apply_signals("Session", [use, definition], frozenset({"penalty"}))
    assert [c.chunk_id for c in ranked] == [1, 2]


def test_a_qualified_query_prefers_the_definition_its_qualifier_names():
    # The qualifier is read whatever joins it: C++ and Ruby `::`, PHP `->` and `\\`, `#`, `.`.
    other = _c(1, "src/prog.cc", 1.0, symbols=("re2.Prog.PossibleMatchRange",))
    named = _c(2, "src/engine.cc", 0.8, symbols=("re2.DFA.PossibleMatchRange",))
    for query in (
        "DFA::PossibleMatchRange",
        "DFA->PossibleMatchRange",
        "re2\\DFA#PossibleMatchRange",
    ):
        assert [c.chunk_id for c in apply_signals(query, [other, named])] == [2, 1], query
    # Named in a sentence too; and the last part alone still asks for both.
    sentence = "how does DFA.PossibleMatchRange stop"
    ranked = apply_signals(sentence, [other, named], frozenset({"definition"}))
    assert [c.chunk_id for c in ranked] == [2, 1]
    assert [c.chunk_id for c in apply_signals("PossibleMatchRange", [other, named])] == [1, 2]


def test_a_name_stored_with_more_or_fewer_qualifiers_than_the_query_still_fits():
    outside = _c(1, "src/other.cc", 1.0, symbols=("PCRE.Replace",))
    fewer = _c(2, "src/re2.cc", 0.7, symbols=("RE2.Replace",))
    more = _c(3, "src/re2.cc", 0.7, symbols=("re2.RE2.Replace",), start=20, end=30)
    for candidate in (fewer, more):
        for query in ("RE2::Replace", "re2::RE2::Replace"):
            ranked = apply_signals(query, [outside, candidate])
            assert ranked[0].chunk_id == candidate.chunk_id, (query, candidate.symbols)


def test_a_qualifier_that_names_no_definition_among_them_takes_nothing_away():
    # `req.params` names a variable, not the class `Request`.
    member = _c(1, "src/request.py", 0.7, symbols=("Request.params",))

    def score(query):
        return apply_signals(query, [member, _c(2, "src/app.py", 1.0)])[0].score

    assert score("req.params") == score("Request.params") == score("request.params")


def test_a_prototype_earns_less_than_the_definition_with_a_body_it_announces():
    header = _c(1, "re2/re2.h", 1.0, symbols=("re2.RE2.Replace",), prototypes=("re2.RE2.Replace",))
    source = _c(2, "re2/re2.cc", 0.7, symbols=("re2.RE2.Replace",))
    for query in ("RE2::Replace", "Replace"):
        assert [c.chunk_id for c in apply_signals(query, [header, source])] == [2, 1], query
    # Alone, or beside a definition whose qualifier differs, a prototype keeps its boost.
    other = _c(3, "util/pcre.cc", 0.7, symbols=("PCRE.Replace",))
    assert [c.chunk_id for c in apply_signals("RE2::Replace", [header, other])] == [1, 3]
    use = _c(4, "re2/re2.cc", 1.0)
    as_definition = header._replace(prototypes=())
    alone = apply_signals("RE2::Replace", [header, use])[0]
    assert alone.chunk_id == 1
    assert alone.score == apply_signals("RE2::Replace", [as_definition, use])[0].score


def test_tests_are_penalised_unless_the_query_asks_for_them():
    assert path_penalty("tests/test_app.py", set()) < 1.0
    assert path_penalty("src/app_test.go", set()) < 1.0
    assert path_penalty("tests/test_app.py", {"test"}) == 1.0
    assert path_penalty("src/app.py", set()) == 1.0
    source = _c(1, "src/app.py", 0.8)
    test = _c(2, "tests/test_app.py", 1.0)
    assert apply_signals("app startup", [test, source])[0].chunk_id == 1
    assert apply_signals("app startup tests", [test, source])[0].chunk_id == 2


def test_path_naming_the_concept_lifts_its_file():
    other = _c(1, "pkg/util.py", 1.0)
    named = _c(2, "pkg/cookies.py", 0.9)
    assert apply_signals("cookie parsing", [other, named])[0].chunk_id == 2
    assert apply_signals("cookie parsing", [other, named], frozenset())[0].chunk_id == 1


def test_diversity_lets_a_second_file_in_before_a_third_chunk_of_the_first():
    chunks = [_c(i, "big.py", 1.0 - i * 0.01, start=i * 20, end=i * 20 + 10) for i in range(3)]
    other = _c(9, "small.py", 0.7)
    ranked = apply_signals("something", [*chunks, other], frozenset({"diversity"}))
    assert [c.path for c in ranked[:2]] == ["big.py", "small.py"]


def test_copied_directories_finds_a_version_folder_that_repeats_its_parent():
    paths = [f"pkg/{n}.py" for n in ("fields", "main", "types", "config", "json")]
    paths += [f"pkg/v1/{n}.py" for n in ("fields", "main", "types", "validators")]
    paths += [f"api/v1/{n}.py" for n in ("users", "items", "auth")]
    paths += [f"api/v2/{n}.py" for n in ("users", "items", "auth")]
    assert copied_directories(paths) == frozenset({"pkg/v1"})


def test_a_copy_counts_for_less_unless_the_query_names_it():
    paths = [f"pkg/{n}.py" for n in ("fields", "main", "types")]
    paths += [f"pkg/v1/{n}.py" for n in ("fields", "main", "types")]
    copies = copied_directories(paths)
    old = _c(1, "pkg/v1/fields.py", 1.0)
    new = _c(2, "pkg/fields.py", 0.8)
    assert apply_signals("field declaration", [old, new], copies=copies)[0].chunk_id == 2
    assert apply_signals("v1 field declaration", [old, new], copies=copies)[0].chunk_id == 1


def test_tests_inside_a_source_file_are_penalised_as_test_files_are():
    # Rust keeps a file's tests beside its code, in `#[cfg(test)] mod tests`: the path
    # cannot tell them, their qualified names can.
    code = _c(1, "src/header.rs", 0.8, symbols=("parse_header",))
    inline = _c(2, "src/header.rs", 1.0, symbols=("tests.parses_a_header",), start=40, end=60)
    mixed = _c(3, "src/header.rs", 1.0, symbols=("tests", "parse_all"), start=70, end=80)
    assert [c.chunk_id for c in apply_signals("parse header", [inline, code])] == [1, 2]
    assert apply_signals("parse header tests", [inline, code])[0].chunk_id == 2
    assert apply_signals("parse header", [mixed, code])[0].chunk_id == 3  # not all in tests
    # A test file is penalised once, not twice.
    in_file = _c(4, "tests/header.rs", 1.0, symbols=("tests.parses_a_header",))
    only = frozenset({"penalty"})
    assert apply_signals("parse header", [in_file], only)[0].score == 1.0 * TEST_PENALTY
    assert apply_signals("parse header", [inline], only)[0].score == 1.0 * TEST_PENALTY


def test_an_owner_and_member_named_as_two_words_ask_for_the_member():
    # "RotatingFileHandler rotate": the class's own chunk names one word, the method both.
    owner = _c(1, "Handler/RotatingFileHandler.php", 1.0, symbols=("RotatingFileHandler",))
    member = _c(
        2, "Handler/RotatingFileHandler.php", 0.5, ("RotatingFileHandler.rotate",), 130, 170
    )
    other = _c(3, "Handler/LogRotator.php", 0.6, symbols=("LogRotator.rotate",))
    for query in ("RotatingFileHandler rotate", "where does the RotatingFileHandler rotate files"):
        assert [c.chunk_id for c in apply_signals(query, [owner, member, other])][0] == 2, query
    # Lower-case words name it too; the other order, or a word between, names no member.
    assert apply_signals("rotatingfilehandler rotate", [owner, member, other])[0].chunk_id == 2
    for query in ("rotate RotatingFileHandler", "RotatingFileHandler files rotate"):
        assert apply_signals(query, [owner, member, other])[0].chunk_id == 1, query


def test_a_member_pair_prefers_the_definition_with_a_body_to_its_prototype():
    header = _c(1, "src/lexer.h", 1.0, ("Lexer.scan",), prototypes=("Lexer.scan",))
    source = _c(2, "src/lexer.cc", 0.7, symbols=("Lexer.scan",))
    only = frozenset({"definition"})
    assert [c.chunk_id for c in apply_signals("Lexer scan", [header, source], only)] == [2, 1]
    # Alone, the prototype takes the whole boost.
    use = _c(3, "src/lexer.cc", 1.5)
    assert [c.chunk_id for c in apply_signals("Lexer scan", [header, use], only)] == [1, 3]
