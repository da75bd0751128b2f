"""Saving a page drawn before another curator changed the same thing: the later change
is never silently written over. The page says what changed, keeps what was typed, and a
second save (made knowing it) applies it."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from entities.models import Entity, Fact
from entities.services import entity_update, fact_store, fact_update

pytestmark = pytest.mark.django_db


class _Form(HTMLParser):
    """The fields of the page's first form posting to ``action`` (to itself without
    one), as a browser sends them."""

    def __init__(self, action: str | None) -> None:
        super().__init__()
        self.action = action
        self.fields: dict[str, str] = {}
        self._in = self._done = False
        self._text: str | None = None
        self._select: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and not self._done and a.get("method") == "post":
            self._in = a.get("action") == self.action
        if not self._in:
            return
        name = a.get("name")
        if tag == "input" and name:
            self.fields[name] = a.get("value") or ""
        elif tag == "textarea" and name:
            self._text, self.fields[name] = name, ""
        elif tag == "select" and name:
            self._select = name
        elif tag == "option" and self._select and "selected" in a:
            self.fields[self._select] = a.get("value") or ""

    def handle_data(self, data):
        if self._text:
            self.fields[self._text] += data

    def handle_endtag(self, tag):
        if tag == "textarea":
            self._text = None
        elif tag == "select":
            self._select = None
        elif tag == "form" and self._in:
            self._in, self._done = False, True


def form_of(html: str, action: str | None = None) -> dict[str, str]:
    parser = _Form(action)
    parser.feed(html)
    return parser.fields


@pytest.fixture
def other_curator(curator) -> User:
    other = User.objects.create_user("bea", password="x")
    other.groups.set(curator.groups.all())
    return other


def test_a_stale_fact_page_does_not_bring_back_a_retracted_fact(
    curator_client, other_curator, holmes
):
    """The page still showed the fact active; another curator retracted it meanwhile.
    Saving a new source set it active again, as if the retraction never happened."""
    fact = fact_store(text="Holmes plays the violin", entities=[holmes], source="a").fact
    url = reverse("entities:fact", args=[fact.pk])
    form = form_of(curator_client.get(url).content.decode())
    assert form["status"] == "active" and form["source"] == "a"
    fact_update(fact=fact, actor=other_curator, status="retracted")

    response = curator_client.post(url, {**form, "source": "the casebook"})
    assert response.status_code == 409
    html = response.content.decode()
    assert 'role="alert"' in html and "changed since you opened" in html
    assert 'value="the casebook"' in html  # what was typed is kept
    fact.refresh_from_db()
    assert (fact.status, fact.source) == ("retracted", "a")

    again = form_of(html)  # saving once more, knowing what changed, applies it
    assert curator_client.post(url, again).status_code == 302
    fact.refresh_from_db()
    assert (fact.status, fact.source) == ("active", "the casebook")


def test_a_fact_page_saved_twice_in_a_row_is_no_conflict(curator_client, holmes):
    fact = fact_store(text="Holmes plays the violin", entities=[holmes], source="a").fact
    url = reverse("entities:fact", args=[fact.pk])
    form = form_of(curator_client.get(url).content.decode())
    assert curator_client.post(url, {**form, "source": "b"}).status_code == 302
    form = form_of(curator_client.get(url).content.decode())
    assert curator_client.post(url, {**form, "source": "c"}).status_code == 302
    fact.refresh_from_db()
    assert fact.source == "c"


def test_a_stale_entity_edit_does_not_undo_another_curators_rename(
    curator_client, other_curator, holmes
):
    """The head's edit form sends name, type and description back: retyping from a page
    drawn before another curator's rename put the old name back."""
    page = reverse("entities:detail", args=[holmes.pk])
    edit = reverse("entities:edit", args=[holmes.pk])
    form = form_of(curator_client.get(page).content.decode(), edit)
    assert form["canonical_name"] == "Sherlock Holmes"
    entity_update(entity=holmes, actor=other_curator, canonical_name="Sherlock Holmes (detective)")

    response = curator_client.post(edit, {**form, "type": "detective"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 409
    html = response.content.decode()
    assert 'role="alert"' in html and "changed since you opened" in html
    assert 'value="detective"' in html
    holmes = Entity.objects.get(pk=holmes.pk)
    assert (holmes.canonical_name, holmes.type) == ("Sherlock Holmes (detective)", "person")

    again = form_of(html, edit)  # the head as it is now: saving it applies the retype
    assert curator_client.post(edit, again, HTTP_HX_REQUEST="true").status_code == 204
    holmes = Entity.objects.get(pk=holmes.pk)
    assert holmes.type == "detective"


def test_acting_on_an_entity_merged_away_meanwhile_says_where_it_went(
    curator_client, other_curator, holmes
):
    """The page of an entity another curator then merged away: adding an alias (or a
    fact, or an edit) answered the whole 404 page, swapped inside the card."""
    from entities.services import entity_merge, entity_store

    twin, _ = entity_store(name="S. Holmes", type="person")
    entity_merge(survivor=holmes, duplicates=[twin], actor=other_curator)
    url = reverse("entities:alias-add", args=[twin.pk])
    response = curator_client.post(
        url, {"alias": "The Great Detective"}, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="aliases"
    )
    assert response.status_code == 404  # not here, and the body says where it went
    html = response.content.decode()
    assert html.startswith('<div id="aliases"') and "<html" not in html
    assert 'role="alert"' in html and "Sherlock Holmes" in html
    assert f'href="/entities/{holmes.pk}/"' in html
    assert not holmes.aliases.filter(alias="The Great Detective").exists()
    # without script: back on the survivor's page, told why
    plain = curator_client.post(reverse("entities:fact-add", args=[twin.pk]), {"text": "x"})
    assert plain.status_code == 302 and plain["Location"] == f"/entities/{holmes.pk}/"
    assert "was merged into" in curator_client.get(plain["Location"]).content.decode()
    # an id that never was answers the plain 404 page
    never = curator_client.post(
        reverse("entities:alias-add", args=["nope"]), {}, HTTP_HX_REQUEST="true"
    )
    assert never.status_code == 404 and b"was merged into" not in never.content


@pytest.mark.parametrize("meanwhile", ["superseded", "retracted"])
def test_retract_from_a_stale_entity_page_leaves_an_ended_fact_as_it_is(
    curator_client, curator, other_curator, holmes, meanwhile
):
    """The entity page still offered Retract on a fact another curator had ended since
    (superseded by a resolution, or retracted). The click turned a superseded fact into
    a retracted one (its resolution could no longer be undone) and the card said
    "Retracted" with an Undo of this curator's own older edit of it."""
    fact = fact_store(text="Holmes plays the violin", entities=[holmes], source="a").fact
    fact_update(fact=fact, actor=curator, source="the casebook")  # an older edit of mine
    fact_update(fact=fact, actor=other_curator, status=meanwhile)

    response = curator_client.post(
        reverse("entities:fact-retract", args=[fact.pk]),
        {"entity": holmes.pk},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 409
    html = response.content.decode()
    assert 'role="alert"' in html and f"is {meanwhile} now" in html
    assert "Retracted “" not in html and "Undo" not in html
    fact.refresh_from_db()
    assert (fact.status, fact.source) == (meanwhile, "the casebook")


def test_the_stale_fact_message_names_the_status_in_italian(curator_client, other_curator, holmes):
    """The Italian refusal read "(ora è Retracted)": the status was the English label."""
    fact = fact_store(text="Holmes plays the violin", entities=[holmes], source="a").fact
    curator_client.post(reverse("set_language"), {"language": "it", "next": "/"})
    url = reverse("entities:fact", args=[fact.pk])
    form = form_of(curator_client.get(url).content.decode())
    fact_update(fact=fact, actor=other_curator, status="retracted")
    html = curator_client.post(url, {**form, "source": "b"}).content.decode()
    assert "(ora è ritirato)" in html and "Retracted" not in html


def test_a_stale_fact_page_does_not_supersede_words_it_never_showed(
    curator_client, other_curator, holmes
):
    """The page showed "plays the violin"; another curator rewrote the fact meanwhile.
    Replace superseded the rewritten fact, whose words this curator never saw."""
    fact = fact_store(text="Holmes plays the violin", entities=[holmes]).fact
    url = reverse("entities:fact", args=[fact.pk])
    supersede = reverse("entities:fact-supersede", args=[fact.pk])
    form = form_of(curator_client.get(url).content.decode(), supersede)
    fact_update(fact=fact, actor=other_curator, text="Holmes plays the violin badly")

    response = curator_client.post(supersede, {**form, "text": "Holmes plays the viola"})
    assert response.status_code == 409
    html = response.content.decode()
    assert "changed since you opened" in html and "Holmes plays the viola" in html
    fact.refresh_from_db()
    assert (fact.status, fact.text) == ("active", "Holmes plays the violin badly")
    assert not Fact.objects.filter(text="Holmes plays the viola").exists()

    again = form_of(html, supersede)  # the page as it is now: replacing applies
    assert curator_client.post(supersede, again).status_code == 302
    fact.refresh_from_db()
    assert fact.status == "superseded"
    assert Fact.objects.filter(text="Holmes plays the viola", status="active").exists()


def test_retract_from_a_stale_entity_page_leaves_a_rewritten_fact_active(
    curator_client, other_curator, holmes
):
    """The facts card showed "plays the violin"; another curator rewrote the fact since.
    Retract ended the rewritten fact, whose words this curator never saw."""
    fact = fact_store(text="Holmes plays the violin", entities=[holmes]).fact
    page = curator_client.get(reverse("entities:detail", args=[holmes.pk])).content.decode()
    retract = reverse("entities:fact-retract", args=[fact.pk])
    form = form_of(page, retract)
    fact_update(fact=fact, actor=other_curator, text="Holmes plays the violin at night")

    response = curator_client.post(retract, form, HTTP_HX_REQUEST="true")
    assert response.status_code == 409
    html = response.content.decode()
    assert 'role="alert"' in html and "rewritten since you opened" in html
    assert "at night" in html  # the card shows the fact as it is now
    fact.refresh_from_db()
    assert fact.status == "active"
    again = form_of(html, retract)  # retracting from the card as it is now is taken
    assert curator_client.post(retract, again, HTTP_HX_REQUEST="true").status_code == 200
    fact.refresh_from_db()
    assert fact.status == "retracted"


def test_save_clicked_twice_on_a_fact_page_is_saved_not_stale(curator_client, holmes):
    """A double click on Save sends the form twice; the second found the fact changed
    since the page was drawn (by the first) and the browser showed the 409 "changed
    since you opened this page" over a save that had worked."""
    fact = fact_store(text="Holmes plays the violin", entities=[holmes], source="a").fact
    url = reverse("entities:fact", args=[fact.pk])
    form = {**form_of(curator_client.get(url).content.decode()), "source": "the casebook"}
    assert curator_client.post(url, form).status_code == 302
    again = curator_client.post(url, form)
    assert again.status_code == 302
    fact.refresh_from_db()
    assert fact.source == "the casebook"
    # a form that differs from what the fact holds now is still stale
    assert curator_client.post(url, {**form, "source": "b"}).status_code == 409


def test_saving_a_fact_unchanged_offers_no_undo_of_the_earlier_edit(curator_client, holmes):
    """Save on a fact page that changes nothing wrote nothing, yet said "Fact saved" with
    the Undo of this curator's earlier edit: clicking it took that edit back."""
    fact = fact_store(text="Holmes plays the violin", entities=[holmes], source="a").fact
    url = reverse("entities:fact", args=[fact.pk])
    form = {**form_of(curator_client.get(url).content.decode()), "source": "the casebook"}
    curator_client.post(url, form)
    unchanged = form_of(curator_client.get(url).content.decode())
    html = curator_client.post(url, unchanged, follow=True).content.decode()
    assert "Nothing to save" in html and "Fact saved" not in html
    assert not re.search(r'action="/audit/\d+/undo"', html)
    fact.refresh_from_db()
    assert fact.source == "the casebook"
