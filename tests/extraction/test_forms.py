"""The general marks and definition forms of ``books.extraction.forms``: what a reader
sees as a name or a definition in any document, in several languages. Their linear
time is checked with every other text reader in ``tests/kgsite/test_linear_time.py``."""

from __future__ import annotations

from books.chunking import chunk_sections
from books.extraction.forms import defined, described, marked
from books.parsing import clean_heading, parse_document


def names(text: str, source: str | None = None) -> list[str]:
    return [n for n, s, _at in marked(text) if source is None or s == source]


def test_bold_text_and_structured_tokens_are_marked():
    text = (
        "Run **rebuild-index** after editing <wobble.h>; media such as "
        "image/x-quux and the .NOTPARALLEL target, $WOBBLE_HOME and _WB_MAX too."
    )
    assert names(text, "bold") == ["rebuild-index"]
    assert names(text, "token") == [
        "wobble.h",
        "image/x-quux",
        ".NOTPARALLEL",
        "$WOBBLE_HOME",
        "_WB_MAX",
    ]


def test_abbreviations_urls_and_sentence_ends_are_not_tokens():
    text = "Use it, e.g. daily, i.e. often. See http://example.org/a/b for more. Done."
    assert names(text, "token") == []


def test_acronyms_and_inner_capitals_have_a_name_shape():
    assert names("Ask the QXZ group or use GlimmerDB, not a Word.", "shape") == [
        "QXZ",
        "GlimmerDB",
    ]


def test_copular_definitions_in_italian_portuguese_and_french():
    found = [t for t, _at in defined("Il frullatore è un programma. O zumbido é uma rede.")]
    assert found == ["frullatore", "zumbido"]
    assert [t for t, _ in defined("Le grelot est une bibliothèque de calcul.")] == ["grelot"]


def test_an_infinitive_and_a_quoted_term_are_defined():
    text = 'To "frobnicate" a file means to twist it. "The Widget" refers to any gadget.'
    assert [t for t, _at in defined(text)] == ["frobnicate", "The Widget"]


def test_offsets_point_at_the_term():
    text = "Intro. **zorble** here"
    (name, _source, at), *_ = marked(text)
    assert text[at : at + len(name)] == name


def test_underscores_inside_a_markdown_heading_stay():
    assert clean_heading("SOME_FLAG_NAME") == "SOME_FLAG_NAME"
    assert clean_heading("_emphasis_ and **bold**") == "emphasis and bold"


def test_a_chunk_describing_a_term_in_prose_is_told_from_one_declaring_it():
    declaring = "    int wob_open(int fd, int mode);\n    int wob_shut(int fd);\n"
    describing = (
        "    wob_open() opens the device named by fd and returns a handle\n"
        "    that later calls read from.\n"
    )
    prose, subject = described(describing, "wob_open()")
    assert subject == 1.0 and prose > 0
    assert described(declaring, "wob_open()") == [0.0, 0.0]


def test_an_option_list_separated_by_tabs_defines_its_options():
    from books.extraction.termhood import gather

    text = "Options:\n\n\t-q\tkeeps the tool quiet about skipped files.\n\t-v\ttalks more.\n"
    chunks = chunks_of(text)
    pool = gather(chunks, [c.text for c in chunks])
    assert pool.terms["-q"].sources["option_list"] == 1
    assert pool.terms["-v"].defined_in  # the chunk of its entry defines it
    assert described(text, "-q")[1] == 1.0


def chunks_of(text: str):
    return chunk_sections(parse_document(text.encode(), fmt="text").sections, max_chars=2000)
