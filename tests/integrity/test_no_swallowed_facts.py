"""Issue 27 item 1: a duplicate verdict never swallows a fact that differs by an
identifier, a number, a date or a name, and a confirmation keeps the statement it
folded in, so a wrong one can be undone."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from entities.confirmations import fact_confirmation_undo
from entities.models import EntityFact, Fact, FactConfirmation
from entities.services import entity_store, fact_store
from integrity import services
from integrity.detection.classifier import DUPLICATE, classify_pair, obvious_duplicate
from integrity.detection.guard import duplicate_blockers
from kgsite.errors import Conflict
from kgsite.models import AuditEntry

# --- generated near-identical facts -------------------------------------------------------

_FIRST = ["Marta", "Jonas", "Priyanka", "Tobias", "Ingrid", "Kwame", "Lucia", "Ravi"]
_LAST = ["Okafor", "Lindqvist", "Moreau", "Tanaka", "Silva", "Novak", "Brennan", "Haddad"]
_TEMPLATES = [
    "{name} paid order {code} of {amount} EUR on {date}.",
    "Ticket {code} was opened by {name} and needs {amount} hours of work.",
    "{name} booked room {number} for {amount} nights starting {date}.",
    "Release {version} of the {code} service was approved by {name}.",
    "The probe {code} measured {amount} kg for {name} on {date}.",
]
_MONTHS = ["January", "March", "June", "September", "November"]


@st.composite
def facts(draw) -> dict:
    return {
        "name": f"{draw(st.sampled_from(_FIRST))} {draw(st.sampled_from(_LAST))}",
        "code": draw(st.from_regex(r"[A-Z]{2,4}-?[0-9]{3,6}", fullmatch=True)),
        "amount": draw(st.integers(min_value=2, max_value=9000)),
        "number": draw(st.integers(min_value=100, max_value=999)),
        "version": ".".join(str(draw(st.integers(0, 30))) for _ in range(3)),
        "date": f"{draw(st.integers(1, 28))} {draw(st.sampled_from(_MONTHS))} "
        f"{draw(st.integers(2001, 2035))}",
        "template": draw(st.sampled_from(_TEMPLATES)),
    }


def _changed(draw, fact: dict) -> tuple[dict, str]:
    """The same fact with one identifier, number, date or name changed."""
    field = draw(st.sampled_from(["name", "code", "amount", "number", "version", "date"]))
    other = dict(fact)
    if field == "name":
        first, last = fact["name"].split()
        if draw(st.booleans()):
            other["name"] = f"{draw(st.sampled_from([n for n in _FIRST if n != first]))} {last}"
        else:
            other["name"] = f"{first} {draw(st.sampled_from([n for n in _LAST if n != last]))}"
    elif field == "code":
        digits = [i for i, c in enumerate(fact["code"]) if c.isdigit()]
        i = draw(st.sampled_from(digits))
        digit = draw(st.sampled_from([d for d in "0123456789" if d != fact["code"][i]]))
        other["code"] = fact["code"][:i] + digit + fact["code"][i + 1 :]
    elif field in ("amount", "number"):
        other[field] = fact[field] + draw(st.sampled_from([-1, 1, 10, 100]))
    elif field == "version":
        parts = fact["version"].split(".")
        i = draw(st.integers(0, 2))
        parts[i] = str(int(parts[i]) + 1)
        other["version"] = ".".join(parts)
    else:
        day, month, year = fact["date"].split()
        other["date"] = f"{int(day) % 28 + 1} {month} {year}"
    return other, field


@st.composite
def near_identical_pairs(draw) -> tuple[str, str, str]:
    fact = draw(facts())
    other, field = _changed(draw, fact)
    template = fact["template"]
    existing, new = template.format(**fact), template.format(**other)
    return existing, new, field


def _uses(template: str, field: str) -> bool:
    return "{" + field + "}" in template


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(near_identical_pairs())
def test_one_changed_identifier_number_date_or_name_is_never_a_duplicate(pair):
    existing, new, _field = pair
    if existing == new:  # the changed field is not in this template
        return
    assert duplicate_blockers(existing, new), (existing, new)
    assert obvious_duplicate(existing, new, similarity=0.99) is None
    assert classify_pair(existing, new, similarity=0.99).label != DUPLICATE


def test_unit_time_zone_and_date_formats_of_one_value_do_not_block():
    assert not duplicate_blockers("The backup runs at 02:00 UTC.", "The backup runs at 03:00 CET.")
    assert not duplicate_blockers("Due on 31 January 2027.", "Due on 01/31/2027.")
    assert not duplicate_blockers("The box weighs 1.5 kg.", "The box weighs 1500 g.")
    assert not duplicate_blockers("Rent is 1 200 € a month.", "Rent is 14,400 EUR per year.")
    assert not duplicate_blockers("The meeting is on Monday at 10:00.", "The meeting is on Monday.")


def test_values_the_stored_fact_lacks_block_a_duplicate():
    assert duplicate_blockers("The meeting is on Monday.", "The meeting is on Monday at 10:00.")
    assert duplicate_blockers("Keep it at 20 °C.", "Keep it at -20 °C.")
    assert duplicate_blockers("The door is locked.", "The door is not locked.")
    assert duplicate_blockers("Invoice INV-2231 was paid.", "Invoice INV-2213 was paid.")
    assert duplicate_blockers("Nadia Petrov signed it.", "Nadia Petrova signed it.")


# --- fact_store -----------------------------------------------------------------------------


@pytest.fixture
def index_says_identical(monkeypatch):
    """Every stored fact is the index's nearest neighbour at cosine 0.99."""

    def similar(text, *, k, min_score):
        return [(pk, 0.99) for pk in Fact.objects.values_list("pk", flat=True)[:k]]

    monkeypatch.setattr(services, "similar", similar)


