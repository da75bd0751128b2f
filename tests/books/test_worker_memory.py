"""A worker's memory stays bounded over documents of new words (issue 27 item 9).

spaCy interns every token string it reads for the life of the process: a worker grew
294 -> 897 MB over two long single-line documents. Measured here on three 1 M-character
single-line documents of invented words (HashingEmbedder, offline extractor): without a
memory zone the vocabulary grew by ~96,000 strings and RSS by ~42 MB per document; with
it the vocabulary stays at the model's own and RSS grows only with the new entities.
"""

from __future__ import annotations

import random

import pytest

from books.services import book_ingest
from entities.extraction import spacy_nlp

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def invented_line(seed: int, n_chars: int) -> str:
    rng = random.Random(seed)
    words: list[str] = []
    size = 0
    while size < n_chars:
        letters = "".join(rng.choice("bcdfghklmnprstvz") + rng.choice("aeiou") for _ in range(3))
        word = letters.capitalize() if rng.random() < 0.3 else letters
        words.append(f"{word} Q{rng.randint(0, 10**9)}." if rng.random() < 0.1 else word)
        size += len(words[-1]) + 1
    return " ".join(words)  # one line, no line break


def test_spacy_forgets_the_words_of_each_document(vector_dir):
    strings = spacy_nlp().vocab.strings
    book_ingest(data=invented_line(0, 20_000).encode(), filename="warmup.txt", embed=False)
    before = len(strings)
    for seed in (1, 2):
        book_ingest(data=invented_line(seed, 40_000).encode(), filename=f"l{seed}.txt", embed=False)
    assert len(strings) == before
