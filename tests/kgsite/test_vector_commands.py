"""rebuild_vectors and calibrate_vectors as an operator runs them: what they print, that
a rebuild finds what was stored (and nothing deleted), and that a dry run keeps nothing."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from books.models import Chunk
from books.services import book_delete, book_ingest
from kgsite.vectors.index import KINDS
from kgsite.vectors.service import vector_index, vector_indexes_reset

pytestmark = pytest.mark.django_db

KITES = (
    b"# Kites\n\n## Box kite\n\nThe Box kite flies in strong wind.\n\n"
    b"## Delta kite\n\nThe Delta kite flies in light wind.\n"
)
SPOOLS = b"# Spools\n\n## Reel\n\nA Reel keeps the line of the Box kite.\n"


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_a_rebuild_indexes_every_chunk_still_stored_and_none_deleted(vector_dir):
    kites = book_ingest(data=KITES, filename="kites.md").book
    book_ingest(data=SPOOLS, filename="spools.md")
    book_delete(book=kites)
    kept = set(Chunk.objects.values_list("pk", flat=True))
    out = run("rebuild_vectors", "--kind", "chunks", "--no-progress")
    assert out.startswith(f"chunks: {len(kept)} items indexed in ")
    vector_indexes_reset()  # what the next process reads
    index = vector_index("chunks")
    index.refresh()
    assert index.live_count == len(kept)
    assert all(pk in index for pk in kept)
    assert not any(pk in index for pk in range(1, max(kept)) if pk not in kept)


def test_a_rebuild_of_every_kind_prints_one_line_each(vector_dir):
    book_ingest(data=SPOOLS, filename="spools.md")
    lines = run("rebuild_vectors", "--no-progress").splitlines()
    assert [line.split(":")[0] for line in lines] == sorted(KINDS)
    assert all(re.fullmatch(r"[\w-]+: \d+ items indexed in \S+", line) for line in lines), lines
    chunks = next(line for line in lines if line.startswith("chunks:"))
    assert chunks.startswith(f"chunks: {Chunk.objects.count()} items indexed in {vector_dir}")


def test_a_repeated_kind_is_rebuilt_and_a_wrong_one_stops_before_any(vector_dir):
    with pytest.raises(CommandError) as caught:
        call_command("rebuild_vectors", "--kind", "chunks", "--kind", "pages", stdout=StringIO())
    assert str(caught.value).startswith("unknown kind 'pages'")


def test_calibrating_an_empty_index_is_one_line(vector_dir):
    with pytest.raises(CommandError) as caught:
        call_command("calibrate_vectors", "--kind", "chunks", "--dry-run", stdout=StringIO())
    message = str(caught.value)
    assert message and "\n" not in message


def _shelf() -> None:
    for i in range(12):
        book_ingest(
            data=f"# Book {i}\n\n## Part {i}\n\nKite {i} flies over hill {i * 7}.\n".encode(),
            filename=f"book{i}.md",
        )


def test_a_dry_run_prints_the_table_and_keeps_nothing(vector_dir):
    _shelf()
    out = run("calibrate_vectors", "--kind", "chunks", "--k", "3", "--queries", "5", "--dry-run")
    lines = out.splitlines()
    assert lines[0].startswith("chunks: ") and "recall@3" in lines[0]
    assert lines[1].split() == ["ef_search", "recall", "p50", "ms"]
    assert "kept in" not in out
    assert not list(vector_dir.rglob("*calibrat*"))


def test_a_calibration_is_kept_beside_the_index(vector_dir):
    _shelf()
    out = run("calibrate_vectors", "--kind", "chunks", "--k", "3", "--queries", "5")
    kept = vector_dir / "chunks" / "calibration.json"
    assert out.rstrip().endswith(f"kept in {kept}") and kept.is_file()
