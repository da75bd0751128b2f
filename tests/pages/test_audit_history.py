"""An entity's or a fact's "history" link opens the audit log of that one thing: rows
of another table that happens to share its id (fact 1 and contradiction 1, say) are not
mixed in, and the action filter keeps the narrowing."""

from __future__ import annotations

import re

import pytest

from entities.services import alias_add, entity_store, fact_entities_link, fact_store
from integrity.detection.classifier import Verdict
from integrity.resolution import contradiction_resolve
from integrity.services import contradiction_store
from kgsite.models import AuditEntry

pytestmark = pytest.mark.django_db


def _history_link(html: str) -> str:
    return re.search(r'<a href="(/audit/\?target=[^"]+)">history</a>', html).group(1)


def _targets(html: str) -> list[str]:
    return re.findall(r"<tr>\s*<td><time.*?</td>\s*<td>.*?</td>\s*<td>(.*?)</td>", html, re.S)


@pytest.fixture
def shared_id(curator):
    """A fact and a contradiction with the same id, each with its own audit rows (on a
    fresh database fact 1 and contradiction 1 do; elsewhere the contradiction's rows
    are pointed at the fact's number, as they would read then)."""
    first = fact_store(text="The tower is 40 metres tall", actor=curator).fact
    second = fact_store(text="The tower is 55 metres tall", actor=curator).fact
    verdict = Verdict("contradiction", "number", 0.9, "values differ")
    pair = contradiction_store(fact_a=first, fact_b=second, verdict=verdict)
    contradiction_resolve(contradiction=pair, resolution="keep_second", actor=curator)
    AuditEntry.objects.filter(target_type="integrity.contradiction").update(target_id=str(first.pk))
    return first


def test_a_facts_history_shows_only_that_facts_rows(curator_client, shared_id):
    page = curator_client.get(f"/entities/facts/{shared_id.pk}/").content.decode()
    link = _history_link(page).replace("&amp;", "&")
    html = curator_client.get(link).content.decode()
    rows = AuditEntry.objects.filter(target_id=str(shared_id.pk))
    assert {r.target_type for r in rows} == {"entities.fact", "integrity.contradiction"}
    assert "resolved the contradiction" not in html.split("<tbody>")[1]
    assert len(_targets(html)) == rows.filter(target_type="entities.fact").count()


def test_an_entitys_history_keeps_its_type_through_the_action_filter(curator_client, curator):
    entity, _ = entity_store(name="Ada Lovelace", type="person", actor=curator)
    alias_add(entity=entity, alias="Countess", actor=curator)
    page = curator_client.get(f"/entities/{entity.pk}/").content.decode()
    link = _history_link(page).replace("&amp;", "&")
    html = curator_client.get(link).content.decode()
    assert 'name="type" value="entities.entity"' in html  # the filter form keeps it
    assert "added an alias to" in html and len(_targets(html)) == 2
    narrowed = curator_client.get(link + "&action=alias.add").content.decode()
    assert len(_targets(narrowed)) == 1


def test_a_type_no_row_has_shows_an_empty_log(curator_client, shared_id):
    html = curator_client.get(
        "/audit/", {"target": shared_id.pk, "type": "books.book"}
    ).content.decode()
    assert "No curator action matches these filters." in html


def test_a_narrowed_log_says_so_and_offers_everything(curator_client, curator):
    """The "history" link narrows the log to one thing without a word on the page: the
    action menu kept the hidden narrowing, nothing undid it but the menu bar, and an
    empty result read "No curator actions yet." on a log full of them."""
    entity, _ = entity_store(name="Ada Lovelace", type="person", actor=curator)
    alias_add(entity=entity, alias="Countess", actor=curator)
    page = curator_client.get(f"/entities/{entity.pk}/").content.decode()
    link = _history_link(page).replace("&amp;", "&")
    html = curator_client.get(link).content.decode()
    assert "Only what was done to “Ada Lovelace” is shown." in html
    assert '<a href="/audit/">Show every action</a>' in html
    empty = curator_client.get(link + "&action=entity.merge").content.decode()
    assert "No curator action matches" in empty and "No curator actions yet." not in empty
    assert "Only what was done to" not in curator_client.get("/audit/").content.decode()


@pytest.mark.parametrize("target", ["²", "99999999999999999999999"])
@pytest.mark.parametrize(
    "kind",
    ["entities.fact", "entities.entitymerge", "integrity.contradiction", "books.book"],
)
def test_a_target_that_is_no_id_shows_an_empty_log(curator_client, shared_id, target, kind):
    """A history address edited by hand (a superscript digit, a
    number past 64 bits) matches no row: the log says so instead of a server error."""
    response = curator_client.get("/audit/", {"target": target, "type": kind})
    assert response.status_code == 200
    assert "No curator action matches these filters." in response.content.decode()


def test_every_curator_action_in_the_log_is_named_in_words(curator_client, curator):
    """ "Not the same: keep apart" on an entity page and a fact linked to entities were
    logged as "fact: confirmation undo" and "fact: link", the action's code, in English
    on the Italian log too (the action menu as well)."""
    holmes, _ = entity_store(name="Sherlock Holmes", type="person", actor=curator)
    first = fact_store(text="Holmes plays the violin", entities=[holmes], actor=curator).fact
    fact_store(text="holmes plays the Violin", entities=[holmes], source="a letter")
    evidence = first.confirmation_rows.get()
    url = f"/entities/{holmes.pk}/confirmations/{evidence.pk}/undo"
    assert curator_client.post(url).status_code == 302
    street, _ = entity_store(name="Baker Street", type="place")
    fact_entities_link(fact=first, entities=[street], role="mention", actor=curator)
    html = curator_client.get("/audit/").content.decode()
    assert "kept apart a confirmation of" in html and "linked entities to the fact" in html
    assert "fact: confirmation undo" not in html and "fact: link" not in html
    curator_client.post("/i18n/setlang/", {"language": "it", "next": "/"})
    italian = curator_client.get("/audit/").content.decode()
    assert "ha separato una conferma di" in italian and "ha collegato entità al fatto" in italian
