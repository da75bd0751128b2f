"""The fact page shows validity as dates: saving the form with the dates as shown keeps
the stored moments (an API client's 15:30, a supersede's 'now'); a changed date is set."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from django.urls import reverse

from entities.services import fact_store

pytestmark = pytest.mark.django_db

START = datetime(2020, 5, 1, 15, 30, tzinfo=UTC)
END = datetime(2021, 2, 3, 9, 45, tzinfo=UTC)


def shown(page: str, name: str) -> str:
    found = re.search(rf'name="{name}"[^>]*value="([^"]*)"', page) or re.search(
        rf'value="([^"]*)"[^>]*name="{name}"', page
    )
    return found.group(1) if found else ""


def test_saving_other_fields_keeps_the_times_of_validity(curator_client, holmes):
    """Only the confidence changed, yet both moments were moved to midnight."""
    fact = fact_store(
        text="Holmes lodges in the city", entities=[holmes], valid_from=START, valid_to=END
    ).fact
    url = reverse("entities:fact", args=[fact.pk])
    page = curator_client.get(url).content.decode()
    form = {name: shown(page, name) for name in ("text", "source", "valid_from", "valid_to")}
    assert (form["valid_from"], form["valid_to"]) == ("2020-05-01", "2021-02-03")
    response = curator_client.post(
        url, {**form, "text": fact.text, "confidence": "0.4", "status": "active"}
    )
    assert response.status_code == 302
    fact.refresh_from_db()
    assert fact.confidence == 0.4
    assert (fact.valid_from, fact.valid_to) == (START, END)


def test_a_changed_date_is_stored(curator_client, holmes):
    fact = fact_store(text="Holmes keeps bees", entities=[holmes], valid_from=START).fact
    url = reverse("entities:fact", args=[fact.pk])
    response = curator_client.post(
        url, {"text": fact.text, "status": "active", "valid_from": "2019-01-02"}
    )
    assert response.status_code == 302
    fact.refresh_from_db()
    assert fact.valid_from == datetime(2019, 1, 2, tzinfo=UTC)


def _as_a_browser_holds_it(value: str) -> str:
    """An <input type="date"> takes a value written yyyy-mm-dd only; any other is dropped
    (the box shows empty and the form sends nothing)."""
    return value if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value) else ""


def test_the_italian_fact_page_shows_and_keeps_the_dates(curator_client, holmes):
    """The Italian page wrote the dates as 01/05/2020 into the date boxes: they showed
    empty, and saving another field erased the fact's validity."""
    fact = fact_store(
        text="Holmes lodges in the city", entities=[holmes], valid_from=START, valid_to=END
    ).fact
    curator_client.post(reverse("set_language"), {"language": "it", "next": "/"})
    url = reverse("entities:fact", args=[fact.pk])
    page = curator_client.get(url).content.decode()
    form = {name: shown(page, name) for name in ("text", "source")}
    for name in ("valid_from", "valid_to"):
        form[name] = _as_a_browser_holds_it(shown(page, name))
    assert (form["valid_from"], form["valid_to"]) == ("2020-05-01", "2021-02-03")
    response = curator_client.post(
        url, {**form, "text": fact.text, "confidence": "0,4", "status": "active"}
    )
    assert response.status_code == 302
    fact.refresh_from_db()
    assert fact.confidence == 0.4
    assert (fact.valid_from, fact.valid_to) == (START, END)
