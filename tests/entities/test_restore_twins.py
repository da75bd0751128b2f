"""Every undo that makes an old fact active again (a replacement undone, a contradiction's
resolution undone, an edit put back) keeps the rule the edits keep: no two active facts
of one project and kind say the same thing word for word. When the old words were
stored again meanwhile, the undo is refused and nothing changes."""

from __future__ import annotations

import pytest

from entities.curation import fact_supersede, fact_supersede_undo, fact_supersede_undoable
from entities.models import Fact
from entities.services import fact_store
from integrity.detection.classifier import Verdict
from integrity.resolution import contradiction_resolve, contradiction_undo
from integrity.services import contradiction_store
from kgsite.errors import Conflict
from kgsite.models import AuditEntry

pytestmark = pytest.mark.django_db

OLD, NEW = "The bridge opened in 1901.", "The bridge opened in 1902."


def _active_texts() -> list[str]:
    return sorted(Fact.objects.filter(status="active").values_list("text", flat=True))


def _statuses() -> dict[int, str]:
    return dict(Fact.objects.values_list("pk", "status"))


def test_a_replacement_undone_gives_the_old_fact_back(curator):
    old = fact_store(text=OLD).fact
    fact_supersede(fact=old, text=NEW, actor=curator)
    entry = AuditEntry.objects.get(action="fact.supersede")
    assert fact_supersede_undoable(entry=entry)
    fact_supersede_undo(entry=entry, actor=curator)
    assert _active_texts() == [OLD]


def test_a_replacement_is_not_undone_over_the_old_words_stored_again(curator):
    old = fact_store(text=OLD).fact
    fact_supersede(fact=old, text=NEW, actor=curator)
    again = fact_store(text=OLD).fact  # the old words, stored anew meanwhile
    assert again.pk != old.pk
    entry = AuditEntry.objects.get(action="fact.supersede")
    before = _statuses()
    assert not fact_supersede_undoable(entry=entry)  # the log offers no undo
    with pytest.raises(Conflict, match=f"fact {again.pk}"):
        fact_supersede_undo(entry=entry, actor=curator)
    assert _statuses() == before
    assert _active_texts() == sorted([OLD, NEW])


def _resolved_pair(curator):
    a, b = fact_store(text=OLD).fact, fact_store(text=NEW).fact
    verdict = Verdict("contradiction", "date", 0.9, "values differ")
    pair = contradiction_store(fact_a=a, fact_b=b, verdict=verdict)
    return a, contradiction_resolve(contradiction=pair, resolution="keep_second", actor=curator)


def test_a_resolution_undone_gives_the_superseded_fact_back(curator):
    _a, pair = _resolved_pair(curator)
    contradiction_undo(contradiction=pair, actor=curator)
    assert _active_texts() == sorted([OLD, NEW])


def test_a_resolution_is_not_undone_over_the_old_words_stored_again(curator):
    a, pair = _resolved_pair(curator)
    again = fact_store(text=OLD).fact
    assert again.pk != a.pk
    before = _statuses()
    with pytest.raises(Conflict, match=f"fact {again.pk}"):
        contradiction_undo(contradiction=pair, actor=curator)
    assert _statuses() == before
    pair.refresh_from_db()
    assert pair.status == "resolved"


def test_the_audit_page_says_why_instead_of_undoing(curator, client):
    client.force_login(curator)
    a, pair = _resolved_pair(curator)
    fact_store(text=OLD)
    entry = AuditEntry.objects.get(action="contradiction.resolve")
    response = client.post(f"/audit/{entry.pk}/undo", follow=True)
    assert response.status_code == 200
    assert b"already says this" in response.content
    assert Fact.objects.get(pk=a.pk).status == "superseded"
