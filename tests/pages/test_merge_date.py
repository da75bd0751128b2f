"""The entity page's line about its last merge reads as one sentence whatever the hour:
an evening merge's time ends in "p.m.", and the line put its own full stop after it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.urls import reverse

from entities.models import EntityMerge
from entities.services import entity_merge, entity_store

pytestmark = pytest.mark.django_db


def test_an_evening_merge_reads_without_a_doubled_full_stop(curator_client, curator):
    kept, _ = entity_store(name="Kestrel Light", type="place")
    gone, _ = entity_store(name="Kestrel Lighthouse", type="place")
    entity_merge(survivor=kept, duplicates=[gone], actor=curator)
    evening = datetime(2026, 11, 27, 17, 12, tzinfo=UTC)
    EntityMerge.objects.update(created_at=evening)
    html = curator_client.get(reverse("entities:detail", args=[kept.pk])).content.decode()
    assert "p.m." in html
    assert "p.m.." not in html
