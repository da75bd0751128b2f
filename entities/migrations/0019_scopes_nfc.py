"""Scopes (project keys) stored before they were normalised are trimmed and put in
Unicode NFC, as every scope is from now on: "café" typed with a combining accent was a
project of its own, invisible to a reader naming "café".

One UPDATE per distinct scope that changes (projects are few); case is kept.
"""

import unicodedata

from django.db import migrations

MODELS = ["Fact", "ExternalFactLink", "Episode", "KGEModel"]


def scopes_normalise(model) -> None:
    for scope in model.objects.exclude(scope="").values_list("scope", flat=True).distinct():
        clean = unicodedata.normalize("NFC", scope.strip())
        if clean != scope:
            model.objects.filter(scope=scope).update(scope=clean)


def forwards(apps, schema_editor):
    for name in MODELS:
        scopes_normalise(apps.get_model("entities", name))


class Migration(migrations.Migration):
    dependencies = [("entities", "0018_scope_index_covers_trigger_lists")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
