"""Agent ids and session ids stored before they were normalised are trimmed and put in
Unicode NFC, as every one is from now on (``scopes.key_clean``): an agent named with a
combining accent was another agent to ``ai_id`` filters, a session another session.

One UPDATE per distinct value that changes (agents and sessions are few next to facts).
"""

import unicodedata

from django.db import migrations

MODELS = ["Fact", "FactConfirmation", "Episode"]


def keys_normalise(model, field: str) -> None:
    values = model.objects.exclude(**{field: ""}).values_list(field, flat=True).distinct()
    for value in values:
        clean = unicodedata.normalize("NFC", value.strip())
        if clean != value:
            model.objects.filter(**{field: value}).update(**{field: clean})


def forwards(apps, schema_editor):
    for name in MODELS:
        for field in ("ai_id", "session_id"):
            keys_normalise(apps.get_model("entities", name), field)


class Migration(migrations.Migration):
    dependencies = [("entities", "0019_scopes_nfc")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
