"""Bounded uploads (issue 27 item 6): an EPUB that would expand past the caps is refused
before it is expanded, and no text is lost without a word."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from books.formats.archive import ArchiveLimits, lost_text, markup_text_chars, zip_check
from books.models import Book, IngestJob
from books.parsing import parse_document
from books.services import book_ingest
from kgsite.errors import InvalidInput

pytestmark = pytest.mark.django_db

CONTAINER = (
    '<?xml version="1.0"?><container version="1.0" '
    'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
    '<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
    "</rootfiles></container>"
)


def epub(chapters: list[tuple[str, str]], *, extra: dict[str, bytes] | None = None) -> bytes:
    """An EPUB written byte by byte (ebooklib's writer re-parses, and so truncates, the
    huge chapters these tests need)."""
    out = io.BytesIO()
    items = "".join(
        f'<item id="c{i}" href="c{i}.xhtml" media-type="application/xhtml+xml"/>'
        for i in range(len(chapters))
    )
    spine = "".join(f'<itemref idref="c{i}"/>' for i in range(len(chapters)))
    opf = (
        '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" '
        'unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
        '<dc:identifier id="id">book</dc:identifier><dc:title>A Test</dc:title>'
        f"<dc:language>en</dc:language></metadata><manifest>{items}</manifest>"
        f"<spine>{spine}</spine></package>"
    )
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        archive.writestr("META-INF/container.xml", CONTAINER)
        archive.writestr("OEBPS/content.opf", opf)
        for i, (title, body) in enumerate(chapters):
            page = (
                '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml">'
                f"<head><title>{title}</title></head><body><h1>{title}</h1><p>{body}</p>"
                "</body></html>"
            )
            archive.writestr(f"OEBPS/c{i}.xhtml", page)
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    return out.getvalue()


def words(n_chars: int) -> str:
    """Varied prose-like text: compresses like a book, not like one repeated letter."""
    import random

    rng = random.Random(n_chars)
    vocabulary = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
        for _ in range(3000)
    ]
    out, size = [], 0
    while size < n_chars:
        word = rng.choice(vocabulary)
        out.append(word)
        size += len(word) + 1
    return " ".join(out)


def upload(curator_api, data: bytes, name: str = "hostile.epub"):
    file = SimpleUploadedFile(name, data, content_type="application/epub+zip")
    return curator_api.post("/api/v1/books/", {"file": file}, format="multipart")


def test_a_zip_bomb_epub_is_a_400_naming_the_limit(curator_api, vector_dir):
    data = epub([(f"Part {i}", "z" * 5_000_000) for i in range(20)])  # 100 MB of text
    assert len(data) < 500_000
    response = upload(curator_api, data)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == "file"
    assert "expands" in error["message"] and "over the limit of 100 times" in error["message"]
    assert not IngestJob.objects.exists() and not Book.objects.exists()


def test_one_huge_entry_is_refused_by_the_per_file_cap(curator_api, vector_dir, settings):
    data = epub([("Chapter", words(18 * 1024 * 1024))])  # compresses ~2x: no ratio alarm
    response = upload(curator_api, data)
    assert response.status_code == 400
    message = response.json()["error"]["message"]
    assert "OEBPS/c0.xhtml expands to" in message and "for one file" in message


def test_the_total_and_the_count_of_files_are_capped():
    limits = ArchiveLimits(entry_bytes=10_000, total_bytes=25_000, entries=8)
    with pytest.raises(InvalidInput, match="whole archive"):
        zip_check(epub([("A", words(8_000)), ("B", words(8_000)), ("C", words(8_000))]),
                  limits=limits)  # fmt: skip
    many = {f"OEBPS/img{i}.png": b"x" for i in range(6)}
    with pytest.raises(InvalidInput, match="holds 9 files, over the limit of 8"):
        zip_check(epub([], extra=many), limits=limits)


def test_a_real_sized_book_passes_the_caps():
    data = epub([(f"Chapter {i}", words(200_000)) for i in range(12)])  # a 2.4 M char book
    zip_check(data)  # no error
    document = parse_document(data, fmt="epub")
    assert document.warnings == ()
    assert len(document.text) > 2_300_000


def test_a_text_node_over_ten_megabytes_is_read_whole(settings):
    """libxml2 (through ebooklib's get_content) dropped such a node without a word."""
    body = words(11 * 1024 * 1024)
    settings.KGSITE_ARCHIVE_MAX_RATIO = 1000  # this test is about the parser, not the caps
    document = parse_document(epub([("Chapter", body)]), fmt="epub")
    assert len(document.text) > len(body)
    assert body[-200:] in document.text


def test_the_150_mb_text_node_of_the_review_is_refused_not_emptied(curator_api, vector_dir):
    data = epub([("Chapter A", "x" * 150_000_000)])
    response = upload(curator_api, data)
    assert response.status_code == 400
    assert "expands to 150,000" in response.json()["error"]["message"]


def test_an_ingest_job_fails_naming_the_limit(vector_dir, tmp_path, settings):
    path = tmp_path / "bomb.epub"
    path.write_bytes(epub([(f"Part {i}", "q" * 2_000_000) for i in range(5)]))
    with pytest.raises(InvalidInput, match="over the limit"):
        book_ingest(path=path)


def test_lost_text_is_a_warning_on_the_job(vector_dir, monkeypatch):
    """Whatever the reason a reader loses text, the job says so."""
    from books.formats import html

    real = html.html_to_markdown

    def truncating(markup):  # a reader that keeps only the heading
        return real(markup)[:30]

    monkeypatch.setattr(html, "html_to_markdown", truncating)
    data = epub([("Chapter One", words(50_000)), ("Chapter Two", "A short one.")])
    result = book_ingest(data=data, filename="lossy.epub", embed=False)
    assert len(result.warnings) == 1
    assert "c0.xhtml" in result.warnings[0] and "could not be read" in result.warnings[0]


def test_markup_text_estimate_is_linear_and_ignores_scripts():
    page = "<p>" + "a " * 1000 + "</p><script>var x = 'hidden hidden';</script>"
    assert markup_text_chars(page) == 1000
    assert lost_text(page, "a " * 1000, name="p") is None
    hostile = "<" * 200_000 + "<script " * 50_000 + "&#" * 100_000
    assert markup_text_chars(hostile) >= 0  # returns (no backtracking blow-up)
