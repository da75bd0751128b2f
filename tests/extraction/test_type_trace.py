"""Which step typed a key: ``train_extraction --cv --misses`` says it of each mistyped key
(the syntactic rules and which of them, the written form, the type model, the
structure, NER), so a round of work on types starts from the step at fault."""

from __future__ import annotations

import pytest

from books.extraction.evaluate import GoldRow, gold_score
from books.extraction.trace import types_traced
from books.services import book_ingest

from .test_scoring import GUIDE

pytestmark = pytest.mark.django_db


def _misses(tmp_path, gold: list[GoldRow]) -> list[str]:
    path = tmp_path / "brewkit.txt"
    path.write_text(GUIDE)
    with types_traced() as trace:
        result = book_ingest(path=path, extractor="offline", embed=False)
    [score, _total] = gold_score(gold, {path.name: result.book.pk}, {}, {path.name: trace})
    return score.misses


def test_a_mistyped_keys_miss_names_the_rule_that_typed_it(tmp_path):
    misses = _misses(tmp_path, [GoldRow("brewkit.txt", "key", ["--gravity"], "command", "")])
    [line] = [m for m in misses if m.startswith("mistyped --gravity")]
    assert "option by rules: marked name" in line


def test_a_mistyped_key_the_type_model_typed_says_model(tmp_path):
    misses = _misses(tmp_path, [GoldRow("brewkit.txt", "key", ["mash schedule"], "format", "")])
    [line] = [m for m in misses if m.startswith("mistyped mash schedule")]
    assert line.endswith("[concept by model]")


def test_without_a_trace_the_miss_reads_as_before(tmp_path):
    path = tmp_path / "brewkit.txt"
    path.write_text(GUIDE)
    result = book_ingest(path=path, extractor="offline", embed=False)
    gold = [GoldRow("brewkit.txt", "key", ["--gravity"], "command", "")]
    [score, _total] = gold_score(gold, {path.name: result.book.pk}, {})
    assert score.misses == ["mistyped --gravity: option (gold command)"]
