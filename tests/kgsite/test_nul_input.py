"""A NUL character in an address, a query parameter or a page's form field: no database
column can hold one (PostgreSQL refuses it with an error of its own, a 500 here before).
An address or query parameter is refused before any view reads it, as a 400 naming
where it was; a form field is the form's error, beside the field. Nothing is written,
and SQLite and PostgreSQL answer alike."""

from __future__ import annotations

import pytest

from entities.models import Alias, Entity, EntityMerge
from entities.services import alias_add, entity_store
from kgsite.models import AuditEntry
from tests.commands import command_fails

pytestmark = pytest.mark.django_db


@pytest.fixture
def holmes(db):
    entity, _ = entity_store(name="Sherlock Holmes", type="person")
    alias_add(entity=entity, alias="Mr. Holmes")
    return entity


@pytest.mark.parametrize(
    ("url", "field"),
    [
        ("/audit/?target=%00", "target"),
        ("/audit/?action=a%00b", "action"),
        ("/entities/?q=%00", "q"),
        ("/entities/?q=ok&type=%00", "type"),
        ("/integrity/?page=%00", "page"),
        ("/entities/no%00such/", "path"),
    ],
)
def test_a_page_asked_with_a_nul_answers_400_naming_where(curator_client, holmes, url, field):
    response = curator_client.get(url)
    assert response.status_code == 400
    assert f"{field.capitalize()} contains a NUL character" in response.content.decode()


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("aliases/add", {"alias": "Sherlock\x00"}),
        ("aliases/remove", {"alias": "Mr. Holmes\x00"}),
        ("merge/preview", {"duplicates": "x\x00"}),
        ("merge", {"duplicates": "x\x00"}),
        ("edit", {"canonical_name": "Holmes\x00", "type": "person"}),
        ("facts/add", {"text": "He plays\x00 the violin"}),
    ],
)
def test_a_form_field_with_a_nul_writes_nothing(curator_client, holmes, path, data):
    before = (
        list(Entity.objects.values_list("pk", "canonical_name")),
        list(Alias.objects.values_list("alias", flat=True)),
    )
    audited = AuditEntry.objects.count()  # the fixture's own entity.create
    response = curator_client.post(f"/entities/{holmes.pk}/{path}", data, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert 'role="alert"' in response.content.decode()
    after = (
        list(Entity.objects.values_list("pk", "canonical_name")),
        list(Alias.objects.values_list("alias", flat=True)),
    )
    assert after == before
    assert not EntityMerge.objects.exists() and AuditEntry.objects.count() == audited


def test_a_url_encoded_form_is_read_the_same(curator_client, holmes):
    response = curator_client.post(
        f"/entities/{holmes.pk}/aliases/remove",
        "alias=Mr.%20Holmes%00",
        content_type="application/x-www-form-urlencoded",
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 400 and "has no alias" in response.content.decode()
    assert list(Alias.objects.values_list("alias", flat=True)) == ["Mr. Holmes"]


@pytest.mark.parametrize(
    ("url", "field"),
    [
        ("/api/v1/entities/a%00b/", "path"),
        ("/api/v1/facts/?entity=%00", "entity"),
        ("/api/v1/facts/?source=x%00", "source"),
        ("/api/v1/facts/refs?ids=%00", "ids"),
        ("/api/v1/entities/?q=%00", "q"),
    ],
)
def test_the_api_answers_400_json_naming_the_parameter(curator_api, holmes, url, field):
    response = curator_api.get(url)
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["code"], error["field"]) == ("invalid", field)
    assert "NUL" in error["message"]


@pytest.mark.parametrize("kind", ["%01", "%E2%80%8B", "x" * 80])
def test_an_entity_type_no_entity_can_have_is_an_inline_error(curator_client, holmes, kind):
    response = curator_client.get(f"/entities/?q=Holmes&type={kind}")
    assert response.status_code == 400
    html = response.content.decode()
    assert 'role="alert"' in html and "type" in html
    assert "Sherlock Holmes</a>" not in html
    # the HTMX swap of the results gets the same message in the results' place
    response = curator_client.get(f"/entities/?q=Holmes&type={kind}", HTTP_HX_REQUEST="true")
    assert response.status_code == 400 and b'role="alert"' in response.content


def test_a_good_type_still_filters(curator_client, holmes):
    entity_store(name="Sherlock Holmes", type="book")
    html = curator_client.get("/entities/?q=Holmes&type=person").content.decode()
    assert html.count("Sherlock Holmes</a>") == 1 and 'role="alert"' not in html


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("find_duplicates", "ab\x00"), "no entity with id 'ab\\x00'"),
        (("delete_book", "Kites\x00"), "No book titled or numbered 'Kites\\x00'."),
        (("entity_get", "Holmes\x00"), "control characters"),
    ],
    ids=lambda value: value[0] if isinstance(value, tuple) else None,
)
def test_a_command_given_a_nul_is_one_line_on_every_database(holmes, args, says):
    assert says in command_fails(*args)
    assert Entity.objects.filter(pk=holmes.pk).exists()
