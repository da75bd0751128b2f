"""The learned extraction scorer: its predictions, its training command, what it decides
on a document written for the test."""

from __future__ import annotations

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from books.chunking import chunk_sections
from books.extraction.candidates import book_candidates, book_term_rows
from books.extraction.scoring import Linear, scorer_get, scorer_override
from books.extraction.termhood import doc_stats, term_key
from books.parsing import parse_document

GUIDE = """\
Brewkit guide
=============

Brewkit turns a recipe into a brewing plan. Run `brewkit plan recipe.toml`; Brewkit
prints the plan and the mash schedule. Set the target with `brewkit --gravity`.

Mash schedule
-------------

A mash schedule is a list of rests. Brewkit reads the mash schedule from the recipe
and warns when a rest is too short. The mash schedule may hold up to nine rests.

Options
-------

  --gravity value
         The gravity Brewkit aims for.

  --dry-run
         Print the plan without saving it.

Terms
-----

"Batch" means one brew of one recipe. Brewkit numbers every batch, and the
mash schedule of a batch is kept with it.
"""


def chunks_of(text: str):
    document = parse_document(text.encode(), fmt="text")
    return chunk_sections(document.sections, max_chars=2000)


def test_the_stored_weights_are_used():
    scorer = scorer_get()
    assert scorer is not None, "run manage.py train_extraction"
    assert len(scorer.entity.mean) == len(book_term_rows(chunks_of(GUIDE))[0].features)


def test_a_repeated_term_and_an_option_list_entry_are_entities():
    found = {term_key(c.name): c for c in book_candidates(chunks_of(GUIDE))}
    assert found["mash schedule"].type == "concept"  # a repeated term of the document
    assert found["--gravity"].type == "option"
    assert not {"the", "and", "with"} & set(found)


def test_a_terms_standing_among_the_documents_terms_does_not_depend_on_its_length():
    terms = {"brewkit", "mash schedule", "batch", "recipe", "--dry-run"}
    ranks = []
    for copies in (1, 3):
        chunks = chunks_of("\n\n".join([GUIDE] * copies))
        stats = doc_stats(chunks, [c.text for c in chunks], terms)
        ranks.append({t: stats.rank(t) for t in terms})
    assert ranks[0] == ranks[1]  # three times the text, the same proportions
    assert ranks[0]["brewkit"] > ranks[0]["batch"] > ranks[0]["--dry-run"]


def test_without_weights_the_syntactic_rules_still_work():
    with scorer_override(None):
        found = {c.name: c for c in book_candidates(chunks_of(GUIDE))}
    assert found["--gravity"].type == "option"


def test_the_numpy_predictor_agrees_with_scikit_learn():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(7)
    x = rng.normal(size=(200, 4))
    y = (x[:, 0] - 0.5 * x[:, 2] + rng.normal(scale=0.3, size=200) > 0).astype(int)
    model = LogisticRegression().fit(x, y)
    linear = Linear(np.zeros(4), np.ones(4), model.coef_, model.intercept_)
    assert np.allclose(linear.proba(x), model.predict_proba(x)[:, 1])
    labels = np.where(x[:, 1] > 0.5, "a", np.where(x[:, 3] > 0, "b", "c"))
    multi = LogisticRegression().fit(x, labels)
    linear = Linear(np.zeros(4), np.ones(4), multi.coef_, multi.intercept_, tuple(multi.classes_))
    assert np.allclose(linear.proba(x), multi.predict_proba(x))
    assert Linear.from_json(linear.to_json()).classes == ("a", "b", "c")


def test_training_on_a_small_gold_file(tmp_path, capsys):
    (tmp_path / "brewkit.txt").write_text(GUIDE)
    (tmp_path / "kiln.txt").write_text(GUIDE.replace("Brewkit", "Kilnkit").replace("mash", "glaze"))
    (tmp_path / "gold.tsv").write_text(
        "doc\tkind\tnames\ttype\tdefining_heading\n"
        "brewkit.txt\tkey\tBrewkit\tsoftware\tBrewkit guide\n"
        "brewkit.txt\tkey\tmash schedule\tconcept\tMash schedule\n"
        "brewkit.txt\tkey\t--gravity\toption\tOptions\n"
        "brewkit.txt\tjunk\tThe\t-\t-\n"
        "kiln.txt\tkey\tKilnkit\tsoftware\tKilnkit guide\n"
        "kiln.txt\tkey\tglaze schedule\tconcept\tGlaze schedule\n"
        "kiln.txt\tkey\t--dry-run\toption\tOptions\n"
    )
    before = scorer_get()
    call_command("train_extraction", str(tmp_path / "gold.tsv"), "--no-save")
    assert scorer_get() is before  # --no-save leaves the stored weights alone


def test_training_names_a_missing_gold_file(tmp_path):
    with pytest.raises(CommandError, match="No such gold file"):
        call_command("train_extraction", str(tmp_path / "absent.tsv"), "--no-save")
