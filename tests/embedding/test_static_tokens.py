"""The fast tier's piece tokenizer gives exactly the ids of WordLlama's own tokenizer."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.helpers import ascii_texts
from wherein.embedding.static import PIECES_AFTER_TEXTS, StaticEmbedder
from wherein.embedding.static_tokens import (
    ASCII_PIECE,
    CACHE_LIMIT,
    SPACE,
    PieceTokenizer,
    boundaries_hold,
    unicode_piece,
)

HARD_TEXTS = [
    "def parse_cookie(header):\n    return dict(p.split('=') for p in header)\n",
    "        if x>=10**9: return {'a': [1,2,3]}  # ≥ naïve",
    "",
    " ",
    "    ",
    "x",
    "naïve ünïcode — 中文 😀 \t\x00 control\r\n",
    "e\u0301 combining, ² superscript, ½ and Ⅻ, ١٢٣ Arabic-Indic digits",
    "a literal \u2581 visible space and \u2581\u2581 two",
    "regex (?P<name>x) and <s> and </s> and <unk> written out",
    "tabs\tand\x0bvertical\x0cform feeds",
    "x" * 3000 + " " + "_" * 500,
]


@pytest.fixture(scope="module")
def tokenizer():
    return StaticEmbedder().tokenizer


def _reference(tokenizer, texts):
    return [e.ids for e in tokenizer.encode_batch(texts, add_special_tokens=False)]


def test_no_token_of_the_vocabulary_spans_a_cut(tokenizer):
    added = set(tokenizer.get_added_tokens_decoder())
    merged = [token for token, i in tokenizer.get_vocab().items() if i not in added]
    assert len(merged) > 30_000
    assert boundaries_hold(merged)
    # The check can fail: a token made of a letter and a digit would cross a cut.
    assert not boundaries_hold([*merged[:10], "a1"])
    assert not boundaries_hold(["\u2581def", "x\u2581y"])


def test_the_ascii_cut_is_the_unicode_cut_on_ascii_texts():
    for text in ["abc123def  456__x\t\n", *ascii_texts(7, "aaeezZ09 ")]:
        spaced = SPACE + text.replace(" ", SPACE)
        assert ASCII_PIECE.findall(spaced) == unicode_piece().findall(spaced), text
    # The cut differs where the text is not ASCII, which is why only ASCII texts take it.
    assert ASCII_PIECE.findall("naïve") != unicode_piece().findall("naïve")


def test_ids_equal_the_tokenizers_own_on_hard_texts(tokenizer):
    assert PieceTokenizer(tokenizer).ids(HARD_TEXTS) == _reference(tokenizer, HARD_TEXTS)


def test_ids_equal_the_tokenizers_own_on_this_repositorys_code(tokenizer):
    root = Path(__file__).resolve().parents[2]
    texts = []
    for path in sorted((root / "wherein").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        texts.extend(text[i : i + 900] for i in range(0, len(text), 900))
    assert len(texts) > 500
    pieces = PieceTokenizer(tokenizer)
    assert pieces.ids(texts) == _reference(tokenizer, texts)
    assert pieces.ids(texts) == _reference(tokenizer, texts)  # the second time from the cache


def test_the_cache_starts_again_at_its_bound(tokenizer, monkeypatch):
    monkeypatch.setattr("wherein.embedding.static_tokens.CACHE_LIMIT", 3)
    pieces = PieceTokenizer(tokenizer)
    text = "alpha beta gamma delta epsilon zeta"
    first = pieces.ids([text])
    assert len(pieces._pieces) > 3
    assert pieces.ids([text]) == first == _reference(tokenizer, [text])
    spaced = SPACE + text.replace(" ", SPACE)
    assert len(pieces._pieces) <= len(unicode_piece().findall(spaced))
    assert CACHE_LIMIT > 100_000


def test_a_text_holding_an_added_token_goes_to_the_tokenizer_whole(tokenizer):
    text = "x = '<s>'"
    pieces = PieceTokenizer(tokenizer)
    assert pieces.ids([text]) == _reference(tokenizer, [text])
    assert pieces._pieces == {}  # never cut into pieces


def test_queries_embedded_alone_never_switch_to_the_pieces():
    """A server embeds one query at a time for hours: none of them may pay for building
    the piece cache (and importing `regex`); a batch of chunks does, and gets the same ids."""
    embedder = StaticEmbedder()
    queries = [f"where is request number {n} retried" for n in range(PIECES_AFTER_TEXTS * 3)]
    alone = [embedder.embed([q])[0] for q in queries]
    assert embedder._pieces is None
    batch = embedder.embed(queries)
    assert embedder._pieces is not None
    assert np.array_equal(np.stack(alone), batch)


def test_an_ascii_query_is_embedded_from_pieces_without_importing_regex(tmp_path):
    """A fresh search's ASCII query never needs the Unicode cut, so never `regex` (8 ms)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from wherein.embedding.static_tokens import cut_pieces\n"
        "cut_pieces('where is the cookie header parsed')\n"
        "assert 'regex' not in sys.modules, 'regex imported'\n"
        "cut_pieces('naïve')\n"
        "assert 'regex' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=tmp_path)