@pytest.mark.django_db
def test_facts_one_identifier_apart_are_both_stored(index_says_identical):
    one = entity_store(name="Probe One", type="thing")[0]
    two = entity_store(name="Probe Two", type="thing")[0]
    stored = [
        fact_store(
            text=f"ProbeAx{n}000x0 was created for the restart probe number 0",
            subject=one if n % 2 else two,
        ).action
        for n in range(1, 9)
    ]
    assert stored == ["created"] * 8
    assert Fact.objects.count() == 8


@pytest.mark.django_db
def test_the_same_words_about_another_subject_are_stored():
    ana = entity_store(name="Ana Ruiz", type="person")[0]
    bea = entity_store(name="Bea Ruiz", type="person")[0]
    fact_store(text="She moved to the new office in spring.", subject=ana)
    again = fact_store(text="She moved to the new office in spring.", subject=bea)
    assert again.action == "created"
    assert fact_store(text="She moved to the new office in spring.", subject=ana).action == (
        "confirmed"
    )


@pytest.mark.django_db
def test_a_confirmation_keeps_the_statement_and_can_be_undone(curator):
    kim = entity_store(name="Kim Abara", type="person")[0]
    lab = entity_store(name="North Lab", type="place")[0]
    first = fact_store(text="Kim Abara works at the north lab", subject=kim, confidence=0.6)
    confirmed = fact_store(
        text="kim abara works at the North lab",
        subject=kim,
        entities=[lab],
        source="meeting notes",
        client="notes-bot",
        confidence=0.8,
    )
    assert (confirmed.action, confirmed.fact.pk) == ("confirmed", first.fact.pk)
    evidence = FactConfirmation.objects.get()
    assert (evidence.text, evidence.source, evidence.client) == (
        "kim abara works at the North lab",
        "meeting notes",
        "notes-bot",
    )
    assert EntityFact.objects.filter(fact=first.fact, entity=lab).exists()

    restored = fact_confirmation_undo(confirmation_id=evidence.pk, actor=curator)
    old = Fact.objects.get(pk=first.fact.pk)
    assert (old.confirmations, old.confidence) == (1, pytest.approx(0.6))
    assert not EntityFact.objects.filter(fact=old, entity=lab).exists()
    assert (restored.text, restored.source, restored.client, restored.subject) == (
        "kim abara works at the North lab",
        "meeting notes",
        "notes-bot",
        kim,
    )
    assert EntityFact.objects.filter(fact=restored, entity=lab).exists()
    assert AuditEntry.objects.filter(action="fact.confirmation_undo").count() == 1
    with pytest.raises(Conflict):
        fact_confirmation_undo(confirmation_id=evidence.pk, actor=curator)


@pytest.mark.django_db
def test_the_api_lists_the_evidence_and_undoes_a_confirmation(curator_api, api):
    first = fact_store(text="The east gate closes at dusk").fact
    fact_store(text="the East gate closes at dusk", source="patrol log")
    detail = api.get(f"/api/v1/facts/{first.pk}/").json()
    [evidence] = detail["confirmed_by"]
    assert (evidence["text"], evidence["source"], evidence["undone_at"]) == (
        "the East gate closes at dusk",
        "patrol log",
        None,
    )
    url = f"/api/v1/facts/{first.pk}/confirmations/{evidence['id']}/undo"
    assert api.post(url).status_code == 403  # a reader may not
    response = curator_api.post(url)
    assert response.status_code == 201
    body = response.json()
    assert body["fact"]["confirmations"] == 1
    assert body["restored"]["text"] == "the East gate closes at dusk"
    again = curator_api.post(url)
    assert again.status_code == 409 and again.json()["error"]["code"] == "already_undone"
    assert (
        curator_api.post(f"/api/v1/facts/{first.pk}/confirmations/999999/undo").status_code == 404
    )


@pytest.mark.django_db
def test_the_entity_page_offers_to_keep_a_confirmation_apart(client, curator):
    ada = entity_store(name="Ada Quint", type="person")[0]
    first = fact_store(text="Ada Quint leads the archive team", subject=ada).fact
    fact_store(text="ada quint leads the archive team", subject=ada, source="chat")
    client.force_login(curator)
    page = client.get(f"/entities/{ada.pk}/").content.decode()
    evidence = FactConfirmation.objects.get()
    undo_url = f"/entities/{ada.pk}/confirmations/{evidence.pk}/undo"
    assert "ada quint leads the archive team" in page and undo_url in page
    response = client.post(undo_url)
    assert response.status_code == 302
    assert Fact.objects.filter(text="ada quint leads the archive team").exists()
    assert Fact.objects.get(pk=first.pk).confirmations == 1
