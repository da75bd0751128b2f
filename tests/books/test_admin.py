"""Books in the admin: deleted through the service, never made by hand."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from books.models import Book, Chunk
from entities.models import Entity
from kgsite.text import normalize

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    client.force_login(User.objects.create_superuser("admin", password="admin-pass"))
    return client


def test_a_book_deleted_in_the_admin_goes_through_the_service(admin_client, ingest):
    ingest("15-appendix-ph-a-conditions.md")
    book = Book.objects.get()
    assert Chunk.objects.filter(book=book).exists()
    assert Entity.objects.exists()  # the conditions this book defines
    response = admin_client.post(f"/admin/books/book/{book.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Book.objects.exists() and not Chunk.objects.exists()
    # book_delete also removes the entities only this book held (a bare delete kept them).
    assert not Entity.objects.exists()


@pytest.mark.parametrize("term", ["Ölçüler", "ÖLÇÜLER", "O\u0308lc\u0327u\u0308ler", "ölçüler"])
def test_the_book_list_finds_a_title_however_it_is_cased_or_composed(admin_client, term):
    for title in ("Ölçüler ve Birimler", "Redis in Action"):
        Book.objects.create(title=title, title_norm=normalize(title))
    page = admin_client.get("/admin/books/book/", {"q": term}).content.decode()
    assert "Birimler" in page and "Redis in Action" not in page
