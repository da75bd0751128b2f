"""The evaluation and training commands given files as people save them: a spreadsheet's
byte-order mark, another code page, a missing column or folder. One line each, a non-zero
exit, and the configured database untouched."""

from __future__ import annotations

import codecs
from io import StringIO

import pytest
from django.core.management import call_command

from books.models import Book
from tests.commands import command_fails as fails

pytestmark = pytest.mark.django_db

HEADER = "entity_name\tentity_type\tdefining_file\tdefining_heading\n"
ROW = "Box kite\tconcept\tkites.md\tBox kite\n"
KITES = b"# Kites\n\n## Box kite\n\nThe Box kite flies in strong wind.\n"


@pytest.fixture
def kites(tmp_path):
    path = tmp_path / "kites.md"
    path.write_bytes(KITES)
    call_command("ingest_book", str(path), "--sync", stdout=StringIO())
    return path


@pytest.mark.parametrize(
    "encode",
    [lambda s: s.encode(), lambda s: codecs.BOM_UTF8 + s.encode()],
    ids=["utf8", "bom"],
)
def test_eval_defines_reads_a_tsv_with_or_without_a_byte_order_mark(kites, tmp_path, encode):
    tsv = tmp_path / "dev.tsv"
    tsv.write_bytes(encode(HEADER + ROW))
    out = StringIO()
    call_command("eval_defines", str(tsv), stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[1].split() == ["rows", "1"]
    assert lines[3].split() == ["recall", "1.000"]


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"name\ttype\n" + ROW.encode(), "missing column(s) entity_name, entity_type"),
        (HEADER.encode(), "no rows to evaluate"),
        (HEADER.encode() + b"\t\t\t\n", "no rows to evaluate"),
        ((HEADER + "Caf\u00e9\tconcept\tkites.md\tCaf\u00e9\n").encode("cp1252"), "not UTF-8"),
    ],
    ids=["columns", "empty", "blank-row", "cp1252"],
)
def test_eval_defines_bad_tsv_is_one_line_naming_the_file(tmp_path, content, says):
    tsv = tmp_path / "dev.tsv"
    tsv.write_bytes(content)
    message = fails("eval_defines", str(tsv))
    assert says in message and str(tsv) in message


def test_eval_defines_of_a_folder_is_no_such_file(tmp_path):
    assert fails("eval_defines", str(tmp_path)) == f"No such file: {tmp_path}"


@pytest.mark.parametrize(
    ("setup", "args", "says"),
    [
        (None, ["{tmp}/gold.tsv"], "No such file"),
        ("doc\tkind\tnames\ttype\n", ["{tmp}/gold.tsv"], "missing column(s) defining_heading"),
        (
            "doc\tkind\tnames\ttype\tdefining_heading\nkites.md\tmaybe\tBox kite\tconcept\t-\n",
            ["{tmp}/gold.tsv"],
            "gold.tsv:2: kind must be key or junk",
        ),
        (
            "doc\tkind\tnames\ttype\tdefining_heading\nkites.md\tkey\tBox kite\tconcept\t-\n",
            ["{tmp}/gold.tsv", "--docs", "{tmp}/nowhere"],
            "No such folder",
        ),
        (
            "doc\tkind\tnames\ttype\tdefining_heading\ngone.md\tkey\tBox kite\tconcept\t-\n",
            ["{tmp}/gold.tsv"],
            "Not found in",
        ),
    ],
    ids=["missing", "columns", "kind", "folder", "document"],
)
def test_eval_extraction_bad_input_is_one_line_before_any_ingest(tmp_path, setup, args, says):
    if setup is not None:
        (tmp_path / "gold.tsv").write_text(setup, encoding="utf-8")
    real = [a.replace("{tmp}", str(tmp_path)) for a in args]
    assert says in fails("eval_extraction", *real)
    assert not Book.objects.exists()


def test_train_extraction_names_each_missing_gold_file_and_writes_no_weights(tmp_path):
    message = fails(
        "train_extraction", str(tmp_path / "a.tsv"), str(tmp_path / "b.tsv"), "--no-save"
    )
    assert message == f"No such gold file: {tmp_path / 'a.tsv'}, {tmp_path / 'b.tsv'}"


@pytest.mark.parametrize("command", [["eval_extraction"], ["train_extraction", "--no-save"]])
def test_a_gold_in_another_code_page_is_one_line(tmp_path, command):
    gold = tmp_path / "gold.tsv"
    gold.write_bytes(
        "doc\tkind\tnames\ttype\tdefining_heading\nkites.md\tkey\tCaf\u00e9\tconcept\t-\n".encode(
            "cp1252"
        )
    )
    name, *flags = command
    assert fails(name, str(gold), *flags) == f"{gold}: not UTF-8 text: save it as UTF-8"


def test_a_gold_file_saved_with_a_byte_order_mark_reads_its_columns(tmp_path):
    from books.extraction.evaluate import gold_read

    gold = tmp_path / "gold.tsv"
    header = "doc\tkind\tnames\ttype\tdefining_heading\n"
    gold.write_bytes(codecs.BOM_UTF8 + (header + "kites.md\tkey\tBox kite\tconcept\t-\n").encode())
    [row] = gold_read(gold)
    assert row.doc == "kites.md" and row.kind == "key"


def test_the_gold_score_counts_each_found_keys_gold_type_against_the_type_given():
    from books.extraction.evaluate import DocScore, GoldRow, gold_score
    from entities.models import Entity

    Entity.objects.create(canonical_name="Box kite", name_norm="box kite", type="concept")
    Entity.objects.create(canonical_name="kitectl", name_norm="kitectl", type="option")
    rows = [
        GoldRow("kites.md", "key", ["Box kite"], "concept", ""),
        GoldRow("kites.md", "key", ["kitectl"], "command", ""),
        GoldRow("kites.md", "key", ["Sled kite"], "concept", ""),
    ]
    score, total = gold_score(rows, {}, {})
    assert score.confusion == {("concept", "concept"): 1, ("command", "option"): 1}
    merged = DocScore("overall")
    merged.add(score)
    merged.add(score)
    assert merged.confusion[("command", "option")] == 2 and total.confusion == score.confusion
