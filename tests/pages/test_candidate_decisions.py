"""The candidate queue when the page is stale or the choice is wrong: ids accepted or
rejected meanwhile, a type no entity can have, a merge target that is not there, an
undo twice. The curator sees an inline error or an honest count; nothing is lost."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from books import review
from books.models import Mention
from books.services import book_ingest
from entities.models import Entity
from entities.services import entity_store
from kgsite.models import AuditEntry

from .conftest import HTMX
from .test_candidates import BOOK, _candidates

pytestmark = pytest.mark.django_db
DECIDE = reverse("books:candidates-decide")


@pytest.fixture
def book(tmp_path):
    """The harbour book of test_candidates, its entities all waiting as candidates."""
    path = tmp_path / "harbour.md"
    path.write_text(BOOK, encoding="utf-8")
    ingested = book_ingest(path=path, extractor="offline", embed=False).book
    Entity.objects.filter(mentions__book=ingested).update(candidate=True)
    return ingested


def _decide(client, action: str, ids: list[str], **extra):
    return client.post(DECIDE, {"action": action, "ids": ids, **extra}, **HTMX)


def _state() -> tuple[list, int]:
    rows = Entity.objects.order_by("pk").values_list("pk", "canonical_name", "type", "candidate")
    return list(rows), Mention.objects.count()


@pytest.mark.parametrize("action", ["", "delete", "ACCEPT"])
def test_an_action_that_is_no_choice_is_an_inline_error(curator_client, book, action):
    before = _state()
    response = _decide(curator_client, action, [e.pk for e in _candidates(book)])
    assert response.status_code == 400 and b'role="alert"' in response.content
    assert _state() == before


def test_accepting_ids_accepted_meanwhile_counts_only_the_new_ones(curator_client, book):
    ids = [e.pk for e in _candidates(book)]
    _decide(curator_client, "accept", ids[:1])
    response = _decide(curator_client, "accept", ids)  # the stale page still lists the first
    assert response.status_code == 200
    n = len(ids) - 1
    assert f"Accepted {n} candidate".encode() in response.content
    assert not Entity.objects.filter(pk__in=ids, candidate=True).exists()


def test_accepting_ids_that_are_gone_changes_nothing(curator_client, book):
    before = _state()
    response = _decide(curator_client, "accept", ["no-such-entity"])
    assert response.status_code == 200 and b"Accepted 0 candidates" in response.content
    assert _state() == before


@pytest.mark.parametrize("new_type", ["", "   ", "a\x01b", "x" * 80])
def test_retyping_to_a_type_no_entity_can_have_is_an_inline_error(curator_client, book, new_type):
    before = _state()
    ids = [e.pk for e in _candidates(book)]
    response = _decide(curator_client, "retype", ids, new_type=new_type)
    assert response.status_code == 400 and b'role="alert"' in response.content
    assert _state() == before


def test_a_retype_that_would_clash_with_an_entity_retypes_none_of_them(curator_client, book):
    first, *others = _candidates(book)
    entity_store(name=first.canonical_name, type="vessel")  # the name is taken as a vessel
    before = _state()
    response = _decide(
        curator_client, "retype", [o.pk for o in others] + [first.pk], new_type="vessel"
    )
    assert response.status_code == 400 and b'role="alert"' in response.content
    assert _state() == before  # all or nothing: not even the ones that would have fitted


def test_merging_into_a_target_that_is_not_there_is_an_inline_error(curator_client, book):
    before = _state()
    ids = [e.pk for e in _candidates(book)]
    for target in ("", "Nowhere Lighthouse"):
        response = _decide(curator_client, "merge", ids, target=target)
        assert response.status_code == 400 and b'role="alert"' in response.content
    assert _state() == before


def test_merging_candidates_into_one_of_themselves_merges_the_others(curator_client, book):
    first, *others = _candidates(book)
    response = _decide(curator_client, "merge", [first.pk], target=first.canonical_name)
    assert response.status_code == 400 and b"other than the target" in response.content
    response = _decide(
        curator_client, "merge", [e.pk for e in [first, *others]], target=first.canonical_name
    )
    assert response.status_code == 200
    assert list(Entity.objects.filter(mentions__isnull=False).distinct()) == [first]


def _undo_url(html: str) -> str:
    return re.search(r'hx-post="(/books/candidates/rejected/\d+[^"]*)"', html).group(1)


def test_a_rejection_undone_twice_brings_back_once(curator_client, book):
    entity = _candidates(book)[0]
    before = _state()
    html = _decide(curator_client, "reject", [entity.pk]).content.decode()
    url = _undo_url(html)
    assert curator_client.post(url, **HTMX).status_code == 200
    assert _state() == before
    # the second click (a double click) finds them back, as it asks: no alert over them
    again = curator_client.post(url, **HTMX)
    assert again.status_code == 200 and b'role="alert"' not in again.content
    assert b"Brought back 1 candidate." in again.content
    assert _state() == before
    assert AuditEntry.objects.filter(action="entity.reject_undo").count() == 1


def test_rejecting_ids_rejected_meanwhile_rejects_none_and_says_why(curator_client, book):
    first, second = _candidates(book)[:2]
    _decide(curator_client, "reject", [first.pk])
    before = _state()
    response = _decide(curator_client, "reject", [first.pk, second.pk])  # a stale page
    assert response.status_code == 400
    assert b"no longer candidates" in response.content
    assert _state() == before
    assert AuditEntry.objects.filter(action="entity.reject").count() == 1


@pytest.mark.parametrize(
    ("action", "extra"),
    [("accept", {}), ("reject", {}), ("retype", {"new_type": "place"}), ("merge", {})],
)
def test_an_id_with_a_nul_is_an_inline_error_on_every_database(curator_client, book, action, extra):
    if action == "merge":  # a target that is there, so the ids are what is wrong
        extra = {"target": _candidates(book)[-1].canonical_name}
    before = _state()
    ids = [e.pk for e in _candidates(book)][:1] + ["ab\x00"]
    response = _decide(curator_client, action, ids, **extra)
    assert response.status_code == 400 and b"an id contains a NUL character" in response.content
    assert _state() == before


def test_a_merge_target_with_a_nul_is_an_inline_error(curator_client, book):
    before = _state()
    response = _decide(curator_client, "merge", [_candidates(book)[0].pk], target="Port\x00")
    assert response.status_code == 400 and b"the name contains a NUL character" in response.content
    assert _state() == before


def test_the_undo_after_a_rejection_is_this_curators_own(curator_client, book, monkeypatch):
    """Two curators reject at the same moment: the Undo offered after mine undid the
    latest rejection in the log, the other curator's, bringing back what they rejected."""
    mine, theirs = _candidates(book)[:2]
    reject = review.candidates_reject

    def with_another_rejection_after(**kwargs):
        entry = reject(**kwargs)
        other = User.objects.create_user("other-curator")
        reject(entity_ids=[theirs.pk], actor=other)  # committed just after mine
        return entry

    monkeypatch.setattr(review, "candidates_reject", with_another_rejection_after)
    html = _decide(curator_client, "reject", [mine.pk]).content.decode()
    assert curator_client.post(_undo_url(html), **HTMX).status_code == 200
    assert Entity.objects.filter(pk=mine.pk).exists()
    assert not Entity.objects.filter(pk=theirs.pk).exists()


