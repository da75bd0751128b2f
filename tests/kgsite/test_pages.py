"""What every curator page shares: login, the curator permission for writes, one checked
fetch, and service errors shown on the form field they name."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from django import forms
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import NON_FIELD_ERRORS, PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import resolve_url
from django.test import RequestFactory

from entities.models import Entity
from entities.services import entity_store
from kgsite.errors import Conflict, InvalidInput
from kgsite.pages import checked_get, curator_required, form_error


@curator_required
def page(request):
    return HttpResponse("ok")


def _request(method: str, user) -> object:
    request = getattr(RequestFactory(), method)("/somewhere/?x=1")
    request.user = user
    return request


@pytest.mark.django_db
def test_anonymous_visitors_are_sent_to_log_in_and_come_back():
    response = page(_request("get", AnonymousUser()))
    assert response.status_code == 302
    assert response["Location"].endswith(f"?next={quote('/somewhere/?x=1', safe='/')}")
    assert response["Location"].startswith(resolve_url(settings.LOGIN_URL))


@pytest.mark.django_db
def test_readers_read_and_only_curators_write(reader, curator):
    assert page(_request("get", reader)).status_code == 200
    with pytest.raises(PermissionDenied):
        page(_request("post", reader))
    assert page(_request("post", curator)).status_code == 200


@pytest.mark.django_db
def test_checked_get_answers_404_for_absent_or_malformed_ids_and_says_who_may_write(
    reader, curator
):
    entity, _ = entity_store(name="Ada Lovelace", type="person")
    found, can_write = checked_get(_request("get", reader), Entity, entity.pk)
    assert (found, can_write) == (entity, False)
    assert checked_get(_request("get", curator), Entity.objects.all(), entity.pk)[1] is True
    with pytest.raises(PermissionDenied):
        checked_get(_request("post", reader), Entity, entity.pk, write=True)
    for missing in ("nope", 10**30):
        with pytest.raises(Http404):
            checked_get(_request("get", curator), Entity, missing)


class NameForm(forms.Form):
    canonical_name = forms.CharField()


def test_a_service_error_lands_on_the_field_it_names_or_on_the_form():
    form = NameForm(data={"canonical_name": "x"})
    assert form.is_valid()
    form.add_error(None, form_error(InvalidInput("too short", field="canonical_name"), form.fields))
    form.add_error(None, form_error(Conflict("taken", field="type"), form.fields))
    assert form.errors["canonical_name"] == ["too short"]
    assert form.errors[NON_FIELD_ERRORS] == ["taken"]
