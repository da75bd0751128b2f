"""Excerpts of chunks as rules over generated text (Hypothesis).

A mention's context and a search hit's opening are what a curator reads beside a name.
For any prose, headings and lists:

* a mention's excerpt quotes the word it is about, as plain text (no heading marks or
  bullets), within the length limit and its two ellipses;
* a chunk's excerpt opens with its first sentence and keeps to the limit;
* neither raises on any text and any span inside it.
"""

from __future__ import annotations

from hypothesis import given, seed, settings
from hypothesis import strategies as st

from books.excerpts import chunk_excerpt, context_excerpt

RULES = settings(max_examples=80, deadline=None, derandomize=True)
WORDS = ("marsh", "reed", "the", "grows", "slowly", "under", "water", "and", "stone", "in")
words = st.lists(st.sampled_from(WORDS), min_size=2, max_size=40)
sentence = words.map(lambda ws: " ".join(ws).capitalize() + ".")
markers = st.sampled_from(["", "## ", "- ", "1. ", "> "])
lines = st.lists(st.tuples(markers, st.lists(sentence, min_size=1, max_size=3)), max_size=6)
TERM = "Velmora"


def document(spec, where: int) -> tuple[str, int]:
    """The text, with the term placed in the ``where``-th line (or a line of its own)."""
    out = [f"{marker}{' '.join(sentences)}" for marker, sentences in spec]
    at = where % (len(out) + 1)
    line = out[at] if at < len(out) else "It grows here."
    cut = line.find(" ") + 1 if " " in line else 0
    out[at : at + 1] = [f"{line[:cut]}{TERM} {line[cut:]}".rstrip()]
    text = "\n\n".join(out)
    return text, text.index(TERM)


@seed(2481)
@RULES
@given(spec=lines, where=st.integers(0, 10), limit=st.integers(60, 400))
def test_a_mention_excerpt_quotes_its_word_as_plain_text(spec, where, limit) -> None:
    text, start = document(spec, where)
    excerpt = context_excerpt(text, start, start + len(TERM), limit=limit)
    assert TERM in excerpt
    assert len(excerpt) <= limit + 2  # the cut's two ellipses
    assert not excerpt.startswith(("#", "- ", "> ", "1. "))
    assert "\n" not in excerpt


@seed(2482)
@RULES
@given(spec=lines.filter(bool), limit=st.integers(20, 300))
def test_a_chunk_excerpt_opens_with_the_first_sentence(spec, limit) -> None:
    text = "\n\n".join(f"{marker}{' '.join(sentences)}" for marker, sentences in spec)
    excerpt = chunk_excerpt(text, limit=limit)
    assert len(excerpt) <= limit + 1
    first = spec[0][1][0]
    opening = first[: max(0, min(len(first), limit) - 1)].rstrip()
    assert excerpt.startswith(opening), (excerpt, first)


@seed(2483)
@settings(max_examples=150, deadline=None, derandomize=True)
@given(text=st.text(max_size=200), a=st.integers(0, 200), b=st.integers(0, 200))
def test_excerpts_never_raise(text, a, b) -> None:
    start, end = sorted((min(a, len(text)), min(b, len(text))))
    assert isinstance(context_excerpt(text, start, end), str)
    assert isinstance(chunk_excerpt(text), str)


def test_a_numbered_item_reads_without_its_number() -> None:
    # The sentence splitter ends a sentence at "1.": the number once led the excerpt.
    text = "1. Marsh reed grows in water.\n\n2. Stone sinks."
    assert chunk_excerpt(text) == "Marsh reed grows in water. Stone sinks."
    start = text.index("reed")
    assert context_excerpt(text, start, start + 4).startswith("Marsh reed grows")