def test_the_queues_refusals_read_in_italian(curator_client, book):
    """'choose at least one candidate', "no entity is named 'X'" and the undo's refusal
    were the API's English on the Italian candidate page."""
    curator_client.post(reverse("set_language"), {"language": "it", "next": "/"})
    ids = [e.pk for e in _candidates(book)]
    answer = _decide(curator_client, "accept", []).content.decode()
    assert "Scegli almeno una candidata." in answer
    answer = _decide(curator_client, "merge", ids[:1], target="Nowhere Quay").content.decode()
    assert "nessuna entità si chiama “Nowhere Quay”" in answer
    answer = _decide(curator_client, "retype", ids[:1]).content.decode()
    assert "Scegli il tipo da assegnare." in answer
    answer = _decide(curator_client, "accept", [*ids[:1], "ab\x00"]).content.decode()
    assert "un id contiene un carattere NUL" in answer
    rejected = _decide(curator_client, "reject", ids[:1]).content.decode()
    undo = re.search(r"/books/candidates/rejected/\d+/undo", rejected).group(0)
    answer = _decide(curator_client, "reject", ids[:2]).content.decode()  # a stale page
    assert "Alcune non sono più candidate" in answer and "no longer" not in answer
    curator_client.post(undo, **HTMX)
    AuditEntry.objects.filter(action="entity.reject_undo").update(actor=None)  # another's
    answer = curator_client.post(undo, **HTMX).content.decode()
    assert "impossibile ripristinarle: “" in answer and "è già tornata" in answer
    assert "cannot bring" not in answer


def test_an_undo_whose_book_is_gone_says_why_in_italian(curator_client, book):
    from books.services import book_delete

    rejected = _decide(curator_client, "reject", [_candidates(book)[0].pk]).content.decode()
    undo = re.search(r"/books/candidates/rejected/\d+/undo", rejected).group(0)
    book_delete(book=book, actor=None)
    answer = curator_client.post(undo, HTTP_ACCEPT_LANGUAGE="it", **HTMX)
    assert answer.status_code == 409
    assert "il libro che ha proposto “" in answer.content.decode()
    assert "eliminato o riacquisito nel frattempo" in answer.content.decode()
