"""Every format the file picker offers, uploaded through the page as a curator does: the
job runs to done and the book's page lists its chapters, in the file's order."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from books.models import Book, IngestJob
from tests.books.test_formats import make_epub

pytestmark = pytest.mark.django_db

CHAPTERS = ("Box kites", "Delta kites")


def _files() -> dict[str, bytes]:
    first, second = CHAPTERS
    return {
        "kites.md": f"# Kites\n\n## {first}\n\nThey fly.\n\n## {second}\n\nThey glide.\n".encode(),
        "kites.markdown": f"Kites\n=====\n\n{first}\n---------\n\nThey fly.\n\n{second}\n"
        "-----------\n\nThey glide.\n".encode(),
        "kites.rst": f"Kites\n=====\n\n{first}\n---------\n\nThey fly.\n\n{second}\n"
        "-----------\n\nThey glide.\n".encode(),
        "kites.html": f"<h1>Kites</h1><h2>{first}</h2><p>They fly.</p><h2>{second}</h2>"
        "<p>They glide.</p>".encode("cp1252"),
        "kites.epub": make_epub([(first, "They fly."), (second, "They glide.")]),
        "kites.1": f'.TH KITES 1\n.SH "{first.upper()}"\nThey fly.\n.SH "{second.upper()}"\n'
        "They glide.\n".encode(),
        "kites.txt": f"KITES\n\n1. {first}\n\nThey fly.\n\n2. {second}\n\nThey glide.\n\n"
        "3. Spools\n\nThey turn.\n".encode(),
    }


@pytest.mark.parametrize("name", sorted(_files()))
def test_each_format_uploaded_on_the_page_becomes_a_book_with_its_chapters(
    curator_client, django_capture_on_commit_callbacks, name
):
    upload = SimpleUploadedFile(name, _files()[name])
    with django_capture_on_commit_callbacks(execute=True):
        response = curator_client.post(reverse("books:upload"), {"file": upload})
    assert response.status_code == 302, response.content.decode()[:500]
    job = IngestJob.objects.get()
    assert job.status == IngestJob.Status.DONE, job.error
    book = Book.objects.get()
    html = curator_client.get(f"/books/{book.pk}/").content.decode()
    chapters = html.split('aria-label="chapters"')[1].split("</nav>")[0]
    found = [c for c in re.findall(r">([^<>]+)</a> <small", chapters)]
    wanted = [c.upper() if name.endswith(".1") else c for c in CHAPTERS]
    positions = [next(i for i, f in enumerate(found) if w in f) for w in wanted]
    assert positions == sorted(positions)
    assert "They glide." in html
